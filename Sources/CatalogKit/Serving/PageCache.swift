import CatalogLayout
import CatalogModel
import Foundation
import Synchronization

/// Pages of stored layouts served from memory: the windows a page needs and their items' paths
/// are read once per catalog generation and kept; the generation is revalidated per request by
/// the store's change stamp (two `stat` calls for SQLite), and re-read only when it changed.
/// A page is made from one generation's windows only, so it never mixes two.
///
/// What is not served from memory (a layout not stored fresh, a page by item) returns nil:
/// the caller pages through `Catalog.page`.
public final class PageCache: Sendable {
    private let catalog: Catalog
    private let state = Mutex(State())
    /// Windows kept per layout; past it, the layout's windows but those of the band asked for
    /// are dropped and read again as asked.
    let windowsPerLayout: Int
    /// Layouts kept before the least recently used is dropped.
    static let layouts = 16

    struct State {
        var stamp: [Int64]?
        /// When the generation was last read (nanoseconds since 1970).
        var readAt: Int64 = 0
        var generation: Int64 = -1
        var entries: [String: Entry] = [:]
        var clock = 0
    }

    struct Entry {
        var generation: Int64
        var header: LayoutArchiveHeader
        /// The stored layout the windows come from.
        var layoutID: Int64
        var windows: [Int: Window] = [:]
        var lastUse = 0
    }

    typealias Window = StoredWindow

    /// How many windows are kept for a configuration (for tests).
    func keptWindows(configuration key: String) -> Int {
        state.withLock { $0.entries[key]?.windows.count ?? 0 }
    }

    /// The ids of the cells in a window's bytes: the items whose keys a page shows.
    static func cellIDs(_ header: LayoutArchiveHeader, _ bytes: [UInt8]) throws -> [Int64] {
        let ids = try header.decodeWindow(bytes).compactMap { $0.kind == .cell ? $0.id : nil }
        // Before their keys are read: such a window is paged through the catalog, band by band.
        if ids.count > PageError.maximumItems { throw StoreError.windowTooLarge(limit: PageError.maximumItems) }
        return ids
    }

    /// `windowsPerLayout`: the windows kept per stored layout, each with its bytes and its
    /// items' paths.
    public init(catalog: Catalog, windowsPerLayout: Int = 4096) {
        self.catalog = catalog
        self.windowsPerLayout = max(1, windowsPerLayout)
    }

    /// The catalog's generation, re-read only when the store's change stamp moved (or is too
    /// recent to tell: file times are as coarse as the kernel's tick).
    public func generation() throws -> Int64 {
        if let known = knownGeneration() { return known }
        let stamp = catalog.store.changeStamp()
        let readAt = WallClock.nanoseconds()
        let generation = try catalog.generation()
        state.withLock { state in
            state.stamp = stamp?.stamp
            state.readAt = readAt
            state.generation = generation
        }
        return generation
    }

    /// The generation without reading the catalog, when the change stamp vouches for it (no
    /// blocking I/O but two `stat` calls on SQLite; none on PostgreSQL, whose listener is told).
    public func knownGeneration() -> Int64? {
        guard let (stamp, lastChange) = catalog.store.changeStamp() else { return nil }
        return state.withLock { state in
            state.stamp == stamp && state.readAt > lastChange + 1_000_000_000 ? state.generation : nil
        }
    }


    /// The page from memory alone, without reading the catalog (no blocking I/O but two
    /// `stat` calls); nil when anything would have to be read.
    public func pageFromMemory(_ request: PageRequest) throws -> Page? {
        guard case .offset(let offset) = request.position, request.rect == nil, let generation = knownGeneration() else { return nil }
        return try cachedPage(request, generation: generation, offset: offset)
    }

    /// The page from memory, reading what is missing; nil if the layout is not stored fresh, the
    /// request scrolls to an item, or a window it needs holds more items than a page may (the
    /// caller reads the band alone).
    public func page(_ request: PageRequest) throws -> Page? {
        do {
            return try readingMissing(request)
        } catch StoreError.windowTooLarge {
            return nil
        }
    }

    private func readingMissing(_ request: PageRequest) throws -> Page? {
        guard case .offset(let offset) = request.position, request.rect == nil else { return nil }
        let key = request.configuration.key
        let band = offset..<(offset + request.bandLength)
        let generation = try generation()
        if let page = try cachedPage(request, generation: generation, offset: offset) { return page }
        // Only the windows missing are read, and they are added to the entry kept in place: a
        // copy of the entry to fill would copy its table of up to `windowsPerLayout` windows.
        let known = state.withLock { state -> (header: LayoutArchiveHeader, layoutID: Int64, missing: [Int])? in
            guard let entry = state.entries[key], entry.generation == generation else { return nil }
            return (entry.header, entry.layoutID, entry.header.windows(for: band)?.filter { entry.windows[$0] == nil } ?? [])
        }
        var filled: (header: LayoutArchiveHeader, layoutID: Int64, read: [Int: Window])?
        if let known {
            // The layout's header is kept for this generation: the store reads the windows and
            // their items' keys as of it (on PostgreSQL, at most two statements and no
            // transaction; one when the store kept the layout's segments).
            var read: [Int: Window]? = [:]
            if let first = known.missing.first, let last = known.missing.last {
                let header = known.header
                read = try catalog.store.storedWindows(configuration: key, layoutID: known.layoutID, generation: generation,
                                                       range: first...last, ids: { try Self.cellIDs(header, $0) })
                    .map { Dictionary(uniqueKeysWithValues: zip(first...last, $0)) }
            }
            // Nil when that layout is no longer the one stored (dropped, stored again) or the
            // catalog moved on: the layout is read again below, and its entry replaces this one.
            filled = read.map { (known.header, known.layoutID, $0) }
        }
        if filled == nil {
            // Read the layout's header and the windows the band needs, in one snapshot.
            filled = try catalog.store.withSnapshot { snapshot -> (LayoutArchiveHeader, Int64, [Int: Window])? in
                let current = try snapshot.generation()
                guard current == generation, let stored = try snapshot.layout(configuration: key), stored.generation == current,
                      let header = try Pager.readableHeader(stored) else { return nil }
                guard let range = header.windows(for: band) else { return (header, stored.id, [:]) }
                guard let windows = try snapshot.storedWindows(layoutID: stored.id, range: range, ids: { try Self.cellIDs(header, $0) })
                else { return nil }
                return (header, stored.id, Dictionary(uniqueKeysWithValues: zip(range, windows)))
            }
        }
        guard let (header, layoutID, read) = filled else { return nil }
        let range = header.windows(for: band)
        state.withLock { state in
            state.clock += 1
            if state.entries[key]?.generation != generation || state.entries[key]?.layoutID != layoutID {
                state.entries[key] = Entry(generation: generation, header: header, layoutID: layoutID)
            }
            if state.entries[key]!.windows.count + read.count > windowsPerLayout {
                // Past the budget, only the windows of this band stay: the page below needs them.
                state.entries[key]!.windows = state.entries[key]!.windows.filter { range?.contains($0.key) == true }
            }
            for (window, kept) in read { state.entries[key]!.windows[window] = kept }
            state.entries[key]!.lastUse = state.clock
            if state.entries.count > Self.layouts, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.entries[oldest] = nil
            }
        }
        return try cachedPage(request, generation: generation, offset: offset)
    }

    /// The page from the windows kept, or nil when one is missing (or a folder section's title
    /// needs an item that is not on the page: the caller pages through the catalog).
    private func cachedPage(_ request: PageRequest, generation: Int64, offset: Double) throws -> Page? {
        let key = request.configuration.key
        let band = offset..<(offset + request.bandLength)
        let found = state.withLock { state -> (LayoutArchiveHeader, [Window])? in
            guard let entry = state.entries[key], entry.generation == generation else { return nil }
            let windows = entry.header.windows(for: band).map { Array($0) } ?? []
            let cached = windows.compactMap { entry.windows[$0] }
            guard cached.count == windows.count else { return nil }
            state.clock += 1
            state.entries[key]!.lastUse = state.clock
            return (entry.header, cached)
        }
        guard let (header, windows) = found else { return nil }
        let attributes = try header.items(in: band, windows: windows.map(\.bytes), pinningHeaders: request.pinHeaders)
        try PageError.check(attributes)
        var keys: [Int64: ItemKey] = [:]
        for window in windows { keys.merge(window.keys) { first, _ in first } }
        return Pager.makePage(attributes, keys: keys, request: request, header: header, generation: generation,
                              offset: offset, itemCount: header.itemCount, source: .stored) { _ in nil }
    }
}
