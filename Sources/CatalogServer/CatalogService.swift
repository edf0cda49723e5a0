import CatalogKit
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// What the routes call: the catalog's synchronous reads run on a blocking thread pool, never
/// on the threads that serve requests; a layout that several requests need before it is stored
/// is computed once, the others waiting for it, and so is a thumbnail.
final class CatalogService: Sendable {
    let catalog: Catalog
    /// Pages of stored layouts from memory, revalidated per request by the change stamp.
    let pages: PageCache
    let thumbnailCache: ThumbnailCache
    private let computations = Flights<LayoutsBeingStored.Entry?>()
    /// Layouts computed here and being stored: pages are made from them meanwhile. A service of
    /// the application: a graceful shutdown waits for their stores.
    let beingStored: LayoutsBeingStored
    /// Layouts computed by this server (for tests).
    let layoutsComputed = Atomic<Int>(0)
    /// Calls sent to the layout threads because no fresh layout was stored for them: after a
    /// store that failed, or a computation the catalog moved past (for tests).
    let layoutsComputedAgain = Atomic<Int>(0)
    /// Whether the log said that this user may not store layouts: once a server.
    private let saidLayoutsUnstored = Atomic<Bool>(false)
    /// Where a layout's store that failed is told (one that left nothing stored, as when the
    /// database is unreachable or the layout file stays busy, is not: the next request computes
    /// the layout again).
    private let errorLog: Logger
    private let notCachedLog = RepeatLimit()
    /// Layouts left unstored by a full disk: one line per 30 seconds (each page computed again
    /// went without a word, and `catalog layouts` listed none).
    private let unstoredLog = RepeatLimit()
    let thumbnailFlights = Flights<CachedThumbnail>()
    private let changeFlights = Flights<ChangeSet>()
    private let recentChanges = Mutex<[(key: String, set: ChangeSet)]>([])
    private let knownWebOrigins = Mutex<(generation: Int64, made: String, origins: [String])?>(nil)
    /// The catalog's identity once read (`made()`), and whether a read of it is under way.
    private let knownMade = Mutex<(identity: String?, reading: Bool)>((nil, false))
    /// At most this many web origins are listed in the gallery's policy (more: any http(s) one).
    static let webOriginLimit = 64

    /// Thumbnails are made on threads of their own: a slow decode (a HEIC or AVIF decodes whole,
    /// and the Thumbnailer lets only a few run at once) never holds a thread that pages, change
    /// sets and the events poller need.
    private let thumbnailThreads: NIOThreadPool
    /// The catalog's reads run on threads of their own, as many as the store says reads can
    /// usefully run at once: on SQLite one per core (a read works the CPU; more threads only
    /// take turns), on PostgreSQL more (a read mostly waits for the database's answers).
    private let readThreads: NIOThreadPool
    /// Layouts are computed and stored on threads of their own, as many as may be computed and
    /// held at once (`beingStored`'s limit): at 10,000,000 items a new configuration takes half
    /// a second and its store a few tenths more, and on the read threads pages queued behind
    /// them. With the SQLite store in pieces too, pages of a stored layout under wrk while two
    /// new configurations were laid out went from a p99 of 650-900 ms to 300-420 ms; either
    /// change alone left it where it was (BENCHMARKS.md).
    private let layoutThreads: NIOThreadPool

    /// Stores a computed layout (the catalog's `storeLayout`; tests hold it back).
    private let storeLayout: @Sendable (ComputedLayout) throws -> Bool

    init(catalog: Catalog, thumbnailCache: ThumbnailCache, errorLog: Logger,
         storeLayout: (@Sendable (ComputedLayout) throws -> Bool)? = nil, pageCacheBytes: Int = PageCache.defaultBudgetBytes) {
        self.catalog = catalog
        self.errorLog = errorLog
        self.storeLayout = storeLayout ?? { try catalog.storeLayout($0) }
        self.thumbnailCache = thumbnailCache
        pages = PageCache(catalog: catalog, budgetBytes: pageCacheBytes)
        // Starts the store's change listener (PostgreSQL) now rather than at the first page: its
        // heartbeat is what notices a database that stops answering, for every route.
        _ = pages.knownGeneration()
        // Read now, before the first response: the database answered the opening a moment ago.
        // One away now is read later, off the event loop, its responses untagged until then.
        knownMade.withLock { $0.identity = try? catalog.identity() }
        thumbnailThreads = NIOThreadPool(numberOfThreads: System.coreCount)
        thumbnailThreads.start()
        readThreads = NIOThreadPool(numberOfThreads: max(1, catalog.readConcurrency))
        beingStored = LayoutsBeingStored(limit: catalog.readConcurrency)
        layoutThreads = NIOThreadPool(numberOfThreads: max(1, catalog.readConcurrency))
        readThreads.start()
        layoutThreads.start()
    }

    deinit {
        thumbnailThreads.shutdownGracefully { _ in }
        readThreads.shutdownGracefully { _ in }
        layoutThreads.shutdownGracefully { _ in }
    }

    /// Runs a blocking catalog call off the request threads.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await readThreads.runIfActive(body)
    }

    /// The catalog's identity (`Catalog.identity`) for ETags: a catalog made again at the same
    /// path starts at generation 1 again, and its ETags, made of the generation alone, were the
    /// old catalog's (a 304 for other items). Read when the service starts; while it cannot be
    /// read, "" (responses go untagged) until a read in the background has it. Synchronous: an async
    /// call here cost every response a hop between threads (a tenth of the pages a second).
    func made() -> String {
        // As last read with the generation (a PostgreSQL database made again at the URL is another catalog).
        if let identity = pages.knownIdentity() { return identity }
        let (known, start) = knownMade.withLock { state -> (String?, Bool) in
            guard state.identity == nil, !state.reading else { return (state.identity, false) }
            state.reading = true
            return (nil, true)
        }
        if let known { return known }
        if start {
            let catalog = self.catalog
            Task {
                let identity = try? await self.run { try catalog.identity() }
                self.knownMade.withLock { $0 = (identity, false) }
            }
        }
        return ""
    }

    /// Runs a catalog call that computes the layout of `configuration` when none is stored
    /// fresh: on the read threads when one is (the call only reads it), else on the layout
    /// threads, so that pages of stored layouts do not queue behind the computation. For what
    /// may follow a store that failed, or a computation the catalog moved past meanwhile.
    func runLayingOut<T: Sendable>(_ configuration: LayoutConfiguration, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        // One hop when it is stored fresh (the usual case): the check (one read of the layout's
        // row) and the call together. T? is nil only when it is not: T may be optional itself.
        let read: T? = try await run { try self.catalog.isStoredFresh(configuration) ? try body() : nil }
        if let read { return read }
        layoutsComputedAgain.add(1, ordering: .relaxed)
        return try await layoutThreads.runIfActive(body)
    }

    func page(_ request: PageRequest) async throws -> Page {
        let key = request.configuration.key
        if let page = try pages.pageFromMemory(request) { // no I/O: no hop to the pool
            recordUse(key)
            return page
        }
        if let held = beingStored.entry(key), let page = try await run({ try self.catalog.page(request, from: held.layout) }) {
            return page // its layout is being stored
        }
        if let page = try await run({ try self.pages.page(request) }) { // reads what is missing
            recordUse(key)
            return page
        }
        if let page = try await run({ try self.catalog.page(request, computing: false) }) { return page }
        if let held = try await computeAndStore(request.configuration),
           let page = try await run({ try self.catalog.page(request, from: held.layout) }) {
            return page
        }
        // Stored meanwhile, or the catalog moved on while it was computed.
        // Stored once computed: the server's other threads use the stored layouts meanwhile.
        return try await runLayingOut(request.configuration) { try self.catalog.page(request, storingWhileComputing: false) }
    }

    /// A page served from the cache is a use of its stored layout: written down (at most once a
    /// minute, `PageCache.recordUse`) on the layout threads (the write may wait for a layout
    /// being stored, and the read threads serve pages), without the page waiting for it.
    private func recordUse(_ key: String) {
        guard let layoutID = pages.useToRecord(key) else { return }
        let pages = self.pages
        Task { _ = try? await self.layoutThreads.runIfActive { pages.recordUse(layoutID: layoutID) } }
    }

    /// Computes the layout of `configuration` (once, however many requests need it at a time)
    /// and starts storing it; returns it to page from meanwhile. Nil when it is stored fresh.
    func computeAndStore(_ configuration: LayoutConfiguration) async throws -> LayoutsBeingStored.Entry? {
        let key = configuration.key
        return try await computations.once(key) {
            // Computed by a flight that ended a moment ago, and still being stored.
            if let held = try await self.heldCurrent(key) { return held }
            // Stored fresh (sections and snapping ask for layouts stored long ago): no place to wait for.
            if try await self.run({ try self.catalog.isStoredFresh(configuration) }) { return nil }
            await self.beingStored.reserve()
            let computed: ComputedLayout?
            do {
                computed = try await self.layoutThreads.runIfActive { try self.catalog.computeLayout(configuration) }
            } catch {
                self.beingStored.release()
                throw error
            }
            guard let layout = computed else {
                self.beingStored.release()
                return nil
            }
            self.layoutsComputed.add(1, ordering: .relaxed)
            let generation = layout.generation
            return self.beingStored.start(layout) { layout in
                do {
                    return try await self.layoutThreads.runIfActive { try self.storeLayout(layout) }
                } catch let error as StoreError where error.leavesLayoutUnstored {
                    if case .notPermitted = error, !self.saidLayoutsUnstored.exchange(true, ordering: .relaxed) {
                        self.errorLog.error("layouts are served but not stored, each computed again when asked for: \(error)")
                    }
                    if case .full = error, self.unstoredLog.allows("full") {
                        self.errorLog.error("layouts are served but not stored while the disk is full, each computed again when asked for: \(error)")
                    }
                    return false // stored by no one: the next request computes it again
                } catch {
                    self.errorLog.error("the layout \(key) was served but could not be stored: \(error)")
                    return false
                }
            } afterwards: {
                await self.awaitReadable(configuration: key, generation: generation)
            }
        }
    }

    /// With `--read-db`, waits (30 s at most) until the replica lists the layout of
    /// `configuration` stored at `generation` or later: it shows it a moment after the primary
    /// stored it (200 MB of segments to replay at 10,000,000 items), and until then pages come
    /// from memory, not from a second computation that would store the layout again. A read
    /// that fails ends the wait (the replica's own errors reach the requests that read it).
    func awaitReadable(configuration key: String, generation: Int64) async {
        guard catalog.readsFromReplica else { return }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, !beingStored.isStopping {
            let listed = try? await run { try self.catalog.layouts().contains { $0.configuration == key && $0.generation >= generation } }
            if listed != false { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until the layout of `configuration` is stored (or its store failed), computing it
    /// once if needed: for what reads the stored layout (sections, snapping).
    func settle(_ configuration: LayoutConfiguration) async throws {
        if let held = try await heldCurrent(configuration.key) { await held.stored.value }
        if let held = try await computeAndStore(configuration) { await held.stored.value }
    }

    /// The layout of configuration `key` being stored, if it lays out the catalog's generation.
    func heldCurrent(_ key: String) async throws -> LayoutsBeingStored.Entry? {
        guard let held = beingStored.entry(key), try await run({ try self.pages.generation() }) == held.layout.generation else { return nil }
        return held
    }

    /// The change set from `request.since` to now: every gallery at one generation asks for the
    /// same one when the catalog moves, so each is computed once (however many ask at a time)
    /// and the last few are kept (a change set between two generations never changes).
    func changes(_ request: ChangeRequest) async throws -> ChangeSet {
        let now = try await run { try self.pages.generation() }
        // With the catalog's identity: another catalog at the place (or an older state of this
        // one, put back) counts its generations again, and its change sets are other ones.
        let key = "\(request.since) \(now) \(request.order.rawValue) \(made())"
        if let known = recentChanges.withLock({ $0.first { $0.key == key }?.set }) { return known }
        let set = try await changeFlights.once(key) { try await self.run { try self.catalog.changes(request) } }
        guard set.to == now else { return set } // the catalog moved on while computing: not the key's
        recentChanges.withLock { recent in
            recent.removeAll { $0.key == key }
            recent.append((key, set))
            if recent.count > 8 { recent.removeFirst() }
        }
        return set
    }

    /// The origins of imported items' web addresses (the gallery's images may come from them),
    /// read again when the generation moves; while the database cannot be reached, those read
    /// last, or nil (any http(s) origin) when none were: the page served then keeps its policy
    /// once the database is back, and its images must not be blocked until a reload.
    func webOrigins() async throws -> [String]? {
        do {
            return try await readWebOrigins()
        } catch StoreError.unreachable {
            // The database away: the origins read last (the gallery's page is served, and says
            // itself that the catalog cannot be reached, rather than a JSON error in its place).
            return knownWebOrigins.withLock { $0?.origins }
        }
    }

    private func readWebOrigins() async throws -> [String] {
        let generation = try await run { try self.pages.generation() }
        let made = made() // another catalog at the place counts its generations again
        if let known = knownWebOrigins.withLock({ $0 }), known.generation == generation, known.made == made { return known.origins }
        let origins = try await run { try self.catalog.webOrigins(limit: Self.webOriginLimit) }
        knownWebOrigins.withLock { $0 = (generation, made, origins) }
        return origins
    }

    /// Every section of a layout; computed once however many requests need it at a time.
    func sections(_ configuration: LayoutConfiguration) async throws -> SectionList {
        try await settle(configuration) // if the store failed, the list lays out the snapshot it reads
        return try await runLayingOut(configuration) { try self.catalog.sections(configuration, storingWhileComputing: false) }
    }

    /// Where a carousel fling stops, from the stored layout's windows around it (computed and
    /// stored once however many requests need it at a time).
    func snap(_ request: SnapRequest) async throws -> SnapTarget? {
        try await settle(request.configuration) // if the store failed, the snap lays out the snapshot it reads
        return try await runLayingOut(request.configuration) {
            try self.catalog.snap(request.configuration, proposed: request.proposed, velocity: request.velocity, storingWhileComputing: false)
        }
    }

    /// Item `id`'s thumbnail in a `size` box: from the cache, or made once however many
    /// requests ask for it at the same time.
    /// A thumbnail the cache cannot keep (a full disk, a cache path that is not a folder) is
    /// sent all the same, and the reason logged once per 30 seconds.
    func thumbnail(item id: Int64, size: Int) async throws -> CachedThumbnail {
        let thumbnail = try await thumbnailFlights.once("\(id)/\(size)") {
            try await self.thumbnailThreads.runIfActive { try self.catalog.thumbnail(item: id, size: size, cache: self.thumbnailCache) }
        }
        if let problem = thumbnail.notCached, notCachedLog.allows("\(problem)") {
            errorLog.error("thumbnails are sent but not cached: \(problem)")
        }
        return thumbnail
    }

    /// Work under way, by key: a second caller waits for the first one's result.
    actor Flights<Value: Sendable> {
        private var running: [String: Task<Value, any Error>] = [:]
        /// Callers that found the work under way and waited for it (for tests).
        private(set) var joined = 0

        func once(_ key: String, _ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
            if let task = running[key] {
                joined += 1
                return try await task.value
            }
            let task = Task { try await body() }
            running[key] = task
            defer { running[key] = nil }
            return try await task.value
        }
    }
}
