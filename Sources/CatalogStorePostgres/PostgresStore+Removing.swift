import CatalogModel
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Drops the catalog again when opening it made it (the database had no tables) and
    /// nothing has been written to it since: what an import refused into a database without a
    /// catalog leaves, as an SQLite catalog file made by such an import is deleted. A refused
    /// import left an empty catalog, that `catalog list` read as one with no items, where
    /// SQLite says there is none. Left as it is while any other process is connected to the
    /// database (a server started on it meanwhile, whatever its role), while a scan, an import
    /// or a migration holds its advisory lock, or when any of its tables has a row a write put
    /// there. True when it dropped it.
    package func removeIfMadeAndUnwritten() -> Bool {
        guard madeCatalog.load(ordering: .relaxed) else { return false }
        do {
            return try connections.withSession(retrying: true) { session in
                try session.transaction {
                    guard try session.value("SELECT pg_try_advisory_xact_lock(\(Self.writeLock)) AND pg_try_advisory_xact_lock(\(Self.migrationLock))",
                                            as: Bool.self) == true else { return false }
                    // Other processes' sessions: this one's own, closed, may linger a moment. A
                    // role that may not see another's backend type sees it NULL: counted.
                    let others = try session.value(PostgresQuery(unsafeSQL: """
                        SELECT count(*)::int8 FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM $1
                          AND (backend_type = 'client backend' OR backend_type IS NULL)
                        """, binds: try Self.binds(PostgresConnections.applicationName)), as: Int.self) ?? 1
                    guard others == 0 else { return false }
                    return try PostgresMigrations.removeCatalog(session)
                }
            }
        } catch {
            return false
        }
    }
}
