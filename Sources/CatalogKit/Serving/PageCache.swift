import CatalogLayout
import CatalogModel
import Foundation

/// Pages of stored layouts served from memory: the windows a page needs and their items' paths
/// are read once per catalog generation and kept; the generation is revalidated per request by
/// the store's change stamp (two `stat` calls for SQLite), and re-read only when it changed.
/// A page is made from one generation's windows only, so it never mixes two.
///
/// What is not served from memory (a layout not stored fresh, a page by item) returns nil:
/// the caller pages through `Catalog.page`.
public final class PageCache: Sendable {
    private let catalog: Catalog
    /// Every request takes it, from more threads than cores on PostgreSQL (eight read threads):
    /// a `SleepingLock`, not a `Mutex`, whose spinning took 7 % of such a server's CPU.
    private let state = SleepingLock(State())
    /// Windows kept per layout; past it, the layout's windows but those of the band asked for
    /// are dropped and read again as asked.
    let windowsPerLayout: Int
    /// Layouts kept before the least recently used is dropped.
    static let layouts = 16
    /// The memory the windows kept may take, about (their bytes and their items' keys): past
    /// it the least recently used layouts go, then windows of the layout read picked at random
    /// (never those of the band asked for), down to three quarters of it. A client chooses the window's length
    /// (up to 100,000 items a window), so a count of windows alone bounds nothing.
    let budgetBytes: Int

    /// The generation last read, and the change stamp it was read at: under a lock of its own,
    /// which every request takes, apart from the windows'.
    private let known = SleepingLock(Known())

    struct Known {
        var stamp: [Int64]?
        /// When the generation was last read (nanoseconds since 1970).
        var readAt: Int64 = 0
        var generation: Int64 = -1
        /// The catalog's identity read with it (`Catalog.identity`).
        var identity: String?
        /// Times the generation was found lower than the one before, the identity the same: a
        /// backup put back (`sqlite3 ... ".restore"`), whose generations count again from its own.
        var rewinds = 0
    }

    struct State {
        var entries: [String: Entry] = [:]
        /// Counts the times another catalog was found at the place (`generation()`): what a
        /// request read before that is not kept, its generation the old catalog's.
        var catalogs = 0
        var clock = 0
        /// The entries' `bytes`, summed.
        var bytes = 0
    }

    struct Entry {
        var generation: Int64
        var header: LayoutArchiveHeader
        /// The stored layout the windows come from.
        var layoutID: Int64
        var windows: [Int: Window] = [:]
        var lastUse = 0
        /// What its windows take, about (`PageCache.size`).
        var bytes = 0
        /// When `recordUse` last wrote a use of the stored layout down (uptime, nanoseconds; 0: never).
        var useRecorded: UInt64 = 0
    }

    /// What a window kept takes, about: its bytes, its keys packed, and its entry in the table.
    static func size(_ window: Window) -> Int {
        window.bytes.count + window.keys.bytes.count + 96
    }

    /// What the windows kept take, about (for tests).
    var keptBytes: Int { state.withLock { $0.bytes } }

    /// A window kept: its bytes and its items' keys, packed.
    struct Window: Sendable {
        var bytes: [UInt8]
        var keys: PackedItemKeys

        init(_ stored: StoredWindow) {
            bytes = stored.bytes
            keys = PackedItemKeys(stored.keys)
        }
    }

    /// How many windows are kept for a configuration (for tests).
    func keptWindows(configuration key: String) -> Int {
        state.withLock { $0.entries[key]?.windows.count ?? 0 }
    }

    /// The cells in a window's bytes: the items whose keys a page shows, and their positions in
    /// the layout's order, `order`.
    static func cells(_ header: LayoutArchiveHeader, order: ItemOrder, _ bytes: [UInt8]) throws -> WindowCells {
        let cells = try header.decodeWindow(bytes).filter { $0.kind == .cell }
        // Before their keys are read: such a window is paged through the catalog, band by band.
        if cells.count > PageError.maximumItems { throw StoreError.windowTooLarge(limit: PageError.maximumItems) }
        return WindowCells(ids: cells.map(\.id), positions: cells.map(\.index), order: order)
    }

    /// The default of `budgetBytes`: the windows of a 375-point, 2-column layout of about
    /// 2,500,000 imported items, with their keys, addresses and titles (about 100 bytes an item).
    public static let defaultBudgetBytes = 256 << 20

    /// `windowsPerLayout`: the windows kept per stored layout at most (past it, only the band's
    /// stay), each with its bytes and its items' paths; `budgetBytes`: the memory they may take
    /// in all, about.
    public init(catalog: Catalog, windowsPerLayout: Int = .max, budgetBytes: Int = PageCache.defaultBudgetBytes) {
        self.catalog = catalog
        self.windowsPerLayout = max(1, windowsPerLayout)
        self.budgetBytes = max(1, budgetBytes)
    }

    /// The catalog's generation, re-read only when the store's change stamp moved (or is too
    /// recent to tell: file times are as coarse as the kernel's tick).
    public func generation() throws -> Int64 {
        if let known = knownGeneration() { return known }
        let read = { [catalog] in (catalog.store.changeStamp(), WallClock.nanoseconds(), try catalog.generationAndIdentity()) }
        var (stamp, readAt, (generation, identity)) = try read()
        if known.withLock({ $0.identity == identity && generation < $0.generation }) {
            // Lower than a read before: a backup put back, or a read that began first but took
            // its snapshot after this one did. A read begun now tells the two apart.
            (stamp, readAt, (generation, identity)) = try read()
        }
        let another = known.withLock { known -> Bool in
            // A read that began before the one kept (two finishing out of order) changes nothing.
            guard readAt >= known.readAt else { return false }
            defer { (known.stamp, known.readAt, known.generation, known.identity) = (stamp?.stamp, readAt, generation, identity) }
            guard known.identity != nil else { return false }
            if known.identity == identity && generation < known.generation { known.rewinds += 1 }
            return known.identity != identity || generation < known.generation
        }
        // Another catalog at the same place (a PostgreSQL database dropped and made again), or
        // an older state of this one: its generations count again, and the pages kept are not its.
        if another { state.withLock { $0 = State(catalogs: $0.catalogs + 1) } }
        return generation
    }

    /// The catalog's identity as last read with the generation, and how many times this
    /// process saw it go back to an older generation (ETags are made of the two and the
    /// generation: a generation reached again after a backup was put back is another state of
    /// the catalog); nil before the first read.
    public func knownIdentity() -> String? {
        known.withLock { known in known.identity.map { Self.marked($0, rewinds: known.rewinds) } }
    }

    /// `identity` as a tag carries it: with how many times this process saw the generation go
    /// back (`knownIdentity`), for an identity read with other data (an item's).
    public func tagged(_ identity: String) -> String {
        Self.marked(identity, rewinds: known.withLock { $0.rewinds })
    }

    private static func marked(_ identity: String, rewinds: Int) -> String {
        rewinds == 0 ? identity : "\(identity) rewound \(rewinds)"
    }

    /// The generation without reading the catalog, when the change stamp vouches for it (no
    /// blocking I/O but two `stat` calls on SQLite; none on PostgreSQL, whose listener is told).
    public func knownGeneration() -> Int64? {
        guard let (stamp, lastChange) = catalog.store.changeStamp() else { return nil }
        return known.withLock { known in
            known.stamp == stamp && known.readAt - 1_000_000_000 > lastChange ? known.generation : nil
        }
    }


    /// The stored layout of `key` whose use is to be written down now (`recordUse`), at most
    /// once a minute: the layouts' budget drops the least used ones, and pages served from
    /// memory read nothing from the catalog, so a layout a server served all day looked unused
    /// since it was stored. Nil when it is not due (a lock and a comparison: no I/O).
    public func useToRecord(_ key: String) -> Int64? {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state -> Int64? in
            guard let recorded = state.entries[key]?.useRecorded, recorded == 0 || now - recorded >= 60_000_000_000 else { return nil }
            state.entries[key]?.useRecorded = now
            return state.entries[key]?.layoutID
        }
    }

    /// Writes down a use of the stored layout `layoutID` (a write to the catalog: off the event loop).
    public func recordUse(layoutID: Int64) {
        try? catalog.store.touchLayout(id: layoutID, lastUsedAt: "") // "": whenever it was last written down
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
        let (key, order) = (request.configuration.key, request.configuration.order)
        let band = offset..<(offset + request.bandLength)
        let generation = try generation()
        let catalogs = state.withLock { $0.catalogs }
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
                                                       range: first...last, cells: { try Self.cells(header, order: order, $0) })
                    .map { Dictionary(uniqueKeysWithValues: zip(first...last, $0.map(Window.init))) }
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
                guard let windows = try snapshot.storedWindows(layoutID: stored.id, range: range, cells: { try Self.cells(header, order: order, $0) })
                else { return nil }
                return (header, stored.id, Dictionary(uniqueKeysWithValues: zip(range, windows.map(Window.init))))
            }
        }
        guard let (header, layoutID, read) = filled else { return nil }
        let range = header.windows(for: band)
        let sizes = read.mapValues(Self.size)
        // What is pushed out is freed after the lock is let go: a quarter of the budget is tens
        // of thousands of windows, each with its keys, and every request waits for the lock.
        let gone = state.withLock { state -> (entries: [Entry], windows: [Window]) in
            var gone: (entries: [Entry], windows: [Window]) = ([], [])
            // Read from a catalog that another has replaced since: not kept.
            guard state.catalogs == catalogs else { return gone }
            state.clock += 1
            // A slow request of a generation that has passed does not replace a newer entry (the
            // page below then comes through the catalog).
            if let old = state.entries[key], old.generation > generation { return gone }
            if let old = state.entries[key], old.generation != generation || old.layoutID != layoutID {
                state.bytes -= old.bytes
                gone.entries.append(state.entries.removeValue(forKey: key)!)
            }
            if state.entries[key] == nil { state.entries[key] = Entry(generation: generation, header: header, layoutID: layoutID) }
            var entry = state.entries.removeValue(forKey: key)!
            state.bytes -= entry.bytes
            if entry.windows.count + read.count > windowsPerLayout {
                // Past the count, only the windows of this band stay: the page below needs them.
                for window in entry.windows.keys.filter({ range?.contains($0) != true }) {
                    gone.windows.append(entry.windows.removeValue(forKey: window)!)
                }
                entry.bytes = entry.windows.values.reduce(0) { $0 + Self.size($1) }
            }
            for (window, kept) in read {
                if let replaced = entry.windows.updateValue(kept, forKey: window) {
                    entry.bytes -= Self.size(replaced)
                    gone.windows.append(replaced)
                }
                entry.bytes += sizes[window]!
            }
            entry.lastUse = state.clock
            // The least recently used others go while there are too many, or they take too much.
            while state.entries.count >= Self.layouts || (!state.entries.isEmpty && state.bytes + entry.bytes > budgetBytes),
                  let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                let old = state.entries.removeValue(forKey: oldest)!
                state.bytes -= old.bytes
                gone.entries.append(old)
            }
            if entry.bytes > budgetBytes {
                // This layout alone passes the budget: windows other than the band's go, picked at
                // random, down to three quarters of it (so that this happens once per quarter of
                // the budget read, not at every window). What is kept stays a fair sample of
                // the layout, whichever part the clients read. (Not a run of the table's slots:
                // removing neighbouring slots one by one shifts the rest of their run each time.)
                var windows = Array(entry.windows.keys)
                var left = windows.count
                while entry.bytes > budgetBytes / 4 * 3 && left > 0 {
                    windows.swapAt(Int.random(in: 0..<left), left - 1) // a shuffle, as far as it is needed
                    left -= 1
                    if range?.contains(windows[left]) == true { continue }
                    let removed = entry.windows.removeValue(forKey: windows[left])!
                    entry.bytes -= Self.size(removed)
                    gone.windows.append(removed)
                }
            }
            state.bytes += entry.bytes
            state.entries[key] = entry
            return gone
        }
        if !gone.entries.isEmpty || !gone.windows.isEmpty {
            // Freed on another thread: tens of thousands of windows take a while to free.
            DispatchQueue.global(qos: .utility).async { withExtendedLifetime(gone) {} }
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
        for window in windows { try window.keys.add(to: &keys) }
        return Pager.makePage(attributes, keys: keys, request: request, header: header, generation: generation,
                              offset: offset, itemCount: header.itemCount, source: .stored) { _ in nil }
    }
}
