package import GRDB

/// The migration runner: Migrations/NNNN_description.sql (embedded at build time), applied in
/// file-name order, each in its own transaction, recorded in `grdb_migrations` by file name.
package enum CatalogMigrations {
    /// The ids of every migration this build knows, in order.
    package static var identifiers: [String] { EmbeddedMigrations.all.map(\.id) }
    /// The ids of the layout file's migrations (Migrations/layouts/, applied by `LayoutFile`).
    package static var layoutFileIdentifiers: [String] { EmbeddedLayoutMigrations.all.map(\.id) }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in EmbeddedMigrations.all {
            let sql = migration.sql
            migrator.registerMigration(migration.id) { db in try db.execute(sql: sql) }
        }
        return migrator
    }

    /// Applies the migrations up to and including `identifier` (tests of upgrades).
    package static func migrate(_ writer: some DatabaseWriter, upTo identifier: String) throws {
        try migrator.migrate(writer, upTo: identifier)
    }

    /// Applies every migration. Another process may be applying them at the same moment (two
    /// commands opening an old catalog at once): GRDB reads the applied ones once, so the second
    /// to reach a migration fails on it (its transaction rolls back, on a UNIQUE constraint of
    /// `grdb_migrations`, or on a table the first already changed). It then reads them again and
    /// carries on from there; a failure while no one applied anything is the migration's own.
    package static func migrate(_ writer: some DatabaseWriter) throws {
        let migrator = migrator
        while true {
            let before = try writer.read { try migrator.appliedIdentifiers($0) }
            do {
                return try migrator.migrate(writer)
            } catch {
                guard let after = try? writer.read({ try migrator.appliedIdentifiers($0) }), after != before else { throw error }
            }
        }
    }
}
