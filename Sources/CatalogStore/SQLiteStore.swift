package import CatalogModel
package import Foundation
import Synchronization
package import GRDB

/// The catalog's SQLite database: items, the files behind them, and stored layouts. The
/// SQLite side of the store seam (`CatalogBackend`).
///
/// Opened in WAL mode through a `DatabasePool`: readers (`list`, `page`) read a consistent
/// snapshot while a scan writes. The schema comes only from `Migrations/*.sql`, each applied
/// in its own transaction and recorded. A file that is not a catalog, or a catalog from a
/// newer version, is refused before anything is written to it.
package final class SQLiteStore: CatalogBackend {
    package let path: String
    package var location: String { path }
    /// The catalog's file itself, not a link to it (`--db` may name a link): where its lock
    /// and layouts file are, so that every process, through whichever name, shares them.
    package let filesPath: String
    /// The catalog file's device and inode once opened (`checkSameFile`).
    private let openedFile: (device: UInt64, inode: UInt64)
    package var ownFiles: Set<Data> { Set(Self.fileSuffixes.map { Data((filesPath + $0).utf8) }) }
    /// A read of a catalog in the page cache works the CPU: one per core (measured: a server
    /// with 4 threads of reads on 2 cores served 14-15 % fewer pages than with 2, with 8 20-25 %).
    package var readConcurrency: Int { ProcessInfo.processInfo.activeProcessorCount }
    package var longestKey: Int? { nil }
    /// What the names of the files kept for a catalog add to its path: the database, SQLite's
    /// journals, the write lock (WriteLock), the stored layouts' file (LayoutFile) and its own.
    package static let fileSuffixes = ["", "-wal", "-shm", "-journal", ".lock"].flatMap { [$0, ".layouts" + $0] }

    /// The id of the newest migration this build applies.
    package static var schemaVersion: String { CatalogMigrations.identifiers.last ?? "none" }
    package let pool: DatabasePool
    /// The connection that writes the stored layouts' file (LayoutFile); the pool reads it.
    let layoutQueue: DatabaseQueue
    /// How long `layoutQueue` waits for readers of the file (LayoutFile.Wait).
    let layoutWait: LayoutFile.Wait
    /// How a store of a layout is cut into commits (LayoutFile.Pieces).
    let layoutPieces = LayoutFile.Pieces()
    /// Stores taking the windows of a layout still being computed (a stream): each holds
    /// `layoutQueue` until that computation ends.
    let streamedStores = Atomic<Int>(0)
    /// How many stores took a stream since the store was opened: what tests see of the choice.
    let streamedStoresBegun = Atomic<Int>(0)
    /// The most memory an import into an empty catalog takes to make the order data from its
    /// rows (ImportedOrder): 1,000,000 rows of 12-byte keys and 20-byte dates take 96 MB (52 a
    /// row noted, 44 for its places in the runs and its entries in the chunks). Past it the
    /// order data is read back from the items. Tests lower it.
    let importOrderBytes = Atomic<Int>(OrderChunking.importBudget)
    /// How many imports made their order data from their rows: what tests see of the choice.
    let importsWithOrderDataFromRows = Atomic<Int>(0)
    /// Each connection's page cache, and the file size it maps into memory.
    static let cacheKiB = 262_144
    static let mmapBytes = 1 << 30
    /// The page cache of an import's connection while it imports (SQLiteStore+Importing).
    static let importCacheKiB = 131_072
    /// The page cache, and so the sorter's run size, and the sorter's threads while an import
    /// into an empty catalog builds its date index (SQLiteStore+Importing).
    static let importSortKiB = 4_096
    static let importSortThreads = 2
    /// Rows an import upserts per statement (SQLiteStore+Importing).
    static let importStatementRows = 64
    /// The size a WAL is cut back to when it starts over (`journal_size_limit`): 64 MiB, the
    /// size of `wal_autocheckpoint`'s 16,384 pages of 4 KiB.
    static let walSizeLimit = 64 << 20
    /// An import writes its dirty pages to the WAL every this many rows (SQLiteStore+Importing).
    package static let importFlushRows = 131_072

    /// Opens (creating it and its folder if needed) the catalog at `path`. Without `create`, an
    /// SQLite file with no tables (an empty database, which the catalog's tables would be made
    /// in) is refused as no catalog: what the commands that only read open.
    package static func open(at path: String, create: Bool = true) throws(StoreError) -> SQLiteStore {
        let url = URL(fileURLWithPath: path)
        var info = stat()
        let exists = stat(path, &info) == 0
        if !exists, errno != ENOENT {
            throw .cannotOpen(path: path, reason: errno == ENOTDIR ? "a part of the path is a file, not a folder" : SystemError.text())
        }
        if exists, info.st_mode & S_IFMT == S_IFDIR {
            throw .cannotOpen(path: path, reason: "it is a folder; --db names the catalog's file, such as \(path.hasSuffix("/") ? path : path + "/")catalog.sqlite")
        }
        // A device, a FIFO or a socket (`--db /dev/null`): SQLite and the layout file made their
        // files beside it, in /dev too, before SQLite found it no database.
        if exists, info.st_mode & S_IFMT != S_IFREG {
            let kind = switch info.st_mode & S_IFMT {
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFIFO: "a FIFO (a named pipe)"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
            throw .cannotOpen(path: path, reason: "it is \(kind), not a catalog's file; it was not modified, and nothing was made beside it")
        }
        // A link is followed to the file (a new catalog is made at `path` itself).
        let files = exists ? resolved(path) : path
        if exists {
            // Before SQLite (even the look below, read-only) or the layout file make anything
            // beside it: files made by a user who may not write the catalog would be theirs, and
            // the owner could no longer open it.
            if let reason = wouldLeaveFilesBeside(files) { throw .cannotOpen(path: path, reason: reason) }
            try checkIsCatalog(path, create: create)
        } else {
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .cannotOpen(path: path, reason: "cannot create its folder: \(error.localizedDescription)")
            }
        }
        do {
            var configuration = Configuration()
            // Retries soon and often: a store of a layout commits a piece every millisecond or
            // so (LayoutFile.Pieces), and a reader of the layout file that slept as long as
            // SQLite's own timeout does between its tries (up to 100 ms, rising from the first
            // tries) would keep missing the moments between two commits.
            configuration.busyMode = .callback(LayoutFile.readerRetry)
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // A scan batch or a million-line import touches pages all over the item and
                // index B-trees: with SQLite's default 2 MB cache they spill to the WAL mid-
                // transaction and are read back. The cache grows only as pages are used.
                try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
                try db.execute(sql: "PRAGMA mmap_size = \(mmapBytes)")
                // Each checkpoint syncs the WAL and the database file: a scan that writes 100 MB
                // would otherwise sync every 4 MB.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 16384")
                // A WAL grown past this while a reader held its snapshot (a long `list`, a big
                // import beside a server) is cut back to it when it next starts over, instead of
                // keeping its largest size on the disk for as long as any process has it open.
                try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
                // The stored layouts' file (LayoutFile), for the readers only: the catalog's
                // writer never touches it, so its transactions never wait on the file's lock.
                if db.configuration.readonly { try LayoutFile.attach(db, catalogPath: files) }
            }
            let layoutWait = LayoutFile.Wait()
            let layoutQueue = try LayoutFile.open(catalogPath: files, wait: layoutWait) // creates the file the readers attach
            for suffix in Self.fileSuffixes.dropFirst() { WriteLock.giveToOwner(files + suffix, of: files) }
            try LayoutFile.refuseNewer(layoutQueue, catalogPath: files)
            let pool = try DatabasePool(path: path, configuration: configuration)
            let migrator = CatalogMigrations.migrator
            // Migrate only when needed: a reader opening the catalog during a scan never waits
            // for the scan's write transaction.
            if try !pool.read({ try migrator.hasCompletedMigrations($0) }) {
                try CatalogMigrations.migrate(pool)
            }
            // A migration that changes the order data's format marks it stale (-1): rebuild it
            // now, once, rather than lay out from item rows until the next scan or import; and
            // at any later opening, if the first was cut short after its migrations. Only when
            // no scan or import holds the catalog (it rebuilds the order data as it ends), and
            // without holding the writers' lock meanwhile (a scan starting then would be refused
            // as busy: it waits for this transaction instead). A rebuild that fails (a full disk)
            // leaves the order data stale and the opening goes on: pages come from item rows.
            if try pool.read({ try OrderData.isStale($0) }), (try? WriteLock(catalogPath: files, wait: false)) != nil {
                try? pool.write { db in _ = try Self.unmapped(db) { try OrderData.refresh(db, force: true) } }
            }
            let catalog = {
                try pool.read { db in
                    (try String.fetchOne(db, sql: "SELECT layout_file_id FROM catalog") ?? "", try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0)
                }
            }
            do {
                try LayoutFile.prepare(layoutQueue, catalogPath: files, catalog: catalog)
            } catch where LayoutFile.isDamaged(error) {
                // A torn page past the first, in the layout file (not the catalog, which `catalog`
                // reads too: then the error stands): a lost cache, made empty where it is.
                _ = try catalog()
                try LayoutFile.remake(layoutQueue, catalogPath: files, wait: layoutWait)
                try LayoutFile.prepare(layoutQueue, catalogPath: files, catalog: catalog)
            }
            return SQLiteStore(path: path, filesPath: files, pool: pool, layoutQueue: layoutQueue, layoutWait: layoutWait)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            // Making the file of stored layouts (which the check at opening did not), or bringing
            // the catalog to this version's schema: with no room beside it, said as the opening's.
            throw .full(path: path, reason: roomBeside(files) < roomToOpen ? fullAtOpeningReason(files) : fullReason(path))
        } catch let error as DatabaseError where isFullAtOpening(error, files: files) {
            throw .full(path: path, reason: fullAtOpeningReason(files))
        } catch let error as DatabaseError {
            throw .cannotOpen(path: path, reason: unwritable(path) ?? error.message ?? error.description)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    private init(path: String, filesPath: String, pool: DatabasePool, layoutQueue: DatabaseQueue, layoutWait: LayoutFile.Wait) {
        self.path = path
        // A new catalog's file exists now: its whole path, as a scan of a folder holding it
        // names its files (`--db cat.sqlite` given relative, the first time).
        self.filesPath = Self.resolved(filesPath)
        var info = stat()
        openedFile = stat(self.filesPath, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino)) : (0, 0)
        self.pool = pool
        self.layoutQueue = layoutQueue
        self.layoutWait = layoutWait
    }

    /// `path` with its links followed and made absolute (`realpath`), or as it is if that fails.
    private static func resolved(_ path: String) -> String {
        realpath(path, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) } ?? path
    }

    /// Refuses, without writing anything, a file that is not a catalog or is a newer one.
    private static func checkIsCatalog(_ path: String, create: Bool) throws(StoreError) {
        // Only SQLite opens the file: closing any other descriptor of it would drop the POSIX
        // locks this process's open connections hold on it (a second Catalog.open in one process).
        guard access(path, R_OK) == 0 else { throw .cannotOpen(path: path, reason: "permission denied") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size == 0 { return } // an empty file: becomes a new catalog
        let files = resolved(path)
        // SQLite makes these to read even a damaged file; those it made are taken away with the refusal.
        let absent = ["-wal", "-shm"].filter { access(path + $0, F_OK) != 0 }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10) // another connection may hold a lock for a moment
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.read { db in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if tables.isEmpty {
                    // A blank database (`sqlite3 FILE 'VACUUM'`), or a catalog's file copied
                    // without its -wal while its tables were still only there.
                    if create { return }
                    throw StoreError.noCatalog(at: path, "an SQLite database without tables")
                }
                guard tables.contains("grdb_migrations"), tables.contains("catalog") else {
                    throw StoreError.notACatalog(path: path, reason: "an SQLite database without catalog tables")
                }
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                let known = Set(CatalogMigrations.identifiers)
                let unknown = applied.filter { !known.contains($0) }.sorted()
                if !unknown.isEmpty { throw StoreError.newerVersion(path: path, unknownMigrations: unknown) }
            }
        } catch let error as StoreError {
            // Another SQLite database, or a newer catalog, in WAL mode: SQLite made its -shm
            // and -wal to read it, and a read-only connection leaves them.
            removeMadeBesideUnlessOpen(path, absent)
            throw error
        } catch let error as DatabaseError where (error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB) && hasSQLiteHeader(path) {
            // An SQLite database cut short or torn (a copy that did not finish, a failing disk):
            // a catalog, most likely, and "not a catalog; pass --db" sent its owner elsewhere.
            removeMadeBeside(path, absent)
            throw .cannotOpen(path: path, reason: "it is damaged (\(error.message ?? "database disk image is malformed")); it was not modified: "
                + "restore a backup, or \(StoreError.recovery(path))")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
            removeMadeBeside(path, absent)
            throw .notACatalog(path: path, reason: error.message ?? "not a database")
        } catch let error as DatabaseError where isFullAtOpening(error, files: files) {
            throw .full(path: path, reason: fullAtOpeningReason(files))
        } catch let error as DatabaseError {
            throw .cannotOpen(path: path, reason: unwritable(path) ?? error.message ?? "\(error)")
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// `removeMadeBeside`, for a file SQLite could read: unless another process opened it
    /// meanwhile (a newer catalog's own binary), which holds the -shm's "deadman switch" byte
    /// (see `isOpenInAnotherProcess`); held here while they go, as SQLite holds it to remove
    /// them. No connection of this process has it open: its -shm was not there before.
    private static func removeMadeBesideUnlessOpen(_ path: String, _ suffixes: [String]) {
        guard suffixes.contains("-shm") else { return }
        let fd = Glibc.open(path + "-shm", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return removeMadeBeside(path, suffixes) }
        defer { close(fd) }
        var lock = deadmanSwitch()
        guard fcntl(fd, F_SETLK, &lock) == 0 else { return }
        removeMadeBeside(path, suffixes)
    }

    /// Removes the files SQLite made beside `path` while it was found to be no catalog or a
    /// damaged one: of `suffixes` (those not there before), the -shm and an empty -wal.
    private static func removeMadeBeside(_ path: String, _ suffixes: [String]) {
        for suffix in suffixes {
            var status = stat()
            guard stat(path + suffix, &status) == 0, suffix == "-shm" || status.st_size == 0 else { continue }
            unlink(path + suffix)
        }
    }

    /// Copies what is committed from the WAL into the catalog's file, then calls `end`, which
    /// ends the process: for a process ending at an interruption with its writer mid-batch
    /// (which never closes the store, so never checkpoints), so that the catalog's file alone
    /// holds every batch committed (it had no tables after an interrupted first scan: all of
    /// it was in the -wal). On the writer's own connection, once the batch under way is
    /// committed, and `end` called there: no batch commits after the copy.
    package func checkpointCommitted(thenEnd end: () -> Never) {
        pool.writeWithoutTransaction { db -> Void in
            try? db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
            end()
        }
    }

    /// `flock` on `<catalog>.lock`: released when the process ends, however it ends.
    package func lockForWriting() throws(StoreError) -> any WriteLease {
        do {
            return try WriteLock(catalogPath: filesPath, wait: false)
        } catch .busy {
            throw .busy(path: path) // named as the user named it
        }
    }

    /// The generation number: incremented by every change to the items.
    package func generation() throws(StoreError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0 }
    }

    package func identity() throws(StoreError) -> String {
        try generationAndIdentity().identity
    }

    package func generationAndIdentity() throws(StoreError) -> (generation: Int64, identity: String) {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT generation, created_at || ' ' || layout_file_id FROM catalog")
            return (row?[0] ?? 0, row?[1] ?? "")
        }
    }

    /// Runs `body` in a read transaction: one consistent snapshot, whatever a scan is writing.
    package func read<T: Sendable>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try checkSameFile()
        do { return try readRollingBack(body) } catch { throw wrap(error) }
    }

    /// Throws when the file at the catalog's path is no longer the one this process opened: a
    /// backup moved into its place, the catalog deleted (and perhaps made again). The open
    /// connections still read and write the old file, which no other process sees: a server
    /// would go on serving it (and store its layouts beside the new one), a watching scan
    /// would write into a deleted file. Every call fails instead, a server answers 503 and
    /// says so in its log, until the process is restarted and opens the file there now.
    func checkSameFile() throws(StoreError) {
        var info = stat()
        let there = stat(path, &info) == 0
        guard !there || UInt64(info.st_dev) != openedFile.device || UInt64(info.st_ino) != openedFile.inode else { return }
        throw .fileReplaced(path: path, removed: !there)
    }

    /// `pool.read`, once more after rolling back the layout file's journal left by a writer
    /// that died mid-commit, which a reader cannot do (LayoutFile).
    func readRollingBack<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch where LayoutFile.needsRollback(error) {
            // A store whose windows come while its layout is computed holds the file's queue
            // until that computation ends, and this read may be the computation: the rollback
            // would wait for it for ever. It gives up instead; the computation then stores its
            // layout once computed (`Pager.computeStoring`), and that read rolls back.
            guard streamedStores.load(ordering: .relaxed) == 0 else { throw StoreError.layoutsBusy(path: path) }
            try LayoutFile.rollBack(layoutQueue)
            return try pool.read(body)
        }
    }

    /// Runs `body` on `db` without the memory map, then maps again: a refresh that rebuilds the
    /// order data reads the catalog's table and indexes once through, and through the map every
    /// page read would stay in the process (a scan's end at 10,000,000 items: 1.47 GB resident
    /// with it, 425 MB without, in about the same 7.5 s).
    static func unmapped<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.execute(sql: "PRAGMA mmap_size = 0")
        defer { try? db.execute(sql: "PRAGMA mmap_size = \(mmapBytes)") }
        return try body()
    }

    /// Runs `body` in a write transaction.
    package func write<T: Sendable>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try checkSameFile()
        do { return try pool.write(body) } catch { throw wrap(error, damaged: .catalog) }
    }

    /// Runs `body` in a write transaction with SQLite's foreign keys off (a pragma that only
    /// changes between transactions), for writes that keep their references themselves: each
    /// check and action costs the statements that touch the tables a cursor and a seek.
    func writeWithoutForeignKeys<T: Sendable>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try checkSameFile()
        do {
            return try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw wrap(error, damaged: .catalog)
        }
    }
}

extension SQLiteStore {
    /// Increments the catalog's generation inside the current write transaction; returns it.
    /// Call it before the transaction's first change to an item: the change log's triggers
    /// record each change at the catalog's generation as they find it.
    static func nextGeneration(_ db: Database) throws -> Int64 {
        // The generation that ends: the largest item id given out so far (ids are never reused).
        try db.execute(sql: """
            INSERT OR REPLACE INTO generations (generation, max_item_id)
                SELECT generation, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'items'), 0) FROM catalog
            """)
        let next = try Int64.fetchOne(db, sql: "UPDATE catalog SET generation = generation + 1 RETURNING generation")!
        if next % ChangeLogBounds.pruneEvery == 0 { try pruneChangeLog(db, generation: next) }
        return next
    }

    /// Keeps the change log within its bounds (Migrations/0007_change_log.sql): the last
    /// `ChangeLogBounds.generations` generations, and at most `ChangeLogBounds.rows` rows.
    static func pruneChangeLog(_ db: Database, generation: Int64) throws {
        var keptFrom = generation - ChangeLogBounds.generations
        if let oldestKept = try Int64.fetchOne(db, sql: "SELECT generation FROM item_changes ORDER BY generation DESC LIMIT 1 OFFSET ?",
                                               arguments: [ChangeLogBounds.rows]) {
            keptFrom = max(keptFrom, oldestKept) // the rows of that generation and older go
        }
        guard keptFrom > 0 else { return }
        try db.execute(sql: "DELETE FROM item_changes WHERE generation <= ?", arguments: [keptFrom])
        try db.execute(sql: "DELETE FROM generations WHERE generation < ?", arguments: [keptFrom])
        try db.execute(sql: "UPDATE change_log SET kept_from = max(kept_from, ?)", arguments: [keptFrom])
    }
}

extension StoreError {
    static func wrap(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError { return .database(error.message ?? error.description) }
        return .database("\(error)")
    }
}
