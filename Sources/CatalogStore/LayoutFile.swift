import CatalogModel
import Foundation
import GRDB

/// The catalog's stored layouts live in a file of their own beside it, `<catalog>.layouts`
/// (schema: Migrations/layouts/). The pool's readers attach it read-only as `layout_store`, so a
/// snapshot reads layouts like any table (queries name `layouts` and `layout_segments` without
/// a schema: the catalog itself has none since Migrations/0012). Writes go through a connection
/// of their own, never through the catalog's writer: the catalog's write transactions (scan
/// batches, imports) never wait on the layout file, nor its readers on them.
///
/// Why a second file: a layout is a cache of what the order data computes, and a large one is
/// written whole (200 MB at 10,000,000 items). Through the catalog's WAL it went out in 4 KiB
/// frames, a header and a page each, and the checkpoint copied every page again. This file
/// uses 64 KiB pages and a rollback journal: new pages are written once, and only the few
/// pages a change overwrites go to the journal. A commit takes the file's exclusive lock, so
/// pages of stored layouts wait for it (a moment) instead of reading beside it, which a cache
/// can afford. Layouts carry the generation they were computed at, and a snapshot uses one
/// only at its own generation, so the two files need not commit together.
///
/// Its commits do not wait for the disk (`synchronous = OFF`) where that is safe to find out
/// later (`claim`): the flush of a 23 MB layout took 33 ms of a 134 ms first page at 1,000,000
/// items. A process that dies, however it dies, loses nothing by it (the kernel still writes
/// what it was given, and a journal left behind is rolled back); only the machine stopping can
/// leave the file torn, on a disk that stays while it runs (`UnsyncedWrites`). So its unsynced
/// writes happen under a stamp of the boot they happen in, committed to disk first, and a file
/// found with another stamp is made empty, in place, when the catalog opens.
enum LayoutFile {
    /// How long the file's connection waits for readers to let go. SQLite's own timeout counts
    /// per statement, and a store larger than the page cache needs the file's exclusive lock at
    /// every statement that spills a page: it would wait again at each one, for as long as a
    /// reader holds the file (a 3 MB store beside a reader of 40 s took 39 s). A write instead
    /// counts all its waits against one budget (`within`): the time it spent waiting, summed, not
    /// the time since it began (a store in pieces waits at each piece's commit, and the writing
    /// between them does not count). Outside one, a statement waits up to `busySeconds`, as
    /// SQLite's timeout would.
    final class Wait: @unchecked Sendable {
        private let lock = NSLock()
        /// What is left of the budget of the write under way (`within`), if any.
        private var budget: Duration?
        private var statementStart = ContinuousClock.now
        private var lastTry = ContinuousClock.now
        /// The budgets of a layout's store and of the cleanup after a store that failed.
        private var budgets = (store: Duration.seconds(LayoutFile.busySeconds), cleanup: Duration.seconds(LayoutFile.cleanupSeconds))

        var storeBudget: Duration { lock.withLock { budgets.store } }
        var cleanupBudget: Duration { lock.withLock { budgets.cleanup } }

        /// Sets the budgets of a store and of its cleanup (tests, which cannot wait 10 s).
        func setBudgets(store: Duration, cleanup: Duration) {
            lock.withLock { budgets = (store, cleanup) }
        }

        /// Runs `body` with every wait in it counted against one `budget`.
        /// Called on the connection's queue, so that writes of this process do not share one.
        func within<T>(_ budget: Duration, _ body: () throws -> T) rethrows -> T {
            let outer = lock.withLock { () -> Duration? in
                defer { self.budget = budget }
                return self.budget
            }
            defer { lock.withLock { self.budget = outer } }
            return try body()
        }

        /// Told of each wait with whether the connection tries again (tests).
        private var onWait: (@Sendable (_ again: Bool) -> Void)?

        /// Sets what is told of each wait (tests: a reader that lets go once a writer waited).
        func setOnWait(_ body: (@Sendable (_ again: Bool) -> Void)?) {
            lock.withLock { onWait = body }
        }

        /// SQLite's busy handler: whether to try again, after a few milliseconds.
        func retry(_ tries: Int) -> Bool {
            let now = ContinuousClock.now
            let (again, told) = lock.withLock { () -> (Bool, (@Sendable (Bool) -> Void)?) in
                if tries == 0 {
                    statementStart = now
                } else if let left = budget {
                    budget = left - (now - lastTry) // the sleep and the try since the last call
                }
                lastTry = now
                if let budget { return (budget > .zero, onWait) }
                return (now < statementStart + .seconds(LayoutFile.busySeconds), onWait)
            }
            told?(again)
            guard again else { return false }
            usleep(UInt32(min(tries + 1, 10) * 1000))
            return true
        }
    }

    /// How a store of a layout is cut into commits (SQLiteStore.saveLayout): each commit takes
    /// the file's exclusive lock, which new readers wait for, so a large layout goes in pieces.
    /// The piece size, and what runs after each commit, can be changed (tests).
    final class Pieces: @unchecked Sendable {
        /// Another writer replaced or removed the layout being stored (a store of the same
        /// configuration begun after it, `catalog layouts --drop`).
        struct Replaced: Error {
            /// Whether another row of the configuration took its place (a later store of it),
            /// or none did (`catalog layouts --drop`).
            let byAnotherStore: Bool
        }

        /// A row still marked by its writer this long after the store began (its `last_used_at`)
        /// was left by a store that stopped (a process killed mid-store; a store waits 10 s at
        /// most for readers, and writes a 10,000,000-item layout in a few tenths of a second): the next
        /// store removes it with its segments.
        static let abandonedSeconds = 600

        private let lock = NSLock()
        // Segment bytes a piece holds. Unsynced commits: half the connection's page cache
        // (`cacheKiB`), so a piece never spills and takes the exclusive lock only to commit
        // (pieces of 1 to 4 MiB, with a cache twice as large, stored a 10,000,000-item layout in
        // the same time). A commit that waits for the disk syncs the file and its journal:
        // fewer, larger pieces.
        private var unsyncedBytes = 1 << 20
        private var syncedBytes = 32 << 20
        private var afterCommit: (@Sendable () -> Void)?

        init() {}

        func bytes(unsynced: Bool) -> Int { lock.withLock { unsynced ? unsyncedBytes : syncedBytes } }

        /// Cuts stores into pieces of `bytes` of segments, `afterCommit` run (on the file's
        /// connection, between two transactions) after each commit of a store.
        func set(bytes: Int, afterCommit: (@Sendable () -> Void)? = nil) {
            lock.withLock {
                (unsyncedBytes, syncedBytes) = (bytes, bytes)
                self.afterCommit = afterCommit
            }
        }

        func committed() { lock.withLock { afterCommit }?() }
    }

    /// The catalog's connections' busy handler: whether to try again after `tries` tries, after
    /// a sleep of 0.1 ms a try so far, 2 ms at most, for about `busySeconds` in all.
    @Sendable static func readerRetry(_ tries: Int) -> Bool {
        let sleep = min(tries + 1, 20) * 100 // µs
        let limit = 20 + busySeconds * 1_000_000 / 2_000 // tries: the first 20 take 21 ms together
        guard tries < limit else { return false }
        usleep(UInt32(sleep))
        return true
    }

    static let schema = "layout_store"
    static let pageSize = 65_536
    /// Each connection's cache of the file's pages. Small: reads go through the memory map, and
    /// a large store spills its pages to the file as it goes rather than holding all of them
    /// (storing a 10M-item layout: 0.28 s with 2 MiB or 16 MiB, 0.37 s with the catalog's 256 MiB;
    /// at 1M, 2 MiB spares the 3,500 page faults of filling the larger cache).
    static let cacheKiB = 2_048
    /// How long a write waits for readers to let go of the file.
    static let busySeconds = 10
    /// How long a store that failed waits to remove the pieces it committed.
    static let cleanupSeconds = 2

    static func path(ofCatalog path: String) -> String { path + ".layouts" }

    /// Opens the connection that writes the file, creating it, its waits for readers counted
    /// by `wait`, and claims the file for this boot (`claim`). A file SQLite cannot even open
    /// (its first page damaged, or some other file) is removed and made again.
    static func open(catalogPath: String, wait: Wait) throws -> DatabaseQueue {
        let path = path(ofCatalog: catalogPath)
        let boot = UnsyncedWrites.bootMark()
        let unsynced = UnsyncedWrites.staysAttached(folder: FilePath.folder(of: path))
        var configuration = Configuration()
        configuration.busyMode = .callback { wait.retry($0) }
        configuration.prepareDatabase { db in
            // The page size takes effect only on a new, empty file; the journal mode is set in
            // case something else made the file WAL.
            try db.execute(sql: "PRAGMA page_size = \(pageSize)")
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
            try db.execute(sql: "PRAGMA mmap_size = \(SQLiteStore.mmapBytes)")
        }
        func opened() throws -> DatabaseQueue {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            do {
                try claim(queue, boot: boot, unsynced: unsynced, wait: wait)
                return queue
            } catch {
                try? queue.close() // before the lock is let go: see below
                throw error
            }
        }
        do {
            // Shared: no other opening replaces the file (below) while this one has it open. A
            // lock file this process can neither make nor read (a folder it may not write, holding
            // no lock file yet) leaves it opening the file unlocked, as before there was one.
            let lock = try? WriteLock(catalogPath: path, wait: true, shared: true)
            defer { withExtendedLifetime(lock) {} }
            return try opened()
        } catch let error where isDamaged(error) {
            // Several processes may find it so at once: one at a time, under a lock of its own
            // (`<catalog>.layouts.lock`), each opens it again and replaces it only if it is still
            // unreadable, so none replaces a file another has just made and opened. Exclusive,
            // so no other opening still has the removed file open: its connection would take the
            // new file's journal (a path) for one left on the old file by a writer that died
            // (the old file's locks are free) and roll it back or delete it, under a transaction
            // of the new file (seen as "disk I/O error" on its commit). Removed, not truncated: a
            // process that mapped the file before it was damaged keeps its pages (a truncated
            // file's would fault). A process that had the file open before its first page was
            // damaged (a disk error while it ran) still writes to the removed one: a known limit
            // of replacing a file SQLite cannot read.
            let lock = try WriteLock(catalogPath: path, wait: true)
            defer { withExtendedLifetime(lock) {} }
            do {
                return try opened()
            } catch let error where isDamaged(error) {
                for suffix in ["-journal", ""] { try? FileManager.default.removeItem(atPath: path + suffix) }
                return try opened()
            }
        }
    }

    /// Checks the file's mark (`user_version`) against this boot, and lets the file's commits
    /// skip waiting for the disk (`synchronous = OFF`) when `unsynced` (`UnsyncedWrites`: a disk
    /// that stays while the machine runs). The mark is 0 for a new file, or one only ever written
    /// by commits that waited, and otherwise the boot (`boot`, a hash of its id) that unsynced
    /// writes happened in. Any other mark means writes that may not all have reached the disk
    /// before the machine went down: the file is made empty in place (`reset`), torn pages and
    /// all, by every process, whether it may write unsynced itself or not; without a boot id
    /// (nil) any mark but 0 is such a mark. The mark of this boot is committed with
    /// `synchronous = EXTRA` (the journal's removal synced too) before any write that does not
    /// wait, so after a crash the file's mark is never that of the boot that follows. A file a
    /// newer build has migrated is left untouched for `prepare` to refuse. Read first: opening a
    /// file already checked in this boot writes nothing.
    static func claim(_ queue: DatabaseQueue, boot: Int32?, unsynced: Bool, wait: Wait) throws {
        let current = unsynced ? boot : nil // the mark this process writes under
        let found = try queue.read(mark) // the first page only
        let stale = found != 0 && found != boot
        if stale || (found == 0 && current != nil) {
            // Torn pages past the first do not count: the reset below replaces them.
            let known = Set(EmbeddedLayoutMigrations.all.map(\.id))
            let newer = try? queue.read { db in
                try db.tableExists("migrations") && !Set(String.fetchAll(db, sql: "SELECT identifier FROM migrations")).isSubset(of: known)
            }
            if newer == true { return }
            do {
                try durably(queue, wait: wait) { db in
                    if stale {
                        let again = try mark(db) // another process may have reset it meanwhile
                        // Marked with this boot even by a process that waits: another may have
                        // reset it meanwhile and be writing unsynced under that mark.
                        if again != 0 && again != boot { try reset(db, mark: boot ?? 0) }
                    } else if let current {
                        try db.inTransaction(.immediate) {
                            guard try mark(db) == 0 else { return .rollback } // another process marked it
                            try db.execute(sql: "PRAGMA user_version = \(current)")
                            return .commit
                        }
                    }
                }
            } catch where !stale && isBusy(error) {
                return // the file stays as it is, and this process's commits wait for the disk
            }
        }
        guard let current, try queue.read(mark) == current else { return }
        try queue.inDatabase { try $0.execute(sql: "PRAGMA synchronous = OFF") }
    }

    /// The file's `user_version`: the stamp its unsynced writes happened under, or 0.
    static func mark(_ db: Database) throws -> Int32 { try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }

    /// Makes the file an empty database marked `mark`, in place: an empty, migrated database
    /// copied over it with SQLite's backup, which parses nothing of the file but its first page
    /// (the pages it overwrites are only copied to the journal), so torn pages elsewhere cannot
    /// stop it, and every process that has the file open sees the new one (the file is not
    /// replaced, so none keeps writing to a removed one). One commit, with the connection's
    /// synchronous setting.
    static func reset(_ db: Database, mark: Int32) throws {
        let empty = try DatabaseQueue()
        try empty.inDatabase { source in
            try source.execute(sql: "PRAGMA page_size = \(pageSize)")
            try source.execute(sql: "PRAGMA user_version = \(mark)")
            // Migrated already: no process that has the file open finds it without its tables.
            for migration in EmbeddedLayoutMigrations.all { try apply(migration, source) }
            try source.backup(to: db)
        }
    }

    /// Runs a migration of the file and records it.
    static func apply(_ migration: (id: String, sql: String), _ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS migrations (identifier TEXT PRIMARY KEY)")
        try db.execute(sql: migration.sql)
        try db.execute(sql: "INSERT INTO migrations (identifier) VALUES (?)", arguments: [migration.id])
    }

    /// Empties a file that turned out damaged after it was opened (`prepare` read a torn page)
    /// in place, committed waiting for the disk, marked with this boot (other processes may be
    /// writing unsynced under that mark; a file only written synced loses nothing by it but
    /// being emptied after the next restart).
    static func remake(_ queue: DatabaseQueue, catalogPath: String, wait: Wait) throws {
        let mark = UnsyncedWrites.bootMark() ?? 0
        try durably(queue, wait: wait) { db in try reset(db, mark: mark) }
    }

    /// Runs `body` on the file's connection with its commits waiting for the disk, the
    /// journal's removal included (`synchronous = EXTRA`), and all its waits for readers counted
    /// against one deadline; the connection's setting is put back after.
    static func durably(_ queue: DatabaseQueue, wait: Wait, _ body: (Database) throws -> Void) throws {
        try queue.inDatabase { db in
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 1
            try db.execute(sql: "PRAGMA synchronous = EXTRA")
            defer { try? db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
            try wait.within(.seconds(busySeconds)) { try body(db) }
        }
    }

    /// Whether SQLite found the file damaged or not a database.
    static func isDamaged(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    /// Attaches the file, read-only, to one of the pool's readers.
    static func attach(_ db: Database, catalogPath: String) throws {
        try db.execute(sql: "ATTACH DATABASE ? AS \(schema)", arguments: [path(ofCatalog: catalogPath)])
        try db.execute(sql: "PRAGMA \(schema).cache_size = -\(cacheKiB)")
    }

    /// Applies the file's migrations it lacks, each in its own transaction; empties the file when
    /// it was made for another catalog (catalog.layout_file_id), and removes layouts of
    /// generations the catalog has not reached (a backup restored, or the catalog's last commits
    /// lost with its WAL): their generations will be given to other items. `catalog` reads the
    /// catalog's id and generation; it is read again under the file's write lock, since another
    /// process may move the catalog on and store a layout meanwhile. Reads first, so opening a
    /// catalog whose layout file is current writes nothing to it.
    /// The layout file's migrations applied so far.
    private static func applied(_ db: Database) throws -> Set<String> {
        guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'migrations'") ?? false else { return [] }
        return try Set(String.fetchAll(db, sql: "SELECT identifier FROM migrations"))
    }

    /// Throws `newerVersion` if a newer build wrote the layout file: checked before the catalog
    /// beside it is migrated, so that a refused opening leaves both as they were. A damaged
    /// file is left to `prepare`, which makes it empty where it is.
    static func refuseNewer(_ queue: DatabaseQueue, catalogPath: String) throws {
        let found: Set<String>
        do { found = try queue.read(applied) } catch where isDamaged(error) { return }
        let unknown = found.subtracting(EmbeddedLayoutMigrations.all.map(\.id)).sorted()
        if !unknown.isEmpty { throw StoreError.newerVersion(path: path(ofCatalog: catalogPath), unknownMigrations: unknown) }
    }

    static func prepare(_ queue: DatabaseQueue, catalogPath: String, catalog: () throws -> (id: String, generation: Int64)) throws {
        let migrations = EmbeddedLayoutMigrations.all
        let known = Set(migrations.map(\.id))
        func owned(_ db: Database, by id: String) throws -> Bool {
            try Bool.fetchOne(db, sql: "SELECT (SELECT catalog_id FROM owner LIMIT 1) IS ?", arguments: [id]) ?? false
        }
        func ahead(_ db: Database, of generation: Int64) throws -> Bool {
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM layouts WHERE generation > ?)", arguments: [generation]) ?? false
        }
        let (found, isCurrent) = try queue.read { db in
            let found = try applied(db)
            guard found.isSuperset(of: known) else { return (found, false) }
            let (id, generation) = try catalog()
            return (found, try owned(db, by: id) && !ahead(db, of: generation))
        }
        let unknown = found.subtracting(known).sorted()
        if !unknown.isEmpty { throw StoreError.newerVersion(path: path(ofCatalog: catalogPath), unknownMigrations: unknown) }
        if isCurrent { return }
        for migration in migrations {
            try queue.inTransaction(.immediate) { db in
                guard try !applied(db).contains(migration.id) else { return .commit } // another process was first
                try apply(migration, db)
                return .commit
            }
        }
        try queue.inTransaction(.immediate) { db in
            let (id, generation) = try catalog()
            if try owned(db, by: id) {
                try db.execute(sql: "DELETE FROM layouts WHERE generation > ?", arguments: [generation])
            } else {
                try db.execute(sql: "DELETE FROM layouts")
                try db.execute(sql: "DELETE FROM layout_segments")
                try db.execute(sql: "DELETE FROM owner")
                try db.execute(sql: "INSERT INTO owner (catalog_id) VALUES (?)", arguments: [id])
            }
            return .commit
        }
    }

    /// A reader that finds the journal of a writer that died mid-commit cannot roll it back (the
    /// pool's readers are read-only): SQLite answers SQLITE_READONLY_ROLLBACK.
    static func needsRollback(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.extendedResultCode == .SQLITE_READONLY_ROLLBACK
    }

    /// Rolls such a journal back through the file's own connection, which may write: reading
    /// the file is enough.
    static func rollBack(_ queue: DatabaseQueue) throws {
        try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM owner") }
    }

    /// Whether a write could not get the file's lock in time (readers held it): a layout not
    /// stored this time is stored by a later page.
    static func isBusy(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }
}
