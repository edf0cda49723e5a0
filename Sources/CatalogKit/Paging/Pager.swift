import CatalogLayout
import CatalogModel
import Foundation

/// `catalog page` and `catalog layout`: pages from stored placements and windows, computing,
/// extending and storing a layout only when the catalog changed since it was stored.
enum Pager {
    /// The page `request` asks for; nil when the layout is not stored fresh and `computing` is
    /// false.
    static func page(store: any CatalogBackend, request: PageRequest, computing: Bool = true, storingWhileComputing: Bool = true) throws -> Page? {
        let configuration = request.configuration
        let key = configuration.key
        let length = request.bandLength
        let horizontal = configuration.isHorizontal
        let step = try store.withSnapshot { snapshot throws -> Step? in
            let generation = try snapshot.generation()
            let stored = try snapshot.layout(configuration: key)
            if let stored, let header = try freshHeader(stored, generation: generation) {
                let offset = try offset(for: request, snapshot: snapshot, scrollLength: header.contentHeight) { index in
                    try header.items(in: -Double.infinity..<Double.infinity, windows: snapshot.windows(layoutID: stored.id, holdingIndex: index))
                        .first { $0.kind == .cell && $0.index == index }.map { horizontal ? $0.frame.x : $0.frame.y }
                }
                let band = offset..<(offset + length)
                let windows = try header.windows(for: band).map { try snapshot.windows(layoutID: stored.id, range: $0) } ?? []
                let items = try header.items(in: band, windows: windows, pinningHeaders: request.pinHeaders)
                let page = try makePage(items, snapshot: snapshot, request: request, header: header, generation: generation,
                                        offset: offset, itemCount: header.itemCount, source: .stored)
                return .done(Outcome(page: page, computed: nil, touch: (stored.id, stored.lastUsedAt)))
            }
            guard computing else { return nil }
            if stored == nil, storingWhileComputing, configuration.storesWhileComputing { return .computeStoring(generation) }
            let computed = try compute(configuration, snapshot: snapshot, stored: stored, generation: generation)
            let page = try self.page(request, computed: computed, header: LayoutArchiveHeader(bytes: computed.header), snapshot: snapshot)
            return .done(Outcome(page: page, computed: computed, touch: nil))
        }
        let outcome: Outcome
        switch step {
        case nil: return nil
        case .done(let done): outcome = done
        case .computeStoring(let generation):
            // Never laid out: stored while it is computed. A catalog that moved on meanwhile
            // is paged as it is now.
            let made: (result: Page, save: Result<LayoutSave, StoreError>)?
            do {
                made = try computeStoring(configuration, store: store, generation: generation) { computed, snapshot in
                    try self.page(request, computed: computed, header: LayoutArchiveHeader(bytes: computed.header), snapshot: snapshot)
                }
            } catch StoreError.notPermitted {
                made = nil // a user that may only read: laid out, not stored
            }
            guard let made else { return try page(store: store, request: request, computing: computing, storingWhileComputing: false) }
            // Reading from a replica while the primary is away, a full disk, or a user that may
            // only read: the page is made, and a later request stores its layout (as below).
            do {
                _ = try made.save.get()
            } catch .unreachable {
            } catch .full {
            } catch .notPermitted {
            }
            return made.result
        }
        if let computed = outcome.computed {
            do {
                try save(computed, store: store, key: key, order: configuration.order)
            } catch StoreError.unreachable {
                // Reading from a replica while the primary is away: the page is made, and a
                // later request stores its layout.
            } catch StoreError.full, StoreError.notPermitted {
                // No room for it, or a user that may only read: the page is made all the same,
                // and the layout computed again next time.
            }
        }
        if let (id, lastUsed) = outcome.touch { try? store.touchLayout(id: id, lastUsedAt: lastUsed) }
        return outcome.page
    }

    /// The page of `request` from a layout just computed, its items' keys read from `snapshot`
    /// (of the layout's generation).
    static func page(_ request: PageRequest, computed: Computed, header: LayoutArchiveHeader, snapshot: any CatalogSnapshot) throws -> Page {
        let table = computed.table
        let horizontal = request.configuration.isHorizontal
        let offset = try offset(for: request, snapshot: snapshot, scrollLength: table.scrollLength) { index in
            guard index < table.count else { return nil }
            let frame = table.attributes(at: index).frame
            return horizontal ? frame.x : frame.y
        }
        return try makePage(table.items(in: offset..<(offset + request.bandLength), pinningHeaders: request.pinHeaders), snapshot: snapshot,
                            request: request, header: header, generation: computed.generation, offset: offset, itemCount: table.count,
                            source: computed.source)
    }

    /// Whether a layout of `configuration` is stored for the catalog's generation and readable.
    static func isStoredFresh(store: any CatalogBackend, configuration: LayoutConfiguration) throws -> Bool {
        try store.withSnapshot { snapshot throws -> Bool in
            try freshHeader(snapshot.layout(configuration: configuration.key), generation: snapshot.generation()) != nil
        }
    }

    /// The layout of `configuration` computed for the catalog as it is, not stored; nil when a
    /// fresh one is stored already.
    static func computeUnstored(store: any CatalogBackend, configuration: LayoutConfiguration) throws -> ComputedLayout? {
        try store.withSnapshot { snapshot throws -> ComputedLayout? in
            let generation = try snapshot.generation()
            let stored = try snapshot.layout(configuration: configuration.key)
            if try freshHeader(stored, generation: generation) != nil { return nil }
            return try ComputedLayout(compute(configuration, snapshot: snapshot, stored: stored, generation: generation), configuration: configuration)
        }
    }

    /// The page of `request` from `layout`; nil when the catalog has moved on from the layout's
    /// generation (or `request` asks for another configuration).
    static func page(store: any CatalogBackend, request: PageRequest, from layout: ComputedLayout) throws -> Page? {
        guard request.configuration.key == layout.configuration.key else { return nil }
        return try store.withSnapshot { snapshot throws -> Page? in
            guard try snapshot.generation() == layout.generation else { return nil }
            return try page(request, computed: layout.computed, header: layout.header, snapshot: snapshot)
        }
    }

    /// Makes sure a fresh layout of `configuration` is stored; reports what it took, and how
    /// long storing it took (encoding the windows, its transaction and commit; 0 when it was
    /// stored before).
    static func precompute(store: any CatalogBackend, configuration: LayoutConfiguration, storingWhileComputing: Bool = true) throws
        -> (layout: StoredLayout, source: Page.Source, storeSeconds: Double) {
        let key = configuration.key
        var computed: Computed?
        var saved: LayoutSave?
        var storeSeconds = 0.0
        let neverStored = !(storingWhileComputing && configuration.storesWhileComputing) ? nil : try store.withSnapshot { snapshot throws -> Int64? in
            try snapshot.layout(configuration: key) == nil ? snapshot.generation() : nil
        }
        // Never laid out: stored while it is computed; the store's time is what it takes past
        // the computation. A catalog that moved on meanwhile is laid out as below.
        let started = ContinuousClock.now
        if let generation = neverStored,
           let made = try computeStoring(configuration, store: store, generation: generation, { computed, _ in computed }) {
            (computed, saved) = (made.result, try made.save.get())
            storeSeconds = max(0, Timestamps.seconds(since: started) - made.result.seconds)
        } else {
            computed = try computeUnstored(store: store, configuration: configuration)?.computed
            let saving = ContinuousClock.now
            saved = try computed.map { try save($0, store: store, key: key, order: configuration.order) }
            storeSeconds = computed == nil ? 0 : Timestamps.seconds(since: saving)
        }
        let generation = try store.generation()
        guard let layout = try store.layouts().first(where: { $0.configuration == key && $0.generation == generation }) else {
            // Nothing stored at this generation: the store's file stayed busy with readers, the
            // layout was dropped while it was stored or another store of it began meanwhile (and
            // has not finished: else it is found above), or a scan or import moved the catalog on.
            if computed?.generation == generation {
                switch saved {
                case .busy: throw StoreError.layoutsBusy(path: store.location)
                case .dropped: throw StoreError.layoutDropped(path: store.location)
                case .replaced: throw StoreError.layoutStoredByAnother(path: store.location)
                case .stored, .catalogMovedOn, .abandoned, nil: break
                }
            }
            throw StoreError.busy(path: store.location)
        }
        return (layout, computed?.source ?? .stored, storeSeconds)
    }

    /// Every section of the layout of `configuration`, stored (and computed first if needed).
    static func sections(store: any CatalogBackend, configuration: LayoutConfiguration, storingWhileComputing: Bool = true) throws
        -> SectionList {
        do {
            _ = try precompute(store: store, configuration: configuration, storingWhileComputing: storingWhileComputing)
        } catch let error as StoreError where error.leavesLayoutUnstored {
            // Nothing stored: the snapshot below lays out what it holds.
        }
        let key = configuration.key
        var touch: (Int64, String)? // a stored layout read is a use, as a page's is (the budget drops the least used)
        defer { if let (id, lastUsed) = touch { try? store.touchLayout(id: id, lastUsedAt: lastUsed) } }
        return try store.withSnapshot { snapshot throws -> SectionList in
            let generation = try snapshot.generation()
            var header: LayoutArchiveHeader
            if let stored = try snapshot.layout(configuration: key), let readable = try freshHeader(stored, generation: generation) {
                header = readable
                touch = (stored.id, stored.lastUsedAt)
            } else {
                header = try LayoutArchiveHeader(bytes: compute(configuration, snapshot: snapshot, stored: nil, generation: generation).header)
            }
            let infos = header.sections?.infos(itemCount: header.itemCount) ?? []
            var titles: [Int: Data] = [:]
            if let grouping = configuration.sections.grouping {
                if grouping == .folder {
                    let keys = try snapshot.keys(atPositions: infos.map(\.firstItem), order: configuration.order)
                    for info in infos { titles[info.index] = keys[info.firstItem].map(SectionGrouping.folder(of:)) ?? Data() }
                } else {
                    for info in infos { titles[info.index] = Data(grouping.title(key: info.key).utf8) }
                }
            }
            let size = configuration.contentSize(scrollLength: header.contentHeight)
            return SectionList(
                generation: generation, contentHeight: size.height, contentWidth: size.width, itemCount: header.itemCount,
                grouping: configuration.sections.grouping?.rawValue,
                sections: infos.map { info in
                    SectionList.Section(index: info.index, title: titles[info.index] ?? Data(), firstItem: info.firstItem, itemCount: info.itemCount,
                                        headerY: info.top, headerHeight: info.headerHeight, itemBottom: info.itemBottom, end: info.end)
                })
        }
    }

    /// Where a carousel fling should stop: from the stored layout's windows around the target
    /// (those that hold items on both of its sides), not the whole row.
    static func snap(store: any CatalogBackend, configuration: LayoutConfiguration, proposed: Double, velocity: Double,
                     storingWhileComputing: Bool = true) throws -> SnapTarget? {
        do {
            _ = try precompute(store: store, configuration: configuration, storingWhileComputing: storingWhileComputing)
        } catch let error as StoreError where error.leavesLayoutUnstored {
            // Nothing stored: the snapshot below lays out what it holds.
        }
        let viewport = configuration.width
        var touch: (Int64, String)? // as for sections
        defer { if let (id, lastUsed) = touch { try? store.touchLayout(id: id, lastUsedAt: lastUsed) } }
        return try store.withSnapshot { snapshot throws -> SnapTarget? in
            let generation = try snapshot.generation()
            var table: CarouselTable
            if let stored = try snapshot.layout(configuration: configuration.key), let header = try freshHeader(stored, generation: generation),
               header.carousel != nil {
                touch = (stored.id, stored.lastUsedAt)
                guard header.itemCount > 0, header.windowCount > 0 else { return nil }
                // Windows from the target's outwards until items lie on both sides of it (or an end is reached).
                let target = proposed + viewport / 2
                // Clamped before Int(_:), which traps past Int.max (a tiny window height).
                let window = min(Double(header.windowCount - 1), (max(0, target) / header.windowHeight).rounded(.down))
                let middle = max(0, Int(window))
                var range = max(0, middle - 1)...min(header.windowCount - 1, middle + 1)
                var items: [LayoutAttributes] = []
                // Each pass widens twice as far as the one before: an item thousands of windows
                // wide (a tall carousel over small windows) costs a few passes, not thousands.
                var step = 4
                while true {
                    items = try header.items(in: -Double.infinity..<Double.infinity, windows: snapshot.windows(layoutID: stored.id, range: range))
                    let centres = items.map { $0.frame.x + $0.frame.width / 2 }
                    let before = range.lowerBound == 0 || centres.contains { $0 < target }
                    let after = range.upperBound == header.windowCount - 1 || centres.contains { $0 > target }
                    if before && after { break }
                    range = (before ? range.lowerBound : max(0, range.lowerBound - step))...(after ? range.upperBound : min(header.windowCount - 1, range.upperBound + step))
                    step *= 2
                }
                // The same rule as the table's, on these items alone (the offset clamped to the whole content).
                table = try CarouselTable(style: header.carousel!.style, windowHeight: header.windowHeight)
                table.ids = items.map(\.id)
                table.aspects = items.map { $0.frame.width / $0.frame.height }
                table.xs = items.map(\.frame.x)
                guard let (_, position) = table.snap(proposed: proposed, velocity: velocity, viewportWidth: viewport) else { return nil }
                let item = items[position]
                let offset = min(max(0, item.frame.x + item.frame.width / 2 - viewport / 2), max(0, header.contentHeight - viewport))
                return try snapTarget(item, offset: offset, snapshot: snapshot)
            }
            guard let computed = try compute(configuration, snapshot: snapshot, stored: nil, generation: generation).table as? CarouselTable else { return nil }
            table = computed
            guard let (offset, index) = table.snap(proposed: proposed, velocity: velocity, viewportWidth: viewport) else { return nil }
            return try snapTarget(table.attributes(at: index), offset: offset, snapshot: snapshot)
        }
    }

    static func snapTarget(_ item: LayoutAttributes, offset: Double, snapshot: any CatalogSnapshot) throws -> SnapTarget {
        let key = try snapshot.keys(ids: [item.id])[item.id]
        return SnapTarget(offset: offset, item: Page.Item(index: item.index, id: item.id, path: key?.key ?? Data(), column: 0, frame: item.frame,
                                                          version: key?.file.map(ThumbnailKey.version(of:)), url: key?.url, title: key?.title))
    }

    struct Outcome: Sendable {
        var page: Page
        var computed: Computed?
        var touch: (Int64, String)?
    }

    /// What a snapshot found to do: the page, or a layout to compute and store at once.
    enum Step: Sendable {
        case done(Outcome)
        case computeStoring(Int64)
    }

    struct Computed: Sendable {
        var table: any LayoutTable
        var header: [UInt8]
        var generation: Int64
        /// The stored layout this one extends, and its windows as stored.
        var previous: (id: Int64, generation: Int64, windows: [[UInt8]])?
        var seconds: Double

        var source: Page.Source { previous == nil ? .computed : .extended }

        /// What the layout's row records besides its windows.
        var summary: LayoutWindows.Summary {
            LayoutWindows.Summary(itemCount: table.count, contentHeight: table.scrollLength, header: header, computeSeconds: seconds)
        }
    }

    /// The viewport's start along the scroll axis: the offset as given, or the item's start
    /// less the anchor, clamped to the content.
    static func offset(for request: PageRequest, snapshot: any CatalogSnapshot, scrollLength: Double,
                       start: (Int) throws -> Double?) throws -> Double {
        switch request.position {
        case .offset(let offset):
            return offset
        case .item(let id):
            guard let index = try snapshot.index(ofItem: id, order: request.configuration.order), let top = try start(index) else {
                throw PageError.noSuchItem(id)
            }
            return min(max(0, top - request.anchorY), max(0, scrollLength - request.bandLength))
        }
    }

    /// Where the sections of `count` items from position `first` of the order begin, as
    /// offsets into those items: nil for a layout without sections (or with spans alone).
    static func sectionStarts(_ configuration: LayoutConfiguration, snapshot: any CatalogSnapshot, from first: Int,
                              count: Int) throws -> [SectionStart]? {
        guard let grouping = configuration.sections.grouping, count > 0 else { return count > 0 ? nil : [] }
        var run = 0
        return LayoutConfiguration.sectionStarts(try snapshot.sectionRuns(order: configuration.order, grouping: grouping), from: first, count: count,
                                                 run: &run)
    }

    static func makePage(_ attributes: [LayoutAttributes], snapshot: any CatalogSnapshot, request: PageRequest,
                         header: LayoutArchiveHeader, generation: Int64, offset: Double, itemCount: Int,
                         source: Page.Source) throws -> Page {
        let attributes = request.clipped(attributes)
        try PageError.check(attributes) // before the keys are read
        let cellIDs = attributes.compactMap { $0.kind == .cell ? $0.id : nil }
        let keys = try snapshot.keys(ids: cellIDs)
        return try makePage(attributes, keys: keys, request: request, header: header, generation: generation, offset: offset,
                            itemCount: itemCount, source: source) { positions in
            try snapshot.keys(atPositions: positions, order: request.configuration.order)
        }!
    }

    /// A page from placements and their items' keys. A folder section's title comes from an
    /// item of the section on the page, else from `keysAt` (the keys at positions of the
    /// order); nil when a title is needed and `keysAt` cannot give it.
    static func makePage(_ attributes: [LayoutAttributes], keys: [Int64: ItemKey], request: PageRequest,
                         header: LayoutArchiveHeader, generation: Int64, offset: Double, itemCount: Int,
                         source: Page.Source, keysAt: ([Int]) throws -> [Int: Data]?) rethrows -> Page? {
        let configuration = request.configuration
        let length = request.bandLength
        let scrollLength = header.contentHeight // along the scroll axis: a carousel's width
        let sections = header.sections
        var titles: [Int: Data] = [:]
        if let grouping = configuration.sections.grouping, let sections {
            let wanted = Set(attributes.compactMap { $0.kind == .cell ? nil : $0.section })
            for section in wanted {
                switch grouping {
                case .year, .month:
                    titles[section] = Data(grouping.title(key: sections.keys[section]).utf8)
                case .folder:
                    if let cell = attributes.first(where: { $0.kind == .cell && $0.section == section }), let key = keys[cell.id] {
                        titles[section] = SectionGrouping.folder(of: key.key)
                    }
                }
            }
            let missing = wanted.filter { titles[$0] == nil }.sorted()
            if !missing.isEmpty {
                guard let found = try keysAt(missing.map { sections.starts[$0] }) else { return nil }
                for section in missing { titles[section] = found[sections.starts[section]].map(SectionGrouping.folder(of:)) ?? Data() }
            }
        }
        func count(_ section: Int) -> Int? {
            guard let sections, section < sections.starts.count else { return nil }
            return (section + 1 < sections.starts.count ? sections.starts[section + 1] : header.itemCount) - sections.starts[section]
        }
        // A carousel's items are scaled and faded by their distance to the viewport's centre.
        var effects: [Int: CarouselEffect] = [:]
        if header.carousel != nil {
            let width = length // the viewport's: --width, or the rectangle's (its effects were --width's)
            let computed = CarouselTable.effects(of: attributes, viewportX: offset, viewportWidth: width, falloff: request.falloff ?? width / 2,
                                                 minimumScale: request.minimumScale, minimumAlpha: request.minimumAlpha)
            for (attribute, effect) in zip(attributes, computed) { effects[attribute.index] = effect }
        }
        let horizontal = header.carousel != nil
        let contentHeight = header.carousel.map { $0.insets.top + $0.style.itemHeight + $0.insets.bottom } ?? scrollLength
        return Page(
            contentHeight: contentHeight, contentWidth: horizontal ? scrollLength : header.geometry.width, generation: generation,
            viewport: horizontal ? Rect(x: offset, y: 0, width: length, height: request.height)
                : Rect(x: 0, y: offset, width: header.geometry.width, height: length),
            items: attributes.map { attribute in
                guard attribute.kind == .cell else {
                    return Page.Item(index: attribute.index, id: Page.Item.sectionID(attribute.id), path: Data(), column: attribute.column, frame: attribute.frame,
                                     kind: attribute.kind, section: attribute.section, sectionTitle: titles[attribute.section] ?? Data(),
                                     sectionCount: count(attribute.section))
                }
                let key = keys[attribute.id]
                return Page.Item(index: attribute.index, id: attribute.id, path: key?.key ?? Data(), column: attribute.column, frame: attribute.frame,
                                 version: key?.file.map(ThumbnailKey.version(of:)), url: key?.url, title: key?.title,
                                 section: attribute.section, effect: effects[attribute.index])
            },
            // A page of no height goes nowhere: its next and previous would be its own offset.
            next: length > 0 && offset + length < scrollLength ? offset + length : nil,
            previous: length > 0 && offset > 0 ? max(0, min(offset - length, scrollLength - length)) : nil,
            itemCount: itemCount, source: source)
    }
}

extension Pager {
    /// The header of `stored` when it lays out the catalog's `generation` in a format this build
    /// reads; nil when there is none, it is stale, or it is newer (then computed again).
    static func freshHeader(_ stored: StoredLayout?, generation: Int64) throws -> LayoutArchiveHeader? {
        guard let stored, stored.generation == generation else { return nil }
        return try readableHeader(stored)
    }

    /// The stored layout's header, or nil when it was written in a newer archive format than
    /// this build reads: such a layout is treated as stale and computed again.
    static func readableHeader(_ stored: StoredLayout) throws -> LayoutArchiveHeader? {
        do {
            return try LayoutArchiveHeader(bytes: stored.header)
        } catch .unsupportedArchiveVersion {
            return nil
        }
    }
}

extension LayoutWindows.Packed {
    /// Windows `range` of `table`, packed for a store.
    init(_ table: some LayoutTable, _ range: Range<Int>) {
        let packed = table.packedWindows(range)
        self.init(bytes: packed.bytes, ends: packed.ends, minIndices: packed.minIndices, maxIndices: packed.maxIndices)
    }
}

extension LayoutItem {
    /// The widest or tallest an item is laid out: 1,000 times as wide as tall, or as tall as wide.
    static let maximumAspect = 1_000.0

    /// The engine's item for a row of the layout's input, its aspect kept within
    /// ``maximumAspect``: a strip of 1 by 10,000,000 pixels (a header may declare one) is laid
    /// out as 1 by 1,000, so that one such file neither makes every layout of the catalog miles
    /// long nor has them refused (``LayoutError/tooManyWindows(limit:windowHeight:)``).
    init(_ row: LayoutInputRow) {
        let width = Double(row.width), height = Double(row.height)
        self.init(id: row.id, width: min(width, height * Self.maximumAspect), height: min(height, width * Self.maximumAspect))
    }
}
