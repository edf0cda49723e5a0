package import Foundation

/// The store seam: everything CatalogKit needs from where a catalog is kept, in the catalog's
/// own words (items, orders, files, layouts), never in SQL. The SQLite store implements it;
/// a PostgreSQL store is a second type beside it, not an edit of every caller.
///
/// Every read sees one committed state and never waits for a writer; writes that change items
/// increment the generation in the same transaction. Methods throw `StoreError`.
package typealias CatalogBackend = CatalogReading & ScanWriting & ImportWriting & LayoutStoring & ItemClustering

/// Reads: each call is one consistent snapshot.
package protocol CatalogReading: Sendable {
    /// Where the catalog is, as the user named it (a file path for SQLite).
    var location: String { get }
    /// How many reads a server should run at once: one per core when a read works the CPU, more
    /// when it mostly waits for another process's answers.
    var readConcurrency: Int { get }
    /// The longest key (a scanned file's path, an import's key) the store can index, in bytes;
    /// nil when there is no limit short of the store's own (SQLite's 1 GB).
    var longestKey: Int? { get }
    /// The files the store keeps on this machine's disks (an SQLite catalog's file, its
    /// journals, locks and layouts file), which a scan of a folder holding them passes over;
    /// none for a database elsewhere.
    var ownFiles: Set<Data> { get }
    /// Incremented by every change to the items.
    func generation() throws(StoreError) -> Int64
    /// What tells this catalog from another made at its place (whose generations count from 1
    /// again): when it was made, to the second, and on SQLite its layout file's random id (the
    /// server's ETags).
    func identity() throws(StoreError) -> String
    /// Both at once (one read): what a server revalidates its memory with, whose cached pages
    /// are another catalog's when the identity moved (a database dropped and made again).
    func generationAndIdentity() throws(StoreError) -> (generation: Int64, identity: String)
    /// Items in `order`, skipping `offset`, at most `limit` (nil: all).
    func items(order: ItemOrder, limit: Int?, offset: Int) throws(StoreError) -> [ItemRow]
    /// The same items handed to `body` one at a time as they are read, from one snapshot,
    /// never all held at once (`catalog list` of ten million items). The read stays open while
    /// `body` runs (an SQLite read transaction, which keeps the WAL from being checkpointed, or a
    /// PostgreSQL snapshot), and `body` must not call the store.
    func forEachItem(order: ItemOrder, limit: Int?, offset: Int, _ body: (ItemRow) -> Void) throws(StoreError)
    /// One item by id, or nil.
    func item(id: Int64) throws(StoreError) -> ItemRow?
    /// How many items there are.
    func itemCount() throws(StoreError) -> Int
    /// The file behind a scanned item as its last scan saw it, or nil (no such item, or an
    /// imported one).
    func file(ofItem id: Int64) throws(StoreError) -> ItemFile?
    /// The files behind scanned items with ids above `id`, by id, at most `limit`: a walk over
    /// every file of the catalog, a page at a time.
    func itemFiles(after id: Int64, limit: Int) throws(StoreError) -> [ItemFile]
    /// Files that failed, by path.
    func fileErrors() throws(StoreError) -> [FileError]
    /// How many files `fileErrors` would list.
    func failedFileCount() throws(StoreError) -> Int
    func stats() throws(StoreError) -> CatalogStats
    /// The origins (`https://host[:port]`) of imported items' web addresses, at most `limit`
    /// (a gallery's Content-Security-Policy lists them).
    func webOrigins(limit: Int) throws(StoreError) -> [String]
    /// Stored layouts, most recently used first.
    func layouts() throws(StoreError) -> [StoredLayout]
    /// A value that changes whenever a write may have been committed, by any process, and costs
    /// far less than a read (SQLite: the database and WAL files' sizes and times), with the time
    /// of the last change it saw (nanoseconds since 1970); nil when the store cannot tell, and
    /// every read must ask. File times are as coarse as the kernel's tick, so a reader trusts an
    /// unchanged stamp only once it has read the catalog well after that time.
    func changeStamp() -> (stamp: [Int64], lastChange: Int64)?
    /// The order `order` at generation `since` and now, from the change log; nil when the log
    /// no longer reaches back to `since`, or `since` is ahead of the catalog.
    func orderChange(since generation: Int64, order: ItemOrder) throws(StoreError) -> OrderChange?
    /// Runs `body` with one snapshot: everything it reads comes from the same committed state.
    /// The store's own errors become `StoreError`; the body's errors pass through.
    func withSnapshot<T: Sendable>(_ body: (any CatalogSnapshot) throws -> T) throws -> T
    /// For a server's page cache that already holds a stored layout's header: the windows
    /// `range` of layout `layoutID`, stored for `configuration`, each with the keys of the items
    /// `cells` finds in it, all as of `generation`; nil when the catalog has moved past
    /// `generation` or that layout is no longer the one stored, fresh, for `configuration`.
    /// The default reads them in one snapshot; a store may read them with fewer round trips.
    func storedWindows(configuration: String, layoutID: Int64, generation: Int64, range: ClosedRange<Int>,
                       cells: ([UInt8]) throws -> WindowCells) throws -> [StoredWindow]?
    /// What the operator of a server should know of the database's own settings, a line each;
    /// none when there is nothing to say (the default). PostgreSQL: buffers that hold little of
    /// the items.
    func servingNotes() throws(StoreError) -> [String]
}

extension CatalogReading {
    package func servingNotes() throws(StoreError) -> [String] { [] }

    package func storedWindows(configuration: String, layoutID: Int64, generation: Int64, range: ClosedRange<Int>,
                               cells: ([UInt8]) throws -> WindowCells) throws -> [StoredWindow]? {
        try withSnapshot { snapshot -> [StoredWindow]? in
            guard try snapshot.generation() == generation, let stored = try snapshot.layout(configuration: configuration),
                  stored.id == layoutID, stored.generation == generation else { return nil }
            return try snapshot.storedWindows(layoutID: layoutID, range: range, cells: cells)
        }
    }
}

extension CatalogSnapshot {
    /// The windows `range` of a layout, each with the keys of the items `cells` finds in it; nil
    /// when the layout does not have them all.
    package func storedWindows(layoutID: Int64, range: ClosedRange<Int>, cells: ([UInt8]) throws -> WindowCells) throws -> [StoredWindow]? {
        let blobs = try windows(layoutID: layoutID, range: range)
        guard blobs.count == range.count else { return nil }
        return try blobs.map { StoredWindow(bytes: $0, keys: try keys(ids: try cells($0).ids)) }
    }
}

/// What a page reads inside one snapshot. Valid only inside `withSnapshot`'s body.
package protocol CatalogSnapshot {
    func generation() throws -> Int64
    func layout(configuration: String) throws -> StoredLayout?
    /// The windows `range` of a layout, in order (missing windows are left out).
    func windows(layoutID: Int64, range: ClosedRange<Int>) throws -> [[UInt8]]
    /// Every window of a layout, in order.
    func allWindows(layoutID: Int64) throws -> [[UInt8]]
    /// The windows whose item index range covers `index`, in order.
    func windows(layoutID: Int64, holdingIndex index: Int) throws -> [[UInt8]]
    /// Keys (paths or import keys) of the given items.
    func keys(ids: [Int64]) throws -> [Int64: ItemKey]
    /// Items in `order` from `offset` on, with their display sizes: the input of a layout. Read
    /// from the order data when it is current, else from the items.
    func layoutInput(order: ItemOrder, offset: Int) throws -> [LayoutInputRow]
    /// The same rows handed to `body` a piece at a time, in order, after `reserve` is told how
    /// many there are: for a caller that turns them into its own values without holding every
    /// row as well (at 10,000,000 items, 240 MB less fresh memory).
    func forEachLayoutInput(order: ItemOrder, offset: Int, reserve: (Int) -> Void,
                            _ body: (UnsafeBufferPointer<LayoutInputRow>) throws -> Void) throws
    /// The same from the order data alone; nil when the order data is behind the items.
    func orderData(order: ItemOrder, offset: Int) throws -> [LayoutInputRow]?
    /// Where each section of `order` begins when consecutive items with the same year, month
    /// or parent folder form one (positions increasing from 0; keys as `SectionGrouping` says).
    func sectionRuns(order: ItemOrder, grouping: SectionGrouping) throws -> [SectionRun]
    /// The keys (paths or import keys) of the items at `positions` of `order`.
    func keys(atPositions positions: [Int], order: ItemOrder) throws -> [Int: Data]
    /// Whether the catalog changed since `generation` only by items added after the first
    /// `count` items of `order` (so a layout of those can be extended in place).
    func onlyAppended(since generation: Int64, count: Int, order: ItemOrder) throws -> Bool
    /// The items the change log says were updated (key, date or display size) or removed since
    /// `generation`, not those whose content alone changed (which moves nothing in a layout);
    /// nil when the log no longer reaches back to it.
    func loggedChanges(since generation: Int64) throws -> Set<Int64>?
    /// The position of item `id` in `order`, or nil if there is no such item.
    func index(ofItem id: Int64, order: ItemOrder) throws -> Int?
    /// Items in `order`, skipping `offset`, at most `limit` (nil: all).
    func items(order: ItemOrder, limit: Int?, offset: Int) throws -> [ItemRow]
    func itemCount() throws -> Int
}

/// Held while one scan or import writes; released when the last reference goes.
package protocol WriteLease: AnyObject, Sendable {}

/// What a scan writes.
package protocol ScanWriting: Sendable {
    /// Taken by every import (and, where the store has no finer lock, every scan); throws
    /// `StoreError.busy` if another process holds it.
    func lockForWriting() throws(StoreError) -> any WriteLease
    /// Taken by a scan of `roots` (absolute paths): where the store lets scans of different
    /// roots write at once (PostgreSQL), a lock per root, and no import meanwhile; elsewhere
    /// `lockForWriting()`. Throws `StoreError.busy` if a scan of one of them, or an import, holds it.
    func lockForScanning(roots: [Data]) throws(StoreError) -> any WriteLease
    /// The root's id, creating it on first use.
    func rootID(for path: Data) throws(StoreError) -> Int64
    /// The path of every root scanned so far.
    func rootPaths() throws(StoreError) -> [Data]
    /// Every file known under the folder `prefix` (which ends with "/").
    func knownFiles(under prefix: Data) throws(StoreError) -> [KnownFile]
    /// Writes file changes in one transaction; the generation is incremented once if any item changed.
    /// An image whose path is the key of an imported item is refused: stored as a failed file
    /// (`FileOutcome.importedKeyReason`), the imported item left as it is, as an import refuses
    /// a key that is a scanned file's path; `refused` counts them.
    func apply(_ changes: [FileChange], rootID: Int64) throws(StoreError) -> (added: Int, updated: Int, removed: Int, refused: Int)
    /// Removes files that are gone, and their items, in one transaction; returns the items removed.
    func remove(paths: [Data]) throws(StoreError) -> Int
    /// Files found at other paths, in one transaction that moves the generation once: each
    /// item keeps its id and takes the new path; true. An image moved onto an imported item's
    /// key is refused there as `apply` refuses it (its item goes, its file is stored as failed,
    /// the imported item stays); false.
    func move(_ moves: [FileMove]) throws(StoreError) -> [Bool]
    /// Records that a scan of the root ended, completely or not.
    func finishScan(rootID: Int64, complete: Bool) throws(StoreError)
    /// Brings the order data (each item order's ids and sizes, packed) up to the items: batches
    /// keep it only while that is cheap, and a scan calls this once at its end.
    func refreshOrderData() throws(StoreError)
}

extension ScanWriting {
    /// One writer at a time: the whole catalog's lock.
    package func lockForScanning(roots: [Data]) throws(StoreError) -> any WriteLease {
        try lockForWriting()
    }
}

/// What an import writes.
package protocol ImportWriting: Sendable {
    /// Upserts rows by key in one transaction, taking them batch by batch from `next` until it
    /// returns nil, so an import of any length holds one batch at a time: a refused row (a key
    /// seen twice, a scanned file's path), or an error thrown by `next`, leaves the catalog as
    /// it was. `committed` is called as soon as the transaction has committed (what follows it,
    /// such as dropping stale layouts, may take a while): an interruption from then on stops an
    /// import that is kept.
    func importItems(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String,
                     committed: () -> Void) throws(StoreError) -> ImportSummary
    /// Where opening the store made the catalog (a database that had no tables), makes it none
    /// again when nothing has been written to it and no other process uses it: what a refused
    /// import leaves. True when it did. False where the store has nothing to undo in itself (an
    /// SQLite catalog made by an import is a file its caller removes).
    func removeIfMadeAndUnwritten() -> Bool
}

extension ImportWriting {
    package func removeIfMadeAndUnwritten() -> Bool { false }

    /// Upserts `rows` by key in one transaction: a refused row leaves the catalog as it was.
    package func importItems(_ rows: [ImportRow], importedAt: String) throws(StoreError) -> ImportSummary {
        var pending: [ImportRow]? = rows
        return try importItems(from: { () throws(StoreError) -> [ImportRow]? in defer { pending = nil }; return pending },
                               importedAt: importedAt, committed: {})
    }

    /// The same, with nothing to call at the commit.
    package func importItems(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String) throws(StoreError) -> ImportSummary {
        try importItems(from: next, importedAt: importedAt, committed: {})
    }
}

/// Upkeep an operator runs now and then.
package protocol ItemClustering: Sendable {
    /// Rewrites the items in `order` where the store reads a page's items by where they lie
    /// (PostgreSQL's CLUSTER: a page's items, neighbours in the layout's order, then share a few
    /// pages of the table instead of one each), holding `lockForWriting()` meanwhile (`busy`
    /// while a scan or import holds it). False, taking no lock, where the store has nothing to
    /// do (SQLite reads them through its memory map).
    func clusterItems(order: ItemOrder) throws(StoreError) -> Bool
}

/// What storing a layout did.
package enum LayoutSave: Sendable, Equatable {
    /// The layout is stored.
    case stored
    /// Nothing stored: the catalog has moved on from the layout's generation.
    case catalogMovedOn
    /// Nothing stored: the stored layouts stayed busy with readers past the wait (SQLite's
    /// layout file).
    case busy
    /// Nothing stored: another store of the same configuration (another process) replaced the
    /// layout while it was being stored, and stores it instead (SQLite, which stores a layout in
    /// pieces: the one begun later), or stored its own first (PostgreSQL: the one begun first).
    case replaced
    /// Nothing stored: `catalog layouts --drop` (another process) removed the layout while it was
    /// being stored (SQLite).
    case dropped
    /// Nothing stored: the computation handing over the windows of a stream failed.
    case abandoned
}

/// Stored layouts.
package protocol LayoutStoring: Sendable {
    /// Stores a layout computed at `generation` with every one of its `windows`, in order, and
    /// their summary, replacing the one of the same configuration, then removes the least
    /// recently used others past the budget. With `replacing` (the id and generation of the
    /// stored layout it extends), the first `keeping` windows are as that layout stored them,
    /// and only what follows them is written; if that layout has changed since, the whole
    /// layout is written. Windows of a stream are written as its computation hands them over;
    /// if it fails, nothing is stored (`abandoned`). Returns whether it stored the layout, or
    /// why it stored nothing (``LayoutSave``).
    @discardableResult
    func saveLayout(configuration: String, order: ItemOrder, generation: Int64, windows: LayoutWindows,
                    replacing previous: (id: Int64, generation: Int64)?, keeping: Int) throws(StoreError) -> LayoutSave
    /// Removes every stored layout; returns how many.
    @discardableResult
    func dropLayouts() throws(StoreError) -> Int
    /// Removes the layout of one configuration; returns whether there was one.
    func dropLayout(configuration: String) throws(StoreError) -> Bool
    /// Bytes of stored layouts kept: storing one past it removes the least recently used others.
    func layoutBudget() throws(StoreError) -> Int64
    /// Sets the budget, removing least recently used layouts past it.
    func setLayoutBudget(_ bytes: Int64) throws(StoreError)
    /// Records that a layout served a page (at most once a minute).
    func touchLayout(id: Int64, lastUsedAt: String) throws(StoreError)
    /// Removes stale layouts that cannot be extended in place; returns how many.
    @discardableResult
    func pruneStaleLayouts() throws(StoreError) -> Int
}

extension CatalogSnapshot {
    /// All the rows at once, as `layoutInput` reads them: for a store without a cheaper way.
    package func forEachLayoutInput(order: ItemOrder, offset: Int, reserve: (Int) -> Void,
                                    _ body: (UnsafeBufferPointer<LayoutInputRow>) throws -> Void) throws {
        let rows = try layoutInput(order: order, offset: offset)
        reserve(rows.count)
        try rows.withUnsafeBufferPointer { try body($0) }
    }
}
