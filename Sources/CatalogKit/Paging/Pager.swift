import CatalogLayout
import CatalogModel
import Foundation

/// `catalog page` and `catalog layout`: pages from stored placements and windows, computing,
/// extending and storing a layout only when the catalog changed since it was stored.
enum Pager {
    /// The page at `position` for a viewport `height` points tall; nil when the layout is not
    /// stored fresh and `computing` is false.
    static func page(store: any CatalogBackend, configuration: LayoutConfiguration, position: PagePosition, height: Double,
                     computing: Bool = true) throws -> Page? {
        let key = configuration.key
        let outcome = try store.withSnapshot { snapshot throws -> Outcome? in
            let generation = try snapshot.generation()
            let stored = try snapshot.layout(configuration: key)
            if let stored, stored.generation == generation, let header = try readableHeader(stored) {
                let offset = try offset(for: position, snapshot: snapshot, order: configuration.order, contentHeight: header.contentHeight,
                                        height: height) { index in
                    try header.items(in: -Double.infinity..<Double.infinity, windows: snapshot.windows(layoutID: stored.id, holdingIndex: index))
                        .first { $0.index == index }?.frame.y
                }
                let band = offset..<(offset + height)
                let windows = try header.windows(for: band).map { try snapshot.windows(layoutID: stored.id, range: $0) } ?? []
                let items = try header.items(in: band, windows: windows)
                let page = try makePage(items, snapshot: snapshot, header: header, generation: generation, offset: offset, height: height,
                                        itemCount: header.itemCount, source: .stored)
                return Outcome(page: page, computed: nil, touch: (stored.id, stored.lastUsedAt))
            }
            guard computing else { return nil }
            let computed = try compute(configuration, snapshot: snapshot, stored: stored, generation: generation)
            let table = computed.table
            let offset = try offset(for: position, snapshot: snapshot, order: configuration.order, contentHeight: table.contentHeight,
                                    height: height) { index in index < table.count ? table.attributes(at: index).frame.y : nil }
            let header = try LayoutArchiveHeader(bytes: computed.header)
            let page = try makePage(table.items(in: offset..<(offset + height)), snapshot: snapshot, header: header,
                                    generation: generation, offset: offset, height: height, itemCount: table.count,
                                    source: computed.source)
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
                let extended = try configuration.extend(table, with: items(added))
                return Computed(table: extended, header: extended.archiveHeader(), windows: extended.packedWindows(), generation: generation,
                                previous: (stored.id, windows),
                                seconds: Timestamps.seconds(since: start))
            }
            let table = try configuration.compute(items(try snapshot.layoutInput(order: configuration.order, offset: 0)))
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

    static func makePage(_ attributes: [LayoutAttributes], snapshot: any CatalogSnapshot, header: LayoutArchiveHeader,
                         generation: Int64, offset: Double, height: Double, itemCount: Int, source: Page.Source) throws -> Page {
        makePage(attributes, keys: try snapshot.keys(ids: attributes.map(\.id)), header: header, generation: generation, offset: offset,
                 height: height, itemCount: itemCount, source: source)
    }

    static func makePage(_ attributes: [LayoutAttributes], keys: [Int64: ItemKey], header: LayoutArchiveHeader, generation: Int64,
                         offset: Double, height: Double, itemCount: Int, source: Page.Source) -> Page {
        let contentHeight = header.contentHeight
        return Page(
            contentHeight: contentHeight, generation: generation,
            viewport: Rect(x: 0, y: offset, width: header.geometry.width, height: height),
            items: attributes.map { attribute in
                let key = keys[attribute.id]
                return Page.Item(index: attribute.index, id: attribute.id, path: key?.key ?? Data(), column: attribute.column, frame: attribute.frame,
                                 version: key?.file.map(ThumbnailKey.version(of:)), url: key?.url, title: key?.title)
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
