import CatalogModel
import CatalogStore
import CatalogStorePostgres
import Foundation

/// A catalog of images: the one front door to scanning, importing, listing and paging.
///
/// ```swift
/// let catalog = try Catalog.open(at: "photos.sqlite")
/// let summary = try catalog.scan(["/Volumes/Photos"])
/// let request = try PageRequest(query: "width=375&cols=2&offset=4000")
/// let page = try catalog.page(request)
/// ```
///
/// Safe to use from many threads at once. Reads (list, page, stats) see one committed state
/// and never wait for a scan's or an import's writes, in this process or another; one scan or
/// import writes at a time (a second one throws `StoreError.busy`).
public final class Catalog: Sendable {
    package let store: any CatalogBackend

    /// This build's version, and the newest catalog schema (migration) it writes.
    public static let version = "0.2.0 (schema \(SQLiteStore.schemaVersion))"

    /// Opens the catalog at `path`, creating it and its folder on first use: an SQLite file, or
    /// with `postgres://USER@HOST:PORT/DB` (or `postgresql://`) a PostgreSQL database, whose
    /// tables are created in an empty database. A file or database that is not a catalog, or a
    /// catalog written by a newer version, is refused and left untouched.
    public static func open(at path: String) throws(StoreError) -> Catalog {
        if PostgresLocation.isURL(path) { return Catalog(store: try PostgresStore.open(url: path)) }
        return Catalog(store: try SQLiteStore.open(at: path))
    }

    /// Opens the catalog at `path` as `open(at:)` does, but refuses an SQLite file that does not
    /// exist yet or is empty, and a PostgreSQL database without tables, instead of making a
    /// catalog there: what the commands that only read a catalog open, so that a mistyped path
    /// is an error rather than a new, empty catalog.
    public static func openExisting(at path: String) throws(StoreError) -> Catalog {
        if PostgresLocation.isURL(path) { return Catalog(store: try PostgresStore.open(url: path, create: false)) }
        // Missing, not unreachable: a folder this user may not enter is said so by open(at:).
        var status = stat()
        if stat(path, &status) != 0, errno == ENOENT { throw .noCatalog(at: path) }
        // SQLite takes an empty file for an empty database, and would make a catalog of it.
        if status.st_mode & S_IFMT == S_IFREG, status.st_size == 0 { throw .noCatalog(at: path, "an empty file") }
        return Catalog(store: try SQLiteStore.open(at: path, create: false))
    }

    /// Opens the PostgreSQL catalog at `url` for reading from `readURL`, a streaming replica of
    /// it: reads (pages, items, stats) go to the replica, writes (a stored layout) to `url`.
    /// A page says which generation it shows; the replica's may trail the primary's. Without
    /// `create`, a primary without tables is refused as `openExisting(at:)` refuses it.
    public static func open(at url: String, readingFrom readURL: String, create: Bool = true) throws(StoreError) -> Catalog {
        guard PostgresLocation.isURL(url), PostgresLocation.isURL(readURL) else {
            // Names the one that is not a URL.
            throw .cannotOpen(path: PostgresLocation.isURL(url) ? readURL : url,
                              reason: "a read replica is for a catalog in PostgreSQL: both must be postgres:// URLs")
        }
        return Catalog(store: try PostgresStore.open(url: url, readURL: readURL, create: create), readsFromReplica: true)
    }

    /// A catalog over any store that implements the seam.
    package init(store: any CatalogBackend, readsFromReplica: Bool = false) {
        self.store = store
        self.readsFromReplica = readsFromReplica
        // Before any of this catalog's layouts are computed or extended, on whatever thread.
        _ = HugePages.installed
    }

    /// Whether reads go to a replica, which shows what is written a moment later.
    package let readsFromReplica: Bool

    /// Where the catalog is (a file path, or a PostgreSQL URL).
    public var location: String { store.location }

    /// For a process ending at once (an interruption) with a write under way: `end` (which ends
    /// it) called once an SQLite catalog's committed batches are copied from its -wal into its
    /// file, so that the file alone holds them (a copy made without the -wal), after the batch
    /// under way commits. PostgreSQL: `end` at once.
    public func endKeepingCommittedInItsFile(_ end: () -> Never) -> Never {
        (store as? SQLiteStore)?.checkpointCommitted(thenEnd: end)
        end()
    }
    /// The catalog's file, for one in SQLite; nil for one in PostgreSQL.
    var file: String? { PostgresLocation.isURL(location) ? nil : location }
    /// How many reads a server should run at once (the store's answer: its reads may wait).
    package var readConcurrency: Int { store.readConcurrency }

    /// Incremented by every change to the items.
    public func generation() throws(StoreError) -> Int64 {
        try store.generation()
    }

    /// What tells this catalog from another made at its place: with the generation, what tells
    /// this catalog's states from another's (ETags).
    public func identity() throws(StoreError) -> String {
        try store.identity()
    }

    /// The generation and the identity, in one read.
    public func generationAndIdentity() throws(StoreError) -> (generation: Int64, identity: String) {
        try store.generationAndIdentity()
    }

    // MARK: Scanning and importing

    /// Scans `roots` (folders, made absolute): new and changed images are probed and stored,
    /// unchanged files are not opened, files gone from a completely read folder are removed.
    /// Roots that cannot be scanned are listed in the summary, and the others scanned all the same.
    public func scan(_ roots: [String], options: ScanOptions = ScanOptions(),
                     progress: ((ScanProgress) -> Void)? = nil) throws(StoreError) -> ScanSummary {
        try Scanner(store: store, options: options).run(roots: roots, progress: progress)
    }

    /// Imports a CSV or NDJSON file (`-`: standard input), by `format` or else its name or content.
    public func importItems(from source: String, format: ImportParser.Format? = nil) throws(StoreError) -> ImportSummary {
        try Importer.run(source: source, format: format, store: store)
    }

    /// Imports `source` into the catalog at `location` as `importItems(from:format:)` does, opening
    /// (and on first use making) the catalog only once the input is open: an input that cannot
    /// be read leaves no new, empty catalog behind.
    /// `committed` is called once the import's transaction has committed. An import that makes
    /// the catalog hands `removal`, once it holds the catalog's write lock and finds nothing in
    /// it, what removes the catalog again (a process interrupted before the commit calls it on
    /// its way out): true when it did, false when another process has the catalog open.
    public static func importItems(from source: String, format: ImportParser.Format? = nil, into location: String,
                                   removal: (@escaping @Sendable () -> Bool) -> Void = { _ in },
                                   committed: () -> Void = {}) throws(StoreError) -> ImportSummary {
        let input = try ImportInput(source: source)
        _ = try input.peek() // a folder opens, and fails at its first read: before the catalog is made
        // An SQLite catalog that this import makes is removed again when the import fails: a
        // refused import leaves no catalog where there was none (a read of it then says so).
        var status = stat()
        let makesCatalog = !PostgresLocation.isURL(location) && lstat(location, &status) != 0 && errno == ENOENT
        // A database its opening made a catalog (PostgreSQL) is made one without tables again.
        var opened: (any CatalogBackend)?
        func run() throws(StoreError) -> ImportSummary { // the catalog is closed when it returns
            let store = try open(at: location).store
            opened = store
            return try Importer.run(input, format: format, store: store, locked: {
                // Under the lock, nothing but this import can be written to it from now on.
                if makesCatalog, (try? store.generation()) == 0 { removal { removeFiles(at: location) } }
            }, committed: committed)
        }
        do {
            return try run()
        } catch {
            // Refused (its input, a key twice...), not cut off: a database gone or busy is left alone.
            switch error {
            case .unreachable, .busy: break
            default: _ = opened?.removeIfMadeAndUnwritten()
            }
            opened = nil // closed before an SQLite catalog's files are looked at
            if makesCatalog { removeUnwritten(at: location) }
            throw error
        }
    }

    /// Removes the SQLite catalog at `path` and its files if nothing was ever written to it,
    /// under its write lock: another process that has begun to write to it meanwhile (a scan
    /// or import whose first batch is not committed yet also shows generation 0) holds the
    /// lock, and the catalog is then left to it; so it is when another process has it open.
    static func removeUnwritten(at path: String) {
        guard !SQLiteStore.isOpenInAnotherProcess(path) else { return } // before this one opens it
        func remove() throws(StoreError) {
            let catalog = try openExisting(at: path)
            let lock = try catalog.store.lockForWriting()
            defer { withExtendedLifetime(lock) {} }
            guard try catalog.store.generation() == 0 else { return }
            for suffix in SQLiteStore.fileSuffixes { unlink(path + suffix) }
        }
        try? remove()
    }

    /// Removes the SQLite catalog at `path` and its files, unless another process has it open
    /// (a server started on it meanwhile): true when it did.
    static func removeFiles(at path: String) -> Bool {
        guard !SQLiteStore.isOpenInAnotherProcess(path) else { return false }
        for suffix in SQLiteStore.fileSuffixes { unlink(path + suffix) }
        return true
    }

    /// Imports rows already parsed, upserted by key in one transaction.
    public func importItems(_ rows: [ImportRow]) throws(StoreError) -> ImportSummary {
        for row in rows { try Importer.check(row, longestKey: store.longestKey) }
        let lock = try store.lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        do {
            return try store.importItems(rows, importedAt: Timestamps.now())
        } catch {
            throw Importer.namingFirstLine(error) { body throws(StoreError) in for row in rows { try body(row) } }
        }
    }

    /// Rewrites a PostgreSQL catalog's items in `order` (CLUSTER, then ANALYZE), so that the
    /// items of a page of a layout in that order lie together and a page that is not cached
    /// reads a few pages of the table instead of one per item; false, doing nothing, on SQLite.
    /// Not while a scan or import runs (`StoreError.busy`, as for a second import); reads of the
    /// items wait while it runs (about a minute at 10,000,000 items: a server's may give up
    /// after 30 s). The items, their ids and the generation stay as they were.
    public func clusterItems(order: ItemOrder = .date) throws(StoreError) -> Bool {
        try store.clusterItems(order: order)
    }

    // MARK: Reading

    /// Items in `order`, skipping `offset`, at most `limit` (nil: all).
    public func items(order: ItemOrder = .date, limit: Int? = nil, offset: Int = 0) throws(StoreError) -> [ItemRow] {
        try store.items(order: order, limit: limit, offset: offset)
    }

    /// The same items handed to `body` one at a time as they are read, from one snapshot,
    /// never all held at once: for listing a catalog of any size in bounded memory. The read
    /// stays open while `body` runs (a slow consumer keeps SQLite from checkpointing its WAL
    /// meanwhile, or holds a PostgreSQL snapshot), and `body` must not call the catalog.
    public func forEachItem(order: ItemOrder = .date, limit: Int? = nil, offset: Int = 0,
                            _ body: (ItemRow) -> Void) throws(StoreError) {
        try store.forEachItem(order: order, limit: limit, offset: offset, body)
    }

    /// One item by id, or nil.
    public func item(id: Int64) throws(StoreError) -> ItemRow? {
        try store.item(id: id)
    }

    /// Files that could not be read, and why.
    public func fileErrors() throws(StoreError) -> [FileError] {
        try store.fileErrors()
    }

    public func stats() throws(StoreError) -> CatalogStats {
        try store.stats()
    }

    /// The origins (`https://host[:port]`) imported items' web addresses point to, at most
    /// `limit`, sorted: where a gallery loads their images from.
    public func webOrigins(limit: Int) throws(StoreError) -> [String] {
        try store.webOrigins(limit: limit)
    }

    // MARK: Pages and layouts

    /// What the viewport of `request` shows, with frames. The first page of a configuration
    /// computes and stores its layout; later pages read only the windows they need.
    /// Throws `PageError`, `StoreError`.
    public func page(_ request: PageRequest) throws -> Page {
        request.clipped(try Pager.page(store: store, request: request)!)
    }

    /// `page(_:)`, storing a layout it computes once it is computed, not while (see
    /// `precompute`): for a server, whose other threads use the stored layouts meanwhile.
    package func page(_ request: PageRequest, storingWhileComputing: Bool) throws -> Page {
        request.clipped(try Pager.page(store: store, request: request, storingWhileComputing: storingWhileComputing)!)
    }

    /// The page of `request`; with `computing: false`, nil instead of computing a layout that is
    /// not stored fresh (a server computes it once for all the requests that wait for it).
    public func page(_ request: PageRequest, computing: Bool) throws -> Page? {
        try Pager.page(store: store, request: request, computing: computing).map(request.clipped)
    }

    /// The layout of `configuration` computed for the catalog as it is, to page from while it
    /// is stored (`storeLayout(_:)`): what a server does so that the first page of a configuration
    /// waits for the compute alone. Nil when a fresh one is stored already.
    /// Throws `PageError`, `StoreError`.
    package func computeLayout(_ configuration: LayoutConfiguration) throws -> ComputedLayout? {
        try Pager.computeUnstored(store: store, configuration: configuration)
    }

    /// Whether a layout of `configuration` is stored for the catalog's generation, in a format
    /// this build reads.
    package func isStoredFresh(_ configuration: LayoutConfiguration) throws -> Bool {
        try Pager.isStoredFresh(store: store, configuration: configuration)
    }

    /// The page of `request` from a layout computed and maybe not stored yet; nil when the
    /// catalog has moved on from the layout's generation, or `request` is of another
    /// configuration. Reads only the items' keys (and, for `--item`, the item's position).
    package func page(_ request: PageRequest, from layout: ComputedLayout) throws -> Page? {
        try Pager.page(store: store, request: request, from: layout).map(request.clipped)
    }

    /// Stores a computed layout; false when the store stored nothing (the catalog moved on, the
    /// SQLite layout file stayed busy with readers, or another process replaced or dropped the
    /// layout as it was stored), which a later request computes again.
    @discardableResult
    package func storeLayout(_ layout: ComputedLayout) throws -> Bool {
        try Pager.save(layout.computed, store: store, key: layout.configuration.key, order: layout.configuration.order) == .stored
    }

    /// Makes sure a fresh layout of `configuration` is stored; says whether it was already.
    public func precompute(_ configuration: LayoutConfiguration) throws -> (layout: StoredLayout, source: Page.Source, storeSeconds: Double) {
        try Pager.precompute(store: store, configuration: configuration)
    }

    /// Every section of the layout of `configuration` (computing and storing it if needed):
    /// index, title, first item, item count, header y and height. Empty without sections.
    public func sections(_ configuration: LayoutConfiguration) throws -> SectionList {
        try Pager.sections(store: store, configuration: configuration)
    }

    /// `sections(_:)`, storing a layout it computes once computed when `storingWhileComputing` is false.
    package func sections(_ configuration: LayoutConfiguration, storingWhileComputing: Bool) throws -> SectionList {
        try Pager.sections(store: store, configuration: configuration, storingWhileComputing: storingWhileComputing)
    }

    /// Where a carousel fling proposed to stop at `proposed` (along x) should stop so that one
    /// item is centred in a viewport of the configuration's width; nil for an empty catalog.
    /// Throws `PageError.notACarousel` for other styles.
    public func snap(_ configuration: LayoutConfiguration, proposed: Double, velocity: Double = 0) throws -> SnapTarget? {
        try Pager.snap(store: store, configuration: configuration, proposed: proposed, velocity: velocity)
    }

    /// `snap`, storing a layout it computes once computed when `storingWhileComputing` is false.
    package func snap(_ configuration: LayoutConfiguration, proposed: Double, velocity: Double, storingWhileComputing: Bool) throws -> SnapTarget? {
        try Pager.snap(store: store, configuration: configuration, proposed: proposed, velocity: velocity,
                       storingWhileComputing: storingWhileComputing)
    }

    /// Stored layouts, most recently used first.
    public func layouts() throws(StoreError) -> [StoredLayout] {
        try store.layouts()
    }

    /// Removes every stored layout (they are computed again on their next page); returns how many.
    @discardableResult
    public func dropLayouts() throws(StoreError) -> Int {
        try store.dropLayouts()
    }

    /// Removes the stored layout of `configuration`; returns whether there was one.
    @discardableResult
    public func dropLayout(_ configuration: LayoutConfiguration) throws(StoreError) -> Bool {
        try store.dropLayout(configuration: configuration.key)
    }

    /// Bytes of stored layouts the catalog keeps (1 GiB unless set): storing a layout past it
    /// removes the least recently used others. The layout just stored always stays.
    public func layoutBudget() throws(StoreError) -> Int64 {
        try store.layoutBudget()
    }

    /// Sets the layout budget, removing least recently used layouts past it (every one for 0).
    public func setLayoutBudget(_ bytes: Int64) throws(StoreError) {
        // The budget is the catalog's to write: not while a scan or an import holds it, which
        // on SQLite failed after ten seconds with "database is locked".
        let lock = try store.lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        try store.setLayoutBudget(bytes)
    }
}
