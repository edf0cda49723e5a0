import Foundation
import GRDB

/// The catalog's stored layouts live in a file of their own beside it, `<catalog>.layouts`,
/// attached to every connection as `layout_store` (schema: Migrations/layouts/). Queries name
/// `layouts` and `layout_segments` without a schema: the catalog itself has no such tables
/// since Migrations/0012.
///
/// Why a second file: a layout is a cache of what the order data computes, and a large one is
/// written whole (200 MB at 10,000,000 items). Through the catalog's WAL it went out in 4 KiB
/// frames, a header and a page each, and the checkpoint copied every page again. This file
/// uses 64 KiB pages and a rollback journal: new pages are written once, and only the few
/// pages a change overwrites go to the journal. Readers wait for a commit of this file (a
/// moment) instead of reading beside it, which a cache can afford.
enum LayoutFile {
    static let schema = "layout_store"
    static let pageSize = 65_536
    /// Each connection's cache of the file's pages. Small: reads go through the memory map, and
    /// a large store spills its pages to the file as it goes rather than holding all of them
    /// (storing a 10M-item layout: 0.23 s with 16 MiB, 0.37 s with the catalog's 256 MiB).
    static let cacheKiB = 16_384

    static func path(ofCatalog path: String) -> String { path + ".layouts" }

    /// Attaches the file to a connection. The writer attaches it first, which creates it; the
    /// pool's readers attach it read-only.
    static func attach(_ db: Database, catalogPath: String) throws {
        try db.execute(sql: "ATTACH DATABASE ? AS \(schema)", arguments: [path(ofCatalog: catalogPath)])
        try db.execute(sql: "PRAGMA \(schema).cache_size = -\(cacheKiB)")
        try db.execute(sql: "PRAGMA \(schema).mmap_size = \(SQLiteStore.mmapBytes)")
        guard !db.configuration.readonly else { return }
        // Both take effect only on a new, empty file; the journal mode is set on every writer
        // in case the file was made WAL by something else.
        try db.execute(sql: "PRAGMA \(schema).page_size = \(pageSize)")
        _ = try String.fetchOne(db, sql: "PRAGMA \(schema).journal_mode = DELETE")
        try db.execute(sql: "PRAGMA \(schema).synchronous = NORMAL")
    }

    /// Applies the file's migrations it lacks, each in its own transaction, and empties it if
    /// it was made for another catalog. Reads first, so opening a catalog whose layout file is
    /// current writes nothing to it.
    static func prepare(_ writer: Database) throws {
        let migrations = EmbeddedLayoutMigrations.all
        let owner = "(SELECT catalog_id FROM \(schema).owner LIMIT 1)"
        func applied() throws -> Set<String> {
            guard try Bool.fetchOne(writer, sql: "SELECT count(*) > 0 FROM \(schema).sqlite_master WHERE name = 'migrations'") ?? false else {
                return []
            }
            return try Set(String.fetchAll(writer, sql: "SELECT identifier FROM \(schema).migrations"))
        }
        func owned() throws -> Bool {
            try Bool.fetchOne(writer, sql: "SELECT \(owner) IS layout_file_id FROM main.catalog") ?? false
        }
        if try applied().isSuperset(of: migrations.map(\.id)), try owned() { return }
        for migration in migrations {
            try writer.inTransaction(.immediate) {
                try writer.execute(sql: "CREATE TABLE IF NOT EXISTS \(schema).migrations (identifier TEXT PRIMARY KEY)")
                guard try !applied().contains(migration.id) else { return .commit } // another process was first
                try writer.execute(sql: migration.sql)
                try writer.execute(sql: "INSERT INTO \(schema).migrations (identifier) VALUES (?)", arguments: [migration.id])
                return .commit
            }
        }
        try writer.inTransaction(.immediate) {
            guard try !owned() else { return .commit }
            try writer.execute(sql: "DELETE FROM \(schema).layouts")
            try writer.execute(sql: "DELETE FROM \(schema).layout_segments")
            try writer.execute(sql: "DELETE FROM \(schema).owner")
            try writer.execute(sql: "INSERT INTO \(schema).owner (catalog_id) SELECT layout_file_id FROM main.catalog")
            return .commit
        }
    }

    /// A reader that finds the journal of a writer that died mid-commit cannot roll it back (the
    /// pool's readers are read-only): SQLite answers SQLITE_READONLY_ROLLBACK.
    static func needsRollback(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.extendedResultCode == .SQLITE_READONLY_ROLLBACK
    }

    /// Rolls such a journal back on the writer, which may write: reading the file is enough.
    static func rollBack(_ pool: DatabasePool) throws {
        try pool.writeWithoutTransaction { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema).owner") }
    }
}
