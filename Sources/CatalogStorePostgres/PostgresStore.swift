package import CatalogModel
package import Foundation
import PostgresNIO
import Synchronization

/// A catalog in a PostgreSQL database (`--db postgres://USER@HOST:PORT/DB`): the store seam
/// (`CatalogBackend`) on PostgresNIO, beside the SQLite store, with the same facts in the same
/// shapes. The schema comes only from Migrations/postgres/*.sql, each applied in its own
/// transaction and recorded in `catalog_migrations`; a database that holds other tables, or a
/// catalog from a newer version, is refused before anything is written to it.
///
/// Reads of several statements run in one REPEATABLE READ transaction: one committed state.
/// Writes increment the generation in the same transaction as the change, as on SQLite.
package final class PostgresStore: CatalogBackend {
    /// The primary: every write, and a scan's reads.
    let connections: PostgresConnections
    /// Where reads go: a streaming replica with `--read-db`, else the primary.
    let readers: PostgresConnections
    let listener: PostgresChangeListener
    /// The order data this process has read, by chunk.
    let orderCaches = OrderDataCaches()
    /// Stored layouts' windows this process has read.
    let segmentCache = SegmentCache()
    /// The most memory an import into an empty catalog takes to cut its order data from its
    /// rows (ImportedOrder), as on SQLite; past it the order data is made from the items.
    /// Tests lower it.
    let importOrderBytes = Atomic<Int>(OrderChunking.importBudget)
    /// How many imports made their order data from their rows: what tests see of the choice.
    let importsWithOrderDataFromRows = Atomic<Int>(0)
    /// Whether the statement pages read most is prepared (off once the database refused it).
    let prepares = Atomic<Bool>(true)
    /// The keys' statements of pages read at the same time, sent as one.
    let keyBatches = KeyReadBatches()
    /// Ranges of the order pages read their windows' items as, and how many pages read some
    /// items by id after their ranges missed them (for tests and measurements).
    let rangesRead = Atomic<Int>(0)
    let rangesMissed = Atomic<Int>(0)
    package var location: String { connections.location.display }
    /// Whether opening it made the catalog, in a database that had no tables.
    let madeCatalog = Atomic<Bool>(false)
    /// A read mostly waits for the server's answers: as many at once as connections are kept.
    package var readConcurrency: Int { PostgresConnections.keptIdle }
    /// A B-tree entry is at most 2,704 bytes (a third of a page), and a key sits in the items'
    /// unique key index, their date index (after its date) and the order chunks' index; a path
    /// in the files' primary key. PostgreSQL compresses a long entry first, so some longer keys
    /// would fit; this bound holds for any bytes, with room for the date and the headers.
    package var longestKey: Int? { 2_600 }
    package var ownFiles: Set<Data> { [] }

    /// The id of the newest migration this build applies.
    package static var schemaVersion: String { PostgresMigrations.identifiers.last ?? "none" }

    /// Advisory lock keys (pg_advisory_lock's one-bigint space): applying migrations, the one
    /// scan or import that writes at a time, and the stored layouts' budget (one store at a time
    /// counts what is stored and evicts, from then until its commit).
    static let migrationLock: Int64 = 0x6361_7461_6c6f_6701
    static let writeLock: Int64 = 0x6361_7461_6c6f_6702
    static let layoutBudgetLock: Int64 = 0x6361_7461_6c6f_6710

    /// Opens the catalog in the database `url` names, creating its tables in an empty database
    /// (unless `create` is false: then an empty database is refused). With `readURL` (a
    /// streaming replica of it), reads go there and writes to `url`.
    package static func open(url: String, readURL: String? = nil, create: Bool = true) throws(StoreError) -> PostgresStore {
        let location = try PostgresLocation(url: url)
        let readLocation = try readURL.map { url throws(StoreError) in try PostgresLocation(url: url) }
        let store = PostgresStore(connections: PostgresConnections(location: location),
                                  readers: readLocation.map { PostgresConnections(location: $0) })
        try store.opening(location) {
            let applied = try store.connections.withSession { session in try PostgresMigrations.migrate(session, location: location.display, create: create) }
            store.madeCatalog.store(applied == EmbeddedMigrations.all.count, ordering: .relaxed)
            if applied > 0 {
                // A migration that adds or changes the order data leaves it stale: build it now,
                // once, rather than lay out from item rows until the next scan or import.
                try store.write { session in try PostgresOrderData.refresh(session, force: true) }
            } else if try store.connections.withSession({ try $0.value("SELECT generation < 0 FROM order_data", as: Bool.self) ?? false }),
                      (try? store.lockForWriting()) != nil {
                // Still stale: the opening after the migrations was cut short. Only when no scan
                // or import holds the catalog (it rebuilds the order data as it ends), without
                // holding their lock meanwhile, and as far as it can (a role that only reads
                // cannot): the opening goes on either way.
                try? store.write { session in try PostgresOrderData.refresh(session, force: true) }
            }
        }
        if let readLocation {
            try store.opening(readLocation) {
                try store.readers.withSession { session in try PostgresMigrations.check(session, location: readLocation.display) }
                // Another catalog as the replica would have its layouts stored in this one.
                let (primary, replica) = (try store.connections.withSession(Self.identity), try store.readers.withSession(Self.identity))
                guard primary == replica else {
                    throw StoreError.cannotOpen(path: readLocation.display, reason: "it is not a replica of \(location.display) "
                        + "(database \(replica.database) of system \(replica.system.map(String.init) ?? "?"), not \(primary.database) of "
                        + "system \(primary.system.map(String.init) ?? "?")): --read-db takes a streaming replica of --db's server")
                }
            }
        }
        return store
    }

    /// A database's name and its cluster's system identifier (the same on a streaming replica
    /// as on its primary; nil where this role may not read it).
    private static func identity(_ session: PostgresSession) throws -> Identity {
        let database = try session.value("SELECT current_database()", as: String.self) ?? ""
        let system = try? session.value("SELECT system_identifier FROM pg_control_system()", as: Int64.self)
        return Identity(database: database, system: system ?? nil)
    }

    private struct Identity: Equatable {
        let database: String
        let system: Int64?
    }

    private func opening(_ location: PostgresLocation, _ body: () throws -> Void) throws(StoreError) {
        do {
            try body()
        } catch StoreError.unreachable(let path, let reason) {
            throw .cannotOpen(path: path, reason: reason) // never reached: nothing to keep, nothing to try again
        } catch let error as StoreError {
            throw error
        } catch {
            throw .cannotOpen(path: location.display, reason: PostgresConnections.message(error))
        }
    }

    private init(connections: PostgresConnections, readers: PostgresConnections?) {
        self.connections = connections
        self.readers = readers ?? connections
        listener = PostgresChangeListener(connections: connections, replica: readers)
    }

    deinit {
        listener.stop()
        connections.closeAll()
        readers.closeAll()
    }

    /// The catalog's advisory lock, exclusive: an import writes alone. Session-level, on a
    /// connection of its own: released when the lease goes, or by the server when this process
    /// dies and its connection drops.
    package func lockForWriting() throws(StoreError) -> any WriteLease {
        try lease("SELECT pg_try_advisory_lock(\(Self.writeLock))")
    }

    /// The catalog's advisory lock, shared (scans of other roots go on, an import waits its
    /// turn), one exclusive lock per root, keyed by a hash of its path, and a shared one per
    /// folder above a root: several scanners write at once, on one machine or many, when their
    /// roots differ and neither is inside the other (a scan of `/photos` and one of
    /// `/photos/2024` would walk the same files, so the second stops, as on SQLite).
    package func lockForScanning(roots: [Data]) throws(StoreError) -> any WriteLease {
        let keys = Set(roots.map { Self.rootLockKey($0) })
        let above = Set(roots.flatMap(Self.folders(above:)).map { Self.rootLockKey($0) }).subtracting(keys)
        let locks = ["pg_try_advisory_lock_shared(\(Self.writeLock))"] + keys.sorted().map { "pg_try_advisory_lock(\($0))" }
            + above.sorted().map { "pg_try_advisory_lock_shared(\($0))" }
        return try lease("SELECT " + locks.joined(separator: " AND "))
    }

    /// The folders above `root` (absolute, without a trailing slash), as roots name them:
    /// `/a/b/c` has `/a/b`, `/a` and `/`.
    package static func folders(above root: Data) -> [Data] {
        var folders: [Data] = []
        var end = root.endIndex
        while let slash = root[root.startIndex..<end].lastIndex(of: 47) {
            folders.append(slash == root.startIndex ? Data([47]) : Data(root[root.startIndex..<slash]))
            end = slash
        }
        return folders
    }

    /// A connection that holds the locks `query` takes, if it answers true; when it does not, the
    /// lease goes at once and gives back the locks it did take.
    private func lease(_ query: String) throws(StoreError) -> any WriteLease {
        let lease = PostgresWriteLease(connection: try connections.open())
        do {
            guard try PostgresSession(lease.watched).value(PostgresQuery(unsafeSQL: query), as: Bool.self) == true else {
                throw StoreError.busy(path: location)
            }
            return lease
        } catch {
            throw wrap(error)
        }
    }

    /// A root's advisory lock key: 64 bits of FNV-1a over its path, apart from the catalog's own keys.
    static func rootLockKey(_ path: Data) -> Int64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in path {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        var key = Int64(bitPattern: hash)
        while [migrationLock, writeLock, layoutBudgetLock].contains(key) { key &+= 1 }
        return key
    }

    package func generation() throws(StoreError) -> Int64 {
        let generation = try read { session in try PostgresSnapshot(session: session).generation() }
        listener.read(generation: generation)
        return generation
    }

    package func identity() throws(StoreError) -> String {
        try generationAndIdentity().identity
    }

    /// The identity: when the catalog was made, to the second, and its database's oid, which a
    /// database dropped and made again (within that second too) does not keep; a replica's is
    /// its primary's.
    package func generationAndIdentity() throws(StoreError) -> (generation: Int64, identity: String) {
        let read = try read { session in
            try session.rows("SELECT generation, created_at || ' ' || (SELECT oid FROM pg_database WHERE datname = current_database())::text FROM catalog")
                .first.map { try $0.decode((Int64, String).self) } ?? (Int64(0), "")
        }
        listener.read(generation: read.0)
        return (read.0, read.1)
    }

    /// Runs `body` on a connection of the readers (a replica with `--read-db`; the primary with
    /// `onPrimary`), outside a transaction (one statement is one snapshot); once more on a new
    /// connection if a kept one had been dropped (and `mayRetry` still says so).
    @discardableResult
    func read<T>(onPrimary: Bool = false, mayRetry: () -> Bool = { true }, _ body: (PostgresSession) throws -> T) throws(StoreError) -> T {
        do { return try (onPrimary ? connections : readers).withSession(retrying: true, mayRetry: mayRetry, body) } catch { throw wrap(error) }
    }

    /// Runs `body` in one REPEATABLE READ, read-only transaction: every statement sees the same state.
    func snapshotRead<T>(mayRetry: () -> Bool = { true }, _ body: (PostgresSession) throws -> T) throws(StoreError) -> T {
        try read(mayRetry: mayRetry) { session in try session.transaction(Self.beginSnapshot) { try body(session) } }
    }

    static let beginSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Runs `body` in one read-write transaction, never twice: a connection lost before the
    /// commit's answer leaves the caller unsure whether it committed, and the caller decides.
    /// Every server's change listener hears of it when it commits.
    @discardableResult
    func write<T>(_ body: (PostgresSession) throws -> T) throws(StoreError) -> T {
        do {
            return try connections.withSession { session in
                // Read committed whatever the database's default: each statement sees what others
                // committed before it (the layouts' budget, under its lock, counts on it).
                try session.transaction("BEGIN ISOLATION LEVEL READ COMMITTED") {
                    let result = try body(session)
                    try session.script(PostgresChangeListener.notify)
                    return result
                }
            }
        } catch {
            throw wrap(error)
        }
    }

    /// The store's error for what a call threw: a lost connection is `unreachable`, naming the URL.
    func wrap(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if PostgresConnections.isConnectionLoss(error) {
            return .unreachable(path: location, reason: PostgresConnections.message(error))
        }
        if PostgresConnections.sqlState(error) == "53100" { // disk_full
            return .full(path: location, reason: "no room on the database server's disk (\(PostgresConnections.message(error)))")
        }
        // insufficient_privilege; read_only_sql_transaction: a role whose transactions are read
        // only (default_transaction_read_only), or a hot standby. Refused as a write the role may
        // not do: pages are then served with their layouts unstored, as for a SELECT-only role.
        if ["42501", "25006"].contains(PostgresConnections.sqlState(error)) {
            return .notPermitted(path: location, reason: PostgresConnections.message(error))
        }
        return .database(PostgresConnections.message(error))
    }
}

/// Holds the connection whose session owns the write lock.
final class PostgresWriteLease: WriteLease {
    let watched: WatchedConnection

    init(connection: WatchedConnection) {
        watched = connection
    }

    /// Unlocks before closing: the server releases a closed connection's locks only when its
    /// backend process has exited, after `close` returns, and a next scan must find them free.
    /// A connection the server dropped (it stopped) holds nothing any more: it is only closed.
    deinit {
        _ = try? PostgresSession(watched).execute("SELECT pg_advisory_unlock_all()")
        try? watched.connection.close().wait()
    }
}

extension PostgresStore {
    /// Increments the generation inside the current write transaction; returns it. The row lock
    /// on `catalog` orders concurrent writers' generations by their commits. Call it before the
    /// transaction's first change to an item: the change log records each change at the
    /// generation it finds.
    static func nextGeneration(_ session: PostgresSession) throws -> Int64 {
        // With it, in the same statement: layouts of the generation this one reaches or later were
        // stored before a dump of an older catalog was restored under running processes, and lay
        // out other items.
        let next = try session.value("""
            WITH bumped AS (UPDATE catalog SET generation = generation + 1 RETURNING generation),
                 dropped AS (DELETE FROM layouts WHERE generation >= (SELECT generation FROM bumped))
            SELECT generation FROM bumped
            """, as: Int64.self)!
        // The generation that ends: the largest item id so far. Read after the row lock, so a
        // writer that committed before it is counted; ids are never reused, so an item above
        // it is one added since, even if the largest was removed.
        try session.execute("""
            INSERT INTO generations (generation, max_item_id) SELECT \(next - 1), coalesce(max(id), 0) FROM items
            ON CONFLICT (generation) DO UPDATE SET max_item_id = excluded.max_item_id
            """)
        if next % ChangeLogBounds.pruneEvery == 0 { try pruneChangeLog(session, generation: next) }
        return next
    }

    /// Keeps the change log within its bounds, as the SQLite store does.
    static func pruneChangeLog(_ session: PostgresSession, generation: Int64) throws {
        var keptFrom = generation - ChangeLogBounds.generations
        if let oldestKept = try session.value("""
            SELECT generation FROM item_changes ORDER BY generation DESC LIMIT 1 OFFSET \(ChangeLogBounds.rows)
            """, as: Int64.self) {
            keptFrom = max(keptFrom, oldestKept)
        }
        guard keptFrom > 0 else { return }
        try session.execute("DELETE FROM item_changes WHERE generation <= \(keptFrom)")
        try session.execute("DELETE FROM generations WHERE generation < \(keptFrom)")
        try session.execute("UPDATE change_log SET kept_from = greatest(kept_from, \(keptFrom))")
    }

    /// Now, as the catalog writes times: ISO 8601, UTC, whole seconds.
    static let isoNowSQL = #"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')"#
}

