import CatalogKit
import Foundation
import GRDB
import Testing

/// Pages of imported catalogs against an in-test reference: the rules of each style applied
/// from scratch to `catalog list`'s order, frames compared to 1e-6.
@Suite struct PagerTests {
    struct RefItem { let index: Int; let id: Int64; let column: Int; let frame: Rect }

    /// The reference: the specification's rules, written out independently.
    static func reference(_ items: [ItemRow], _ c: LayoutConfiguration) -> (items: [RefItem], contentHeight: Double) {
        let columns = c.style == .list ? 1 : c.columns
        let w = (c.width - c.insets.left - c.insets.right - Double(columns - 1) * c.columnSpacing) / Double(columns)
        var bottoms = [Double](repeating: c.insets.top, count: columns)
        var counts = [Int](repeating: 0, count: columns)
        var out: [RefItem] = []
        for (index, item) in items.enumerated() {
            let column: Int
            switch (c.style, c.direction) {
            case (.waterfall, .shortestFirst): column = bottoms.indices.min { bottoms[$0] < bottoms[$1] || (bottoms[$0] == bottoms[$1] && $0 < $1) }!
            case (.waterfall, .rightToLeft): column = columns - 1 - index % columns
            default: column = index % columns
            }
            let height = c.style == .grid ? w : w * Double(item.height) / Double(item.width) + c.extraHeight
            let y = counts[column] > 0 ? bottoms[column] + c.rowSpacing : c.insets.top
            out.append(RefItem(index: index, id: item.id, column: column, frame: Rect(x: c.insets.left + Double(column) * (w + c.columnSpacing), y: y, width: w, height: height)))
            bottoms[column] = y + height
            counts[column] += 1
        }
        return (out, (items.isEmpty ? c.insets.top : bottoms.max()!) + c.insets.bottom)
    }

    static func importRows(_ count: Int, from first: Int = 0, year: Int = 2024, seed: UInt64 = 1) -> [ImportRow] {
        var state = seed
        func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
        return (first..<(first + count)).map { index in
            ImportRow(line: index + 2, key: String(format: "pin-%06d", index), width: next(200...4000), height: next(200...4000),
                      orientation: 1, date: String(format: "%04d-%02d-%02dT%02d:00:00", year, next(1...12), next(1...28), next(0...23)))
        }
    }

    func expectPage(_ store: Catalog, _ configuration: LayoutConfiguration, offset: Double, height: Double = 812,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> Page {
        let page = try store.page(PageRequest(configuration: configuration, position: .offset(offset), height: height))
        let listed = try store.items(order: configuration.order)
        let (all, contentHeight) = Self.reference(listed, configuration)
        let expected = all.filter { $0.frame.y < offset + height && $0.frame.y + $0.frame.height > offset && height > 0 }
        #expect(abs(page.contentHeight - contentHeight) <= 1e-6, sourceLocation: sourceLocation)
        #expect(page.items.map(\.index) == expected.map(\.index), "offset \(offset)", sourceLocation: sourceLocation)
        for (got, want) in zip(page.items, expected) {
            let close = abs(got.frame.x - want.frame.x) <= 1e-6 && abs(got.frame.y - want.frame.y) <= 1e-6
                && abs(got.frame.width - want.frame.width) <= 1e-6 && abs(got.frame.height - want.frame.height) <= 1e-6
            #expect(close && got.id == want.id && got.column == want.column, "item \(want.index): \(got.frame) vs \(want.frame)", sourceLocation: sourceLocation)
        }
        let keys = Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0.key) })
        #expect(page.items.allSatisfy { keys[$0.id] == $0.path }, "paths are the items' keys", sourceLocation: sourceLocation)
        return page
    }

    @Test(arguments: Backend.allCases)
    func pagesEqualTheReference_forEveryStyleAndDirection_atTopMiddleEndAndPast(_ backend: Backend) throws {
        let library = try Library(backend)
        let store = try library.catalog()
        _ = try store.importItems(Self.importRows(3000))
        var configurations: [LayoutConfiguration] = []
        for direction in RenderDirection.allCases {
            var c = LayoutConfiguration(width: 375)
            c.direction = direction
            configurations.append(c)
        }
        var wide = LayoutConfiguration(width: 1024)
        (wide.columns, wide.columnSpacing, wide.rowSpacing, wide.insets, wide.extraHeight, wide.order) = (5, 12, 4, Insets(top: 20, left: 10, bottom: 30, right: 6), 40, .path)
        var grid = LayoutConfiguration(width: 375)
        (grid.style, grid.columns) = (.grid, 3)
        var list = LayoutConfiguration(width: 375)
        (list.style, list.extraHeight) = (.list, 24)
        configurations += [wide, grid, list]
        for configuration in configurations {
            let first = try expectPage(store, configuration, offset: 0)
            #expect(first.previous == nil)
            #expect(first.next == 812)
            _ = try expectPage(store, configuration, offset: 4000)
            let middle = try expectPage(store, configuration, offset: first.contentHeight / 2)
            #expect(middle.items.count > 0)
            let last = try expectPage(store, configuration, offset: max(0, first.contentHeight - 812))
            #expect(last.next == nil)
            let past = try expectPage(store, configuration, offset: first.contentHeight + 100)
            #expect(past.items.isEmpty)
            // A band that starts exactly on a frame edge.
            let edge = try #require(middle.items.first).frame
            _ = try expectPage(store, configuration, offset: edge.y + edge.height)
            // A page of no height has no next or previous: they would be its own offset.
            let flat = try expectPage(store, configuration, offset: edge.y, height: 0)
            #expect(flat.next == nil && flat.previous == nil)
        }
        #expect(try store.layouts().count == configurations.count)
        #expect(try store.layouts().allSatisfy { $0.itemCount == 3000 })
    }

    @Test(arguments: Backend.allCases)
    func laterPagesReadTheStoredLayout_andScrollToItemClamps(_ backend: Backend) throws {
        let library = try Library(backend)
        let store = try library.catalog()
        _ = try store.importItems(Self.importRows(500))
        let configuration = LayoutConfiguration(width: 375)
        let first = try store.page(PageRequest(configuration: configuration, position: .offset(0), height: 812))
        #expect(first.source == .computed)
        let second = try store.page(PageRequest(configuration: configuration, position: .offset(4000), height: 812))
        #expect(second.source == .stored)
        let listed = try store.items(order: .date)
        let (reference, contentHeight) = Self.reference(listed, configuration)
        let target = reference[250]
        let scrolled = try store.page(PageRequest(configuration: configuration, position: .item(target.id), height: 812))
        #expect(abs(scrolled.viewport.y - target.frame.y) <= 1e-6)
        #expect(scrolled.items.contains { $0.id == target.id })
        let lastItem = reference.max { $0.frame.y < $1.frame.y }!
        let clamped = try store.page(PageRequest(configuration: configuration, position: .item(lastItem.id), height: 812))
        #expect(abs(clamped.viewport.y - (contentHeight - 812)) <= 1e-6, "clamped to the content")
        #expect(throws: PageError.noSuchItem(999_999)) {
            try store.page(PageRequest(configuration: configuration, position: .item(999_999), height: 812))
        }
    }

    @Test(arguments: Backend.allCases)
    func importsInvalidateLayouts_andAppendsAtTheEndExtendThemInPlace(_ backend: Backend) throws {
        let library = try Library(backend)
        let store = try library.catalog()
        _ = try store.importItems(Self.importRows(800, year: 2024))
        let configuration = LayoutConfiguration(width: 375)
        _ = try expectPage(store, configuration, offset: 0)
        // Older items sort after every existing one (newest first): the layout is extended.
        _ = try store.importItems(Self.importRows(200, from: 800, year: 2010, seed: 2))
        #expect(try store.layouts().count == 1, "an extendable stale layout is kept")
        let extended = try expectPage(store, configuration, offset: 0)
        #expect(extended.source == .extended)
        _ = try expectPage(store, configuration, offset: extended.contentHeight - 500)
        #expect(try store.layouts().first?.itemCount == 1000)
        // Newer items land before existing ones: recomputed from the start. The stale layout is
        // kept while the change log reaches back to it (a later change may be laid out from its
        // first changed item).
        _ = try store.importItems(Self.importRows(50, from: 1000, year: 2025, seed: 3))
        #expect(try store.layouts().count == 1)
        let recomputed = try expectPage(store, configuration, offset: 3000)
        #expect(recomputed.source == .computed)
        // An item's new size: laid out again from that item on, equal to a full computation.
        var changed = Self.importRows(1, from: 10, year: 2024)[0]
        changed.width = 5
        _ = try store.importItems([changed])
        let position = try #require(try store.items(order: .date).firstIndex { $0.key == Data(changed.key.utf8) })
        #expect(position > 0)
        #expect(try expectPage(store, configuration, offset: 0).source == .extended)
        _ = try expectPage(store, configuration, offset: 3000)
    }

    /// Random changes in the middle (new sizes, new dates, new rows) after a layout was stored:
    /// each time it is laid out again from its first changed item, and equals a full computation
    /// at the top, the middle and the end; in every style that can (waterfall, grid, list).
    @Test(arguments: Backend.allCases, ["waterfall", "grid", "list"])
    func changesInTheMiddleAreLaidOutFromTheFirstChangedItem(_ backend: Backend, style: String) throws {
        let library = try Library(backend)
        let store = try library.catalog()
        var rows = Self.importRows(3000, year: 2024)
        _ = try store.importItems(rows)
        let configuration = try LayoutConfiguration(parameters: [("width", "414"), ("cols", "3"), ("style", style)])
        _ = try expectPage(store, configuration, offset: 0)
        var random = SplitMix(seed: 9)
        var sources: [Page.Source] = []
        for round in 0..<6 {
            var batch: [ImportRow] = []
            for _ in 0..<3 {
                var row = rows[Int(random.next() % UInt64(rows.count))]
                if random.next() % 2 == 0 { row.width = 200 + Int(random.next() % 3000) } else { row.date = "2024-06-15T12:00:00" }
                batch.append(row)
            }
            batch += Self.importRows(2, from: 3000 + round * 2, year: 2024, seed: UInt64(round + 5))
            _ = try store.importItems(batch)
            for row in batch { if let index = rows.firstIndex(where: { $0.key == row.key }) { rows[index] = row } else { rows.append(row) } }
            let top = try expectPage(store, configuration, offset: 0)
            sources.append(top.source)
            _ = try expectPage(store, configuration, offset: top.contentHeight / 2)
            _ = try expectPage(store, configuration, offset: top.contentHeight - 812)
        }
        #expect(sources.contains(.extended), "\(sources)")
    }

    /// Windows are stored 64 to a segment row: bands that cross a segment's edge, scrolling to
    /// items in the first, a middle and the last segment, and an extension that rewrites only
    /// the segments from its first changed window on.
    @Test func windowsAcrossSegmentsPage_scroll_andExtendInPlace() throws {
        let library = try Library()
        let store = try library.catalog()
        _ = try store.importItems(Self.importRows(3000, year: 2024))
        var configuration = LayoutConfiguration(width: 375)
        configuration.windowHeight = 64 // 4,000 windows and more: dozens of segments
        let first = try expectPage(store, configuration, offset: 0)
        #expect(first.source == .computed)
        // Window 64 (the second segment's first) starts at y = 4096; these bands cross it.
        for offset: Double in [4000, 4096, 4095.5, 40860, first.contentHeight - 812] {
            #expect(try expectPage(store, configuration, offset: offset).source == .stored)
        }
        let database = try DatabaseQueue(path: library.layoutFilePath)
        let segments = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, first_window, window_count FROM layout_segments ORDER BY first_window")
        }
        #expect(segments.count > 40)
        #expect(segments.allSatisfy { ($0[2] as Int) == 64 } == false, "the last segment is partial, the rest full")
        #expect(segments.dropLast().allSatisfy { ($0[2] as Int) == 64 })

        let listed = try store.items(order: .date)
        let (reference, contentHeight) = Self.reference(listed, configuration)
        for target in [reference[0], reference[1499], reference[2998], reference[2999]] {
            let page = try store.page(PageRequest(configuration: configuration, position: .item(target.id), height: 812))
            let expected = min(max(0, target.frame.y), contentHeight - 812)
            #expect(abs(page.viewport.y - expected) <= 1e-6, "item \(target.index)")
            #expect(page.items.contains { $0.id == target.id }, "item \(target.index)")
        }

        // Older items sort after every existing one: the layout is extended, and the segments
        // before the first window that changed keep their rows.
        _ = try store.importItems(Self.importRows(300, from: 3000, year: 2010, seed: 2))
        let extended = try expectPage(store, configuration, offset: contentHeight - 400)
        #expect(extended.source == .extended)
        _ = try expectPage(store, configuration, offset: 4000)
        let after = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, first_window, window_count FROM layout_segments ORDER BY first_window")
        }
        #expect(after.count > segments.count)
        let keptRows = zip(segments, after).prefix { ($0.0[0] as Int64) == ($0.1[0] as Int64) }.count
        #expect(keptRows >= segments.count - 2, "only the last segment or two were rewritten: kept \(keptRows) of \(segments.count)")
        let stored = try #require(try store.layouts().first)
        #expect(stored.itemCount == 3300)
        let summed = try database.read { db in try Int64.fetchOne(db, sql: "SELECT sum(length(bytes)) FROM layout_segments") ?? 0 }
        #expect((60...160).contains(stored.bytes - summed), "a layout's bytes are its header and its segments")
        // At the default window height a layout stays within 24 bytes an item.
        let plain = try store.precompute(LayoutConfiguration(width: 375)).layout
        #expect(Double(plain.bytes) / Double(plain.itemCount) <= 24, "\(plain.bytes) bytes for \(plain.itemCount) items")
    }

    /// One Catalog shared by many threads: the same pages as one thread gets, configurations
    /// computed concurrently included.
    @Test(arguments: Backend.allCases)
    func manyThreadsPageOneCatalogAtOnce(_ backend: Backend) async throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(Self.importRows(2000))
        let requests = try (0..<24).map { index in
            try PageRequest(query: "width=\(360 + 10 * (index % 3))&cols=\(2 + index % 4)&offset=\(index * 700)")
        }
        let concurrent = try await withThrowingTaskGroup(of: (Int, Page).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, try catalog.page(request)) }
            }
            var pages: [Int: Page] = [:]
            for try await (index, page) in group { pages[index] = page }
            return pages
        }
        for (index, request) in requests.enumerated() {
            let serial = try catalog.page(request)
            #expect(concurrent[index]?.items == serial.items, "request \(index)")
            #expect(concurrent[index]?.contentHeight == serial.contentHeight)
        }
        #expect(try catalog.layouts().count == 12, "one stored layout per configuration")
    }

    /// A layout computed and not stored yet (what a server pages from while it stores it) gives
    /// the pages the stored layout gives, by offset, item and rectangle, sections and justified
    /// rows included; it stores nothing until asked, and pages nothing once the catalog moved on.
    @Test(arguments: Backend.allCases)
    func aComputedLayoutPagesAsTheStoredOneWill_beforeItIsStored(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(SectionPageTests.rows(1500, years: 2020...2024))
        let listed = try catalog.items(order: .date)
        let positions = ["offset=0", "offset=5000", "offset=1e7", "item=\(listed[1200].id)&anchor-y=100", "rect=40,3000,100,200"]
        func expectTheSamePages(_ query: String, items: Int, source: Page.Source) throws {
            let configuration = try PageRequest(query: query).configuration
            let layout = try #require(try catalog.computeLayout(configuration))
            #expect(layout.generation == (try catalog.generation()) && layout.itemCount == items)
            var fromComputed: [String] = []
            for position in positions {
                let page = try #require(try catalog.page(PageRequest(query: query + "&" + position), from: layout), "\(query) \(position)")
                #expect(page.source == source)
                fromComputed.append(PageText.json(page))
                // What a server keeps for pages while it stores: the same pages.
                let kept = try #require(try catalog.page(PageRequest(query: query + "&" + position), from: layout.forPages))
                #expect(PageText.json(kept) == PageText.json(page) && kept.source == source)
            }
            #expect(try catalog.layouts().allSatisfy { $0.configuration != configuration.key || $0.generation < layout.generation },
                    "paging stores nothing")
            #expect(try catalog.page(PageRequest(query: "width=999&" + positions[0]), from: layout) == nil, "another configuration")
            #expect(try catalog.storeLayout(layout))
            #expect(try catalog.computeLayout(configuration) == nil, "stored fresh: nothing to compute")
            for (position, computed) in zip(positions, fromComputed) {
                let stored = try catalog.page(PageRequest(query: query + "&" + position))
                #expect(stored.source == .stored)
                #expect(PageText.json(stored) == computed, "\(query) \(position)")
            }
        }
        for query in ["width=375", "width=600&cols=3&sections=month&sort=path&pin-headers=true", "width=800&style=justified&sections=month",
                      "width=900&style=carousel&item-height=240"] {
            try expectTheSamePages(query, items: 1500, source: .computed)
        }
        // Older items, at the end of date order: the stored layout extended, not laid out again.
        _ = try catalog.importItems(SectionPageTests.rows(30, from: 1500, years: 2019...2019, seed: 8))
        try expectTheSamePages("width=375", items: 1530, source: .extended)
        let configuration = LayoutConfiguration(width: 500)
        let layout = try #require(try catalog.computeLayout(configuration))
        _ = try catalog.importItems(SectionPageTests.rows(10, from: 1530, years: 2019...2019, seed: 9))
        #expect(try catalog.page(PageRequest(configuration: configuration, position: .offset(0), height: 812), from: layout) == nil,
                "the catalog moved on")
        #expect(try catalog.storeLayout(layout) == false, "nor is it stored")
        #expect(try catalog.layouts().allSatisfy { $0.configuration != configuration.key })
    }

    /// `rect`: the items whose frames meet a rectangle, against the reference filtered by hand,
    /// including empty, partial, horizontal-only and out-of-range rectangles.
    @Test(arguments: Backend.allCases)
    func rectanglesGiveTheItemsWhoseFramesMeetThem(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(Self.importRows(1500))
        for query in ["width=375", "width=1024&cols=5&inset=20,10,30,6&column-spacing=12", "width=600&style=grid&cols=4"] {
            let configuration = try PageRequest(query: query).configuration
            let (all, contentHeight) = Self.reference(try catalog.items(order: configuration.order), configuration)
            let rects = [Rect(x: 0, y: 0, width: configuration.width, height: 812), Rect(x: 100, y: 3000, width: 50, height: 400),
                         Rect(x: configuration.width / 2, y: contentHeight / 2, width: 1, height: 1), Rect(x: -50, y: -100, width: 60, height: 300),
                         Rect(x: 0, y: contentHeight + 10, width: 300, height: 300), Rect(x: configuration.width + 5, y: 0, width: 100, height: 5000),
                         Rect(x: 10, y: 500, width: 0, height: 100), Rect(x: 10, y: 500, width: 300, height: 0)]
            for rect in rects {
                let request = try PageRequest(query: query + "&rect=\(rect.x),\(rect.y),\(rect.width),\(rect.height)")
                let page = try catalog.page(request)
                let expected = all.filter {
                    rect.width > 0 && rect.height > 0 && $0.frame.x < rect.x + rect.width && $0.frame.x + $0.frame.width > rect.x
                        && $0.frame.y < rect.y + rect.height && $0.frame.y + $0.frame.height > rect.y
                }
                #expect(page.items.map(\.index) == expected.map(\.index), "\(query) \(rect)")
                #expect(page.viewport == rect)
                if rect.height == 0 { #expect(page.next == nil && page.previous == nil, "a client following them would never move") }
            }
        }
    }

    /// A layout stored by a newer catalog, in an archive format this build cannot read, is
    /// computed again rather than refused.
    @Test func aLayoutInANewerFormatIsComputedAgain() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(Self.importRows(300))
        let configuration = LayoutConfiguration(width: 375)
        _ = try expectPage(catalog, configuration, offset: 0)
        try DatabaseQueue(path: library.layoutFilePath).write { db in
            // The header's eighth byte is the format version: '1' for a plain layout, and this
            // build reads up to '4'.
            try db.execute(sql: "UPDATE layouts SET header = substr(header, 1, 7) || CAST('5' AS BLOB) || substr(header, 9)")
        }
        let page = try expectPage(catalog, configuration, offset: 1000)
        #expect(page.source == .computed)
        #expect(try expectPage(catalog, configuration, offset: 0).source == .stored, "the recomputed layout was stored")
    }

    @Test(arguments: Backend.allCases)
    func anEmptyCatalogGivesAnEmptyPage(_ backend: Backend) throws {
        let library = try Library(backend)
        let page = try library.catalog().page(PageRequest(configuration: LayoutConfiguration(width: 375), position: .offset(0), height: 812))
        #expect(page.items.isEmpty)
        #expect(page.itemCount == 0)
        #expect(page.contentHeight == 16)
    }
}
