import CatalogModel
import PostgresNIO

/// The migration runner: Migrations/postgres/NNNN_description.sql (embedded at build time),
/// applied in file-name order, each in its own transaction with its row in `catalog_migrations`,
/// under an advisory lock so that two processes opening a new catalog at once apply each once.
enum PostgresMigrations {
    static var identifiers: [String] { EmbeddedMigrations.all.map(\.id) }

    /// Returns how many it applied: all of them in a database that had no tables, which this
    /// call made a catalog. Without `create`, a database with no tables is refused.
    @discardableResult
    static func migrate(_ session: PostgresSession, location: String, create: Bool = true) throws -> Int {
        let waiting = try pending(session, location: location)
        if waiting.isEmpty { return 0 }
        if !create, waiting.count == EmbeddedMigrations.all.count { throw StoreError.noCatalog(at: location, "a database without tables") }
        try session.script("SELECT pg_advisory_lock(\(PostgresStore.migrationLock))")
        defer { _ = try? session.script("SELECT pg_advisory_unlock(\(PostgresStore.migrationLock))") }
        let missing = try pending(session, location: location) // again: another process may have applied them
        for migration in missing {
            do {
                try session.transaction {
                    try session.script("CREATE TABLE IF NOT EXISTS catalog_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
                    try session.runScript(migration.sql)
                    try session.execute("INSERT INTO catalog_migrations (identifier) VALUES (\(migration.id))")
                }
            } catch where PostgresConnections.sqlState(error) == "42501" {
                // A role that may not make a new catalog's tables (from PostgreSQL 15 on, only the
                // database's owner creates in public), or, one that may only read, bring an older
                // catalog's schema up: "permission denied for schema public" said neither.
                let said = PostgresConnections.message(error)
                if waiting.count == EmbeddedMigrations.all.count {
                    throw StoreError.notPermitted(path: location, reason: "this role may not make the catalog's tables: \(said); "
                        + "make the database with `createdb --owner=ROLE`, or GRANT CREATE ON SCHEMA public TO the role")
                }
                throw StoreError.notPermitted(path: location, reason: "this role may not bring the catalog to this version's schema "
                    + "(\(missing.count) of its migrations to apply, the first \(migration.id)): \(said); "
                    + "run any catalog command once as a role that may (the catalog's owner), and this one can read it after")
            }
        }
        return missing.count
    }

    /// Drops what the migrations made (their tables, with their indexes, triggers and
    /// sequences, and their functions), in the session's transaction, when nothing was written
    /// to it: a database made a catalog by a command that then failed before writing anything
    /// is left without tables again. False, dropping nothing, when the database has tables the
    /// migrations did not make, when a table holds rows a write put there (the generation moved,
    /// an item, a root a scan named, a stored layout...), or when anything else depends on them
    /// (no CASCADE: the drop fails, and the transaction is rolled back).
    static func removeCatalog(_ session: PostgresSession) throws -> Bool {
        let tables = try session.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()").map { try $0.decode(String.self) }
        let made = Set(EmbeddedMigrations.all.flatMap { names(after: "CREATE TABLE ", in: $0.sql) } + ["catalog_migrations"])
        let functions = Set(EmbeddedMigrations.all.flatMap { names(after: "CREATE FUNCTION ", in: $0.sql) })
        guard !tables.isEmpty, Set(tables).isSubset(of: made) else { return false }
        let list = tables.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        try session.script("SET LOCAL lock_timeout = '1s'")
        try session.script("LOCK TABLE \(list) IN ACCESS EXCLUSIVE MODE")
        // The rows the migrations themselves put in (the catalog's generation 0, the change
        // log's and order data's state): any other row is a write's.
        let seeded = ["catalog_migrations": EmbeddedMigrations.all.count, "catalog": 1, "change_log": 1, "order_data": 1]
        for table in tables {
            let rows = try session.value(PostgresQuery(unsafeSQL: "SELECT count(*)::int8 FROM \"\(table)\""), as: Int.self) ?? 0
            guard rows <= seeded[table, default: 0] else { return false }
        }
        guard try session.value("SELECT generation FROM catalog", as: Int64.self) == 0 else { return false }
        try session.script("DROP TABLE \(list)")
        for function in functions.sorted() { try session.script("DROP FUNCTION IF EXISTS \"\(function)\"") }
        return true
    }

    /// The names that follow `keyword` in `sql` (the name ends at the first character not a
    /// letter, digit or '_').
    private static func names(after keyword: String, in sql: String) -> [String] {
        var names: [String] = []
        var rest = Substring(sql)
        while let found = rest.firstRange(of: keyword) {
            rest = rest[found.upperBound...]
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty { names.append(String(name)) }
        }
        return names
    }

    /// Refuses a database that is not a catalog this build can read (a replica, which cannot
    /// be migrated: its primary is, and the replica follows).
    static func check(_ session: PostgresSession, location: String) throws {
        let missing = try pending(session, location: location)
        guard missing.isEmpty else {
            throw StoreError.notACatalog(path: location, reason: "it lacks migrations \(missing.map(\.id).joined(separator: ", ")); open the primary first, which applies them")
        }
    }

    /// The migrations not applied yet; refuses a database that is not a catalog, or a newer one.
    private static func pending(_ session: PostgresSession, location: String) throws -> [(id: String, sql: String)] {
        let tables = try session.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()").map { try $0.decode(String.self) }
        if tables.isEmpty {
            // An application's tables in a schema of their own (`app.users`) make it no empty
            // database either: it was made a catalog beside them; nor its views, types and
            // sequences (one named `items` failed the first migration with PostgreSQL's own
            // "already exists"). Not
            // those an extension made (pg_cron's `cron.job`, PostGIS topology's): the database's own.
            let elsewhere = try session.rows("""
                SELECT (n.nspname || '.' || c.relname)::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c', 'S') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_namespace'::regclass AND d.objid = n.oid AND d.deptype = 'e')
                ORDER BY 1 LIMIT 5
                """).map { try $0.decode(String.self) }
            if !elsewhere.isEmpty {
                throw StoreError.notACatalog(path: location, reason: "a PostgreSQL database with other tables (\(elsewhere.joined(separator: ", ")))")
            }
            // Keys, paths, titles and addresses are UTF-8, which the server stores as they come in
            // a database of SQL_ASCII too. No new catalog in one of another encoding (LATIN1): it
            // stored them as its own characters, and pages, which convert them to UTF-8 in SQL,
            // came back garbled. One made there before still opens, to be listed and moved.
            let encoding = try session.value("SELECT current_setting('server_encoding')", as: String.self) ?? "UTF8"
            guard encoding == "UTF8" || encoding == "SQL_ASCII" else {
                throw StoreError.cannotOpen(path: location, reason: "the database's encoding is \(encoding), and a catalog's keys, paths and titles are UTF-8: "
                    + "make it with `createdb --encoding=UTF8 --template=template0 NAME` (or CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0)")
            }
            return EmbeddedMigrations.all
        }
        guard tables.contains("catalog_migrations"), tables.contains("catalog") else {
            throw StoreError.notACatalog(path: location, reason: "a PostgreSQL database with other tables (\(tables.sorted().prefix(5).joined(separator: ", ")))")
        }
        let applied = Set(try session.rows("SELECT identifier FROM catalog_migrations").map { try $0.decode(String.self) })
        let unknown = applied.subtracting(identifiers).sorted()
        if !unknown.isEmpty { throw StoreError.newerVersion(path: location, unknownMigrations: unknown) }
        return EmbeddedMigrations.all.filter { !applied.contains($0.id) }
    }
}
