import CatalogLayout
import CatalogModel
import Foundation

/// `catalog page` and `catalog layout`: pages from stored placements and windows, computing,
/// extending and storing a layout only when the catalog changed since it was stored.
enum Pager {
    /// The page at `position` for a viewport `height` points tall; nil when the layout is not
    /// stored fresh and `computing` is false.
    static func page(store: any CatalogBackend, configuration: LayoutConfiguration, position: PagePosition, height: Double,
                     pinHeaders: Bool = false, computing: Bool = true) throws -> Page? {
        let key = configuration.key
        let outcome = try store.withSnapshot { snapshot throws -> Outcome? in
            let generation = try snapshot.generation()
            let stored = try snapshot.layout(configuration: key)
            if let stored, stored.generation == generation, let header = try readableHeader(stored) {
                let offset = try offset(for: position, snapshot: snapshot, order: configuration.order, contentHeight: header.contentHeight,
                                        height: height) { index in
                    try header.items(in: -Double.infinity..<Double.infinity, windows: snapshot.windows(layoutID: stored.id, holdingIndex: index))
                        .first { $0.kind == .cell && $0.index == index }?.frame.y
                }
                let band = offset..<(offset + height)
                let windows = try header.windows(for: band).map { try snapshot.windows(layoutID: stored.id, range: $0) } ?? []
                let items = try header.items(in: band, windows: windows, pinningHeaders: pinHeaders)
                let page = try makePage(items, snapshot: snapshot, configuration: configuration, header: header, generation: generation,
                                        offset: offset, height: height, itemCount: header.itemCount, source: .stored)
                return Outcome(page: page, computed: nil, touch: (stored.id, stored.lastUsedAt))
            }
            guard computing else { return nil }
            let computed = try compute(configuration, snapshot: snapshot, stored: stored, generation: generation)
            let table = computed.table
            let offset = try offset(for: position, snapshot: snapshot, order: configuration.order, contentHeight: table.contentHeight,
                                    height: height) { index in index < table.count ? table.attributes(at: index).frame.y : nil }
            let header = try LayoutArchiveHeader(bytes: computed.header)
            let page = try makePage(table.items(in: offset..<(offset + height), pinningHeaders: pinHeaders), snapshot: snapshot,
                                    configuration: configuration, header: header, generation: generation, offset: offset, height: height,
                                    itemCount: table.count, source: computed.source)
            return Outcome(page: page, computed: computed, touch: nil)
        }
        guard let outcome else { return nil }
        if let computed = outcome.computed { try save(computed, store: store, key: key, order: configuration.order) }
        if let (id, lastUsed) = outcome.touch { try? store.touchLayout(id: id, lastUsedAt: lastUsed) }
        return outcome.page
    }

    /// Makes sure a fresh layout of `configuration` is stored; reports what it took, and how
    /// long storing it took (its transaction, commit and checkpoint; 0 when it was stored before).
    static func precompute(store: any CatalogBackend, configuration: LayoutConfiguration) throws
        -> (layout: StoredLayout, source: Page.Source, storeSeconds: Double) {
        let key = configuration.key
        let computed = try store.withSnapshot { snapshot throws -> Computed? in
            let generation = try snapshot.generation()
            let stored = try snapshot.layout(configuration: key)
            if let stored, stored.generation == generation, try readableHeader(stored) != nil { return nil }
            return try compute(configuration, snapshot: snapshot, stored: stored, generation: generation)
        }
        let saving = ContinuousClock.now
        if let computed { try save(computed, store: store, key: key, order: configuration.order) }
        let storeSeconds = computed == nil ? 0 : Timestamps.seconds(since: saving)
        let generation = try store.generation()
        guard let layout = try store.layouts().first(where: { $0.configuration == key && $0.generation == generation }) else {
            throw StoreError.busy(path: store.location) // the catalog changed while computing: a scan is writing
        }
        return (layout, computed?.source ?? .stored, storeSeconds)
    }

    /// Every section of the layout of `configuration`, stored (and computed first if needed).
    static func sections(store: any CatalogBackend, configuration: LayoutConfiguration) throws -> SectionList {
        do {
            _ = try precompute(store: store, configuration: configuration)
        } catch StoreError.busy {
            // A scan moved the catalog on meanwhile: the snapshot below lays out what it holds.
        }
        let key = configuration.key
        return try store.withSnapshot { snapshot throws -> SectionList in
            let generation = try snapshot.generation()
            var header: LayoutArchiveHeader
            if let stored = try snapshot.layout(configuration: key), stored.generation == generation, let readable = try readableHeader(stored) {
                header = readable
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
            return SectionList(
                generation: generation, contentHeight: header.contentHeight, itemCount: header.itemCount,
                grouping: configuration.sections.grouping?.rawValue,
                sections: infos.map { info in
                    SectionList.Section(index: info.index, title: titles[info.index] ?? Data(), firstItem: info.firstItem, itemCount: info.itemCount,
                                        headerY: info.top, headerHeight: info.headerHeight, itemBottom: info.itemBottom, end: info.end)
                })
        }
    }

    struct Outcome: Sendable {
        var page: Page
        var computed: Computed?
        var touch: (Int64, String)?
    }

    struct Computed: Sendable {
        var table: PlacementTable
        var header: [UInt8]
        var windows: PackedWindows
        var generation: Int64
        /// The stored layout this one extends, and its windows as stored.
        var previous: (id: Int64, windows: [[UInt8]])?
        var seconds: Double

        var source: Page.Source { previous == nil ? .computed : .extended }
    }

    /// Extends the stored layout in place when items were only appended at the end of the
    /// order; otherwise lays everything out again.
    static func compute(_ configuration: LayoutConfiguration, snapshot: any CatalogSnapshot, stored: StoredLayout?,
                        generation: Int64) throws -> Computed {
        let start = ContinuousClock.now
        func items(_ rows: [LayoutInputRow]) -> [LayoutItem] {
            rows.map { LayoutItem(id: $0.id, width: Double($0.width), height: Double($0.height)) }
        }
        do {
            if let stored, try readableHeader(stored) != nil,
               try snapshot.onlyAppended(since: stored.generation, count: stored.itemCount, order: configuration.order) {
                let windows = try snapshot.allWindows(layoutID: stored.id)
                let table = try PlacementTable(archive: LayoutArchive(header: stored.header, windows: windows))
                let added = try snapshot.layoutInput(order: configuration.order, offset: stored.itemCount)
                let starts = try sectionStarts(configuration, snapshot: snapshot, from: stored.itemCount, count: added.count)
                let extended = try configuration.extend(table, with: items(added), sections: starts)
                return Computed(table: extended, header: extended.archiveHeader(), windows: extended.packedWindows(), generation: generation,
                                previous: (stored.id, windows),
                                seconds: Timestamps.seconds(since: start))
            }
            let input = try snapshot.layoutInput(order: configuration.order, offset: 0)
            let table = try configuration.compute(items(input), sections: try sectionStarts(configuration, snapshot: snapshot, from: 0,
                                                                                              count: input.count))
            return Computed(table: table, header: table.archiveHeader(), windows: table.packedWindows(), generation: generation, previous: nil,
                            seconds: Timestamps.seconds(since: start))
        } catch let error as LayoutError {
            throw PageError.layout(error)
        }
    }

    /// Stores a computed layout: for an extension, only from the first window that changed on.
    static func save(_ computed: Computed, store: any CatalogBackend, key: String, order: ItemOrder) throws {
        let packed = computed.windows
        var keeping = 0
        if let previous = computed.previous?.windows {
            while keeping < min(previous.count, packed.count), packed.window(keeping).elementsEqual(previous[keeping]) { keeping += 1 }
        }
        let windows = LayoutWindows(bytes: packed.bytes, ends: packed.ends, minIndices: packed.minIndices, maxIndices: packed.maxIndices)
        try store.saveLayout(configuration: key, order: order, generation: computed.generation, itemCount: computed.table.count,
                             contentHeight: computed.table.contentHeight, header: computed.header, windows: windows,
                             replacing: computed.previous?.id, keeping: keeping, computeSeconds: computed.seconds)
    }

    /// The viewport's top: the offset as given, or the item's top clamped to the content.
    static func offset(for position: PagePosition, snapshot: any CatalogSnapshot, order: ItemOrder, contentHeight: Double,
                       height: Double, y: (Int) throws -> Double?) throws -> Double {
        switch position {
        case .offset(let offset):
            return offset
        case .item(let id):
            guard let index = try snapshot.index(ofItem: id, order: order), let top = try y(index) else { throw PageError.noSuchItem(id) }
            return min(max(0, top), max(0, contentHeight - height))
        }
    }

    /// Where the sections of `count` items from position `first` of the order begin, as
    /// offsets into those items: nil for a layout without sections (or with spans alone).
    static func sectionStarts(_ configuration: LayoutConfiguration, snapshot: any CatalogSnapshot, from first: Int,
                              count: Int) throws -> [SectionStart]? {
        guard let grouping = configuration.sections.grouping, count > 0 else { return count > 0 ? nil : [] }
        let runs = try snapshot.sectionRuns(order: configuration.order, grouping: grouping)
        // The run holding `first` continues into these items; later runs start inside them.
        var starts: [SectionStart] = []
        for run in runs where run.position < first + count {
            let offset = max(0, run.position - first)
            if offset == 0, !starts.isEmpty { starts[0].key = run.key } else { starts.append(SectionStart(offset: offset, key: run.key)) }
        }
        return starts
    }

    static func makePage(_ attributes: [LayoutAttributes], snapshot: any CatalogSnapshot, configuration: LayoutConfiguration,
                         header: LayoutArchiveHeader, generation: Int64, offset: Double, height: Double, itemCount: Int,
                         source: Page.Source) throws -> Page {
        let cellIDs = attributes.compactMap { $0.kind == .cell ? $0.id : nil }
        let keys = try snapshot.keys(ids: cellIDs)
        return try makePage(attributes, keys: keys, configuration: configuration, header: header, generation: generation, offset: offset,
                            height: height, itemCount: itemCount, source: source) { positions in
            try snapshot.keys(atPositions: positions, order: configuration.order)
        }!
    }

    /// A page from placements and their items' keys. A folder section's title comes from an
    /// item of the section on the page, else from `keysAt` (the keys at positions of the
    /// order); nil when a title is needed and `keysAt` cannot give it.
    static func makePage(_ attributes: [LayoutAttributes], keys: [Int64: ItemKey], configuration: LayoutConfiguration,
                         header: LayoutArchiveHeader, generation: Int64, offset: Double, height: Double, itemCount: Int,
                         source: Page.Source, keysAt: ([Int]) throws -> [Int: Data]?) rethrows -> Page? {
        let contentHeight = header.contentHeight
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
        return Page(
            contentHeight: contentHeight, generation: generation,
            viewport: Rect(x: 0, y: offset, width: header.geometry.width, height: height),
            items: attributes.map { attribute in
                guard attribute.kind == .cell else {
                    return Page.Item(index: attribute.index, id: attribute.id, path: Data(), column: attribute.column, frame: attribute.frame,
                                     kind: attribute.kind, section: attribute.section, sectionTitle: titles[attribute.section] ?? Data(),
                                     sectionCount: count(attribute.section))
                }
                let key = keys[attribute.id]
                return Page.Item(index: attribute.index, id: attribute.id, path: key?.key ?? Data(), column: attribute.column, frame: attribute.frame,
                                 version: key?.file.map(ThumbnailKey.version(of:)), url: key?.url, title: key?.title,
                                 section: attribute.section)
            },
            next: offset + height < contentHeight ? offset + height : nil,
            previous: offset > 0 ? max(0, min(offset - height, contentHeight - height)) : nil,
            itemCount: itemCount, source: source)
    }
}

extension Pager {
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
