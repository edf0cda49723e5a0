import CatalogModel
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Drops the catalog again when opening it made it (the database had no tables) and
    /// nothing has been written to it since, while no other session is connected to the
    /// database (a server started on it meanwhile): what an import refused into a database
    /// without a catalog leaves, as an SQLite catalog file made by such an import is deleted.
    /// A refused import left an empty catalog, that `catalog list` read as one with no items,
    /// where SQLite says there is none. True when it dropped it.
    package func removeIfMadeAndUnwritten() -> Bool {
        guard madeCatalog.load(ordering: .relaxed) else { return false }
        connections.closeAll() // this process's idle connections: only the one below stays
        do {
            return try connections.withSession { session in
                try session.transaction {
                    let others = try session.value("""
                        SELECT count(*)::int8 FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                        """, as: Int.self) ?? 1
                    guard others == 0 else { return false }
                    // Any reader or writer that came since holds a lock on it: then it is left.
                    try session.script("SET LOCAL lock_timeout = '1s'")
                    try session.script("LOCK TABLE catalog, items, files IN ACCESS EXCLUSIVE MODE")
                    guard try session.value("SELECT generation FROM catalog", as: Int64.self) == 0,
                          try session.value("SELECT NOT EXISTS (SELECT FROM items) AND NOT EXISTS (SELECT FROM files)", as: Bool.self) == true
                    else { return false }
                    return try PostgresMigrations.removeCatalog(session)
                }
            }
        } catch {
            return false
        }
    }
}
