import CatalogKit
import Foundation
import Testing

/// Justified rows and the carousel through the catalog: pages computed, stored and extended
/// equal the engine on `catalog list`'s order; anchors; snapping from stored windows.
@Suite struct RowAndCarouselPageTests {
    static func items(_ listed: [ItemRow]) -> [LayoutItem] {
        listed.map { LayoutItem(id: $0.id, width: Double($0.width), height: Double($0.height)) }
    }

    @Test(arguments: Backend.allCases, ["width=1024&style=justified", "width=600&style=justified&row-height=120&spacing=4&sort=path",
                      "width=800&style=justified&sections=month&footer-height=10"])
    func justifiedPagesEqualTheEngine_computedStoredAndExtended(_ backend: Backend, _ query: String) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(SectionPageTests.rows(1500, years: 2020...2024))
        let first = try catalog.page(PageRequest(query: query))
        #expect(first.source == .computed)
        try expectRows(catalog, query)
        // Older items: the end of date order. The last row (and section) is flowed again.
        _ = try catalog.importItems(SectionPageTests.rows(40, from: 1500, years: 2019...2019, seed: 8))
        let extended = try catalog.page(PageRequest(query: query + "&offset=500"))
        #expect(extended.source == (query.contains("sort=path") ? .computed : .extended))
        try expectRows(catalog, query)
    }

    func expectRows(_ catalog: Catalog, _ query: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let configuration = try PageRequest(query: query).configuration
        let listed = try catalog.items(order: configuration.order)
        let style = JustifiedLayout(width: configuration.width, rowHeight: configuration.rowHeight, spacing: configuration.columnSpacing,
                                    rowSpacing: configuration.rowSpacing, insets: configuration.insets)
        let sectioned = configuration.sections != .none
        let table = try RowTable(items: Self.items(listed), style: style,
                                 sections: sectioned ? SectionStart.runs(of: listed.map { SectionPageTests.key($0, configuration.sections) }) : nil,
                                 sectioning: sectioned ? Sectioning(headerHeight: configuration.headerHeight, footerHeight: configuration.footerHeight,
                                                                    sectionSpacing: configuration.sectionSpacing) : nil)
        #expect(try catalog.page(PageRequest(query: query)).contentHeight == table.contentHeight, sourceLocation: sourceLocation)
        for fraction in [0.0, 0.31, 0.8, 0.999] {
            let offset = (fraction * table.contentHeight).rounded(.down)
            let page = try catalog.page(PageRequest(query: query + "&offset=\(offset)&height=700&pin-headers=true"))
            let want = table.items(in: offset..<(offset + 700), pinningHeaders: true)
            #expect(page.items.map(\.frame) == want.map(\.frame) && page.items.map(\.index) == want.map(\.index)
                    && page.items.map(\.kind) == want.map(\.kind), "\(query) at \(offset)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Backend.allCases)
    func carouselPagesRunAlongX_withEffects_andExtend(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(800))
        let query = "width=900&style=carousel&item-height=240&height=300"
        let listed = try catalog.items(order: .date)
        var table = try CarouselTable(items: Self.items(listed), style: CarouselLayout(itemHeight: 240))
        for (offset, first) in [(0.0, true), (12_345.0, false), (table.contentWidth - 900, false)] {
            let page = try catalog.page(PageRequest(query: query + "&offset=\(offset)"))
            #expect(page.source == (first ? .computed : .stored))
            #expect(page.contentWidth == table.contentWidth && page.contentHeight == 8 + 240 + 8)
            #expect(page.viewport == Rect(x: offset, y: 0, width: 900, height: 300))
            let want = table.items(in: offset..<(offset + 900))
            #expect(page.items.map(\.frame) == want.map(\.frame))
            let effects = CarouselTable.effects(of: want, viewportX: offset, viewportWidth: 900, falloff: 450, minimumScale: 0.8, minimumAlpha: 0.5)
            #expect(page.items.map(\.effect) == effects)
        }
        // Its sections give its size as a page does: the width is its length (they gave that as
        // `contentHeight`).
        let sections = try catalog.sections(PageRequest(query: query).configuration)
        #expect(sections.contentWidth == table.contentWidth && sections.contentHeight == 8 + 240 + 8, "\(sections)")
        #expect(SectionText.json(sections).contains(#""contentHeight":256,"contentWidth":"#))
        let tuned = try catalog.page(PageRequest(query: query + "&offset=3000&falloff=100&min-scale=0.5&min-alpha=0"))
        #expect(tuned.items.allSatisfy { ($0.effect?.scale ?? 0) >= 0.5 && ($0.effect?.alpha ?? 0) >= 0 } && tuned.items.contains { $0.effect?.alpha == 0 })
        // A rectangle queries the row by x, and the items' y.
        let rect = try catalog.page(PageRequest(query: "width=900&style=carousel&item-height=240&rect=5000,0,700,100"))
        #expect(rect.items.map(\.index) == table.items(in: 5000..<5700).map(\.index) && !rect.items.isEmpty)
        #expect(try catalog.page(PageRequest(query: "width=900&style=carousel&item-height=240&rect=5000,300,700,100")).items.isEmpty,
                "below the row")
        // Items at the end of the order: the stored carousel is extended.
        let more = PagerTests.importRows(30, from: 800, year: 2001, seed: 4)
        _ = try catalog.importItems(more)
        let extended = try catalog.page(PageRequest(query: query + "&offset=0"))
        #expect(extended.source == .extended)
        try table.append(Self.items(Array(try catalog.items(order: .date)[800...])))
        #expect(extended.contentWidth == table.contentWidth)
    }

    /// `item` with `anchor-y`: the item's top that far into the viewport, in every style,
    /// clamped to the content at its ends.
    @Test(arguments: Backend.allCases)
    func anAnchorPutsTheItemWhereTheFingerWas_inEveryStyle(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(2000))
        let listed = try catalog.items(order: .date)
        let middle = listed[1000].id
        for (style, horizontal) in [("width=375", false), ("width=414&cols=3&style=grid", false), ("width=1024&style=justified", false),
                                    ("width=375&style=mixed", false), ("width=900&style=carousel", true)] {
            for anchor in [0.0, 250.0, -40.0] {
                let page = try catalog.page(PageRequest(query: "\(style)&item=\(middle)&anchor-y=\(anchor)&height=812"))
                let frame = try #require(page.items.first { $0.id == middle && $0.kind == .cell }?.frame)
                let start = horizontal ? page.viewport.x : page.viewport.y
                #expect(abs((horizontal ? frame.x : frame.y) - start - anchor) < 1e-6, "\(style) anchor \(anchor)")
            }
            // At the ends the viewport stays within the content.
            let first = try catalog.page(PageRequest(query: "\(style)&item=\(listed[0].id)&anchor-y=300"))
            #expect((horizontal ? first.viewport.x : first.viewport.y) == 0)
            let last = try catalog.page(PageRequest(query: "\(style)&item=\(listed.last!.id)&anchor-y=0&height=812"))
            let end = horizontal ? last.contentWidth - last.viewport.width : last.contentHeight - 812
            #expect((horizontal ? last.viewport.x : last.viewport.y) <= max(0, end) + 1e-6)
        }
        #expect(throws: LayoutParameterError.self) { try PageRequest(query: "width=375&anchor-y=10") }
        // The camel-case spelling names the same parameter; both at once are a repetition.
        let camel = try catalog.page(PageRequest(query: "width=375&item=\(middle)&anchorY=120"))
        let kebab = try catalog.page(PageRequest(query: "width=375&item=\(middle)&anchor-y=120"))
        #expect(camel.viewport == kebab.viewport && camel.items.map(\.id) == kebab.items.map(\.id))
        #expect(throws: LayoutParameterError.self) { try PageRequest(query: "width=375&item=\(middle)&anchor-y=1&anchorY=2") }
        #expect(throws: LayoutParameterError.self) { try PageRequest(query: "width=375&anchory=2") }
        let carousel = try PageRequest(query: "style=carousel&width=900&itemHeight=200&minScale=0.5")
        #expect(carousel.configuration == (try PageRequest(query: "style=carousel&width=900&item-height=200&min-scale=0.5")).configuration)
    }

    @Test(arguments: Backend.allCases)
    func snappingFromStoredWindowsEqualsTheTable(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3000))
        let configuration = try LayoutConfiguration(parameters: PageRequest.parameters(query: "width=700&style=carousel&item-height=180"))
        let table = try CarouselTable(items: Self.items(try catalog.items(order: .date)), style: CarouselLayout(itemHeight: 180))
        for step in 0..<60 {
            // Spread over the whole row and a little past both ends.
            let proposed = Double((step * 7_919) % 60) / 60 * (table.contentWidth + 2000) - 1000
            for velocity in [0.0, 1.5, -0.7] {
                let got = try #require(try catalog.snap(configuration, proposed: proposed, velocity: velocity))
                let want = try #require(table.snap(proposed: proposed, velocity: velocity, viewportWidth: 700))
                #expect(got.item.index == want.index && abs(got.offset - want.offset) < 1e-9, "proposed \(proposed) velocity \(velocity)")
                #expect(got.item.frame == table.attributes(at: want.index).frame)
            }
        }
        // The layout is stored by the first call; the answers above came from its windows.
        #expect(try catalog.layouts().contains { $0.configuration.hasPrefix("carousel") })
        // Without a style, the style is missing (it said "got waterfall", which no one sent); with another, that one is named.
        #expect { try SnapRequest(parameters: PageRequest.parameters(query: "width=375&proposed=5")) } throws: { error in
            (error as? LayoutParameterError).map { $0.parameter == "style" && $0.problem == .missing && !"\($0)".contains("waterfall") } ?? false
        }
        #expect { try SnapRequest(parameters: PageRequest.parameters(query: "width=375&style=grid&proposed=5")) } throws: { error in
            (error as? LayoutParameterError).map { $0.parameter == "style" && $0.problem == .invalid && "\($0)".contains("\"grid\"") } ?? false
        }
        #expect(throws: LayoutParameterError.self) { try SnapRequest(parameters: PageRequest.parameters(query: "width=375&style=carousel")) }
        // A mistyped name is told the snap's own parameters too.
        do {
            _ = try SnapRequest(parameters: PageRequest.parameters(query: "width=375&style=carousel&propsed=10"))
            Issue.record("propsed was taken")
        } catch {
            #expect(error.parameter == "propsed" && error.problem == .unknown && error.description.hasSuffix(", and proposed, velocity"), "\(error)")
        }
    }

    /// Items each thousands of windows wide (a tall carousel over 64-point windows): the
    /// windows around the target widen twice as far at each pass, and the answer is the table's.
    @Test func snappingOverItemsThousandsOfWindowsWideEqualsTheTable() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(30))
        let configuration = try LayoutConfiguration(parameters: PageRequest.parameters(query: "width=700&style=carousel&item-height=50000&window=64"))
        let table = try CarouselTable(items: Self.items(try catalog.items(order: .date)), style: CarouselLayout(itemHeight: 50_000))
        for step in 0..<12 {
            let proposed = Double(step) / 12 * table.contentWidth
            let got = try #require(try catalog.snap(configuration, proposed: proposed, velocity: 0.4))
            let want = try #require(table.snap(proposed: proposed, velocity: 0.4, viewportWidth: 700))
            #expect(got.item.index == want.index && abs(got.offset - want.offset) < 1e-6, "proposed \(proposed)")
        }
    }

    @Test(arguments: Backend.allCases)
    func theCommandLineSnapsAndPagesACarousel(_ backend: Backend) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library(backend)
        _ = try library.catalog().importItems(PagerTests.importRows(50))
        let db = ["--db", library.catalogPath]
        let snap = try BuiltTool.run(["snap"] + db + ["--width", "600", "--style", "carousel", "--proposed", "900", "--velocity", "1", "--json"])
        #expect(snap.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: snap.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["offset", "item"] && Set((object["item"] as? [String: Any])?.keys ?? [:].keys) == ["index", "id", "path", "frame"])
        // A carousel without --style (the one style that snaps); another style is refused.
        let implied = try BuiltTool.run(["snap"] + db + ["--width", "600", "--proposed", "900", "--velocity", "1", "--json"])
        #expect(implied.status == 0 && implied.stdout == snap.stdout, "\(implied.stderr)")
        let wrong = try BuiltTool.run(["snap"] + db + ["--width", "600", "--style", "grid", "--proposed", "9"])
        #expect(wrong.status == 2 && wrong.stderr.contains("--style must be carousel"))
        // Negative numbers are values, not options: a fling to the left, a rectangle left of the origin.
        let left = try BuiltTool.run(["snap"] + db + ["--width", "600", "--style", "carousel", "--proposed", "900", "--velocity", "-1", "--json"])
        #expect(left.status == 0, "\(left.stderr)")
        let leftObject = try #require(try JSONSerialization.jsonObject(with: left.stdout) as? [String: Any])
        #expect(try #require(leftObject["offset"] as? Double) < (try #require(object["offset"] as? Double)))
        // As text: the first item cannot be centred (the offset stops at 0), and says so.
        let first = String(decoding: try BuiltTool.run(["snap"] + db + ["--width", "600", "--proposed", "0", "--velocity", "-1"]).stdout, as: UTF8.self)
        #expect(first.hasPrefix("offset 0: item 0 ") && first.contains(" as near the centre as the row's end lets it, "), "\(first)")
        let middle = String(decoding: try BuiltTool.run(["snap"] + db + ["--width", "600", "--proposed", "900"]).stdout, as: UTF8.self)
        #expect(middle.contains(") centred, "), "\(middle)")
        let negative = try BuiltTool.run(["page"] + db + ["--width", "600", "--offset", "-5"])
        #expect(negative.status == 2 && negative.stderr.contains("--offset") && !negative.stderr.contains("Missing value"), "\(negative.stderr)")
        // A rectangle is the viewport: the items are scaled and faded by their distance to its centre, within half its width.
        let rect = try BuiltTool.run(["page"] + db + ["--width", "600", "--style", "carousel", "--rect", "0,0,400,100", "--json"])
        let rectPage = try #require(try JSONSerialization.jsonObject(with: rect.stdout) as? [String: Any])
        let rectItems = try #require(rectPage["items"] as? [[String: Any]])
        #expect(!rectItems.isEmpty)
        for item in rectItems {
            let frame = try #require(item["frame"] as? [String: Double])
            let t = min(1, abs(frame["x"]! + frame["width"]! / 2 - 200) / 200)
            #expect(abs((item["scale"] as? Double ?? -1) - (1 - 0.2 * t)) < 1e-9, "\(item)")
        }
        let page = try BuiltTool.run(["page"] + db + ["--width", "600", "--style", "carousel", "--offset", "100"])
        let lines = String(decoding: page.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines[0].hasPrefix("content width ") && lines[1].hasSuffix("\tscale\talpha\tz"))
    }
}
