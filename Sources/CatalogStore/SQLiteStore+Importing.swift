package import CatalogModel
import Foundation
import GRDB

extension SQLiteStore {
    /// Upserts rows by key in one transaction: a refused row leaves the catalog as it was.
    /// `width`/`height` are the stored pixel size; orientations 5 to 8 swap the display size.
    package func importItems(_ rows: [ImportRow], importedAt: String) throws(StoreError) -> ImportSummary {
        guard !rows.isEmpty else { return ImportSummary(added: 0, updated: 0, generation: try generation()) }
        return try write { db in
            let generation = try Self.nextGeneration(db) // every row inserts or updates, or the import fails
            let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM items")!
            // A change of more than a tenth of the catalog is a reload for clients, not a batch:
            // not logged row by row (Migrations/0008_change_log_switch.sql).
            let unlogged = before > 0 && rows.count > max(ChangeLogBounds.reloadRows, before / 10)
            if unlogged { try db.execute(sql: "UPDATE change_log SET enabled = 0") }
            // A key that is a scanned file's path is not overwritten: the WHERE leaves it, and
            // no row changes, which tells the conflict apart from an insert or an update.
            let upsert = try BulkStatement(db, sql: """
                INSERT INTO items (key, source, pixel_width, pixel_height, orientation, width, height, capture_date,
                                   imported_at, sort_date, url, title, changed_generation)
                VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                ON CONFLICT(key) DO UPDATE SET pixel_width = excluded.pixel_width, pixel_height = excluded.pixel_height,
                    orientation = excluded.orientation, width = excluded.width, height = excluded.height,
                    capture_date = excluded.capture_date, sort_date = excluded.sort_date, url = excluded.url,
                    title = excluded.title, changed_generation = excluded.changed_generation
                WHERE items.source = 1
                """)
            for row in rows {
                let swapped = row.orientation >= 5
                upsert.bind(1, blob: row.key)
                upsert.bind(2, row.width)
                upsert.bind(3, row.height)
                upsert.bind(4, row.orientation)
                upsert.bind(5, swapped ? row.height : row.width)
                upsert.bind(6, swapped ? row.width : row.height)
                upsert.bind(7, row.date)
                upsert.bind(8, importedAt)
                upsert.bind(9, row.date ?? importedAt)
                upsert.bind(10, row.url)
                upsert.bind(11, row.title)
                upsert.bind(12, generation)
                try upsert.run(db)
                if db.changesCount == 0 {
                    throw StoreError.invalidInput(line: row.line, reason: "key \"\(row.key)\" is a scanned file's path")
                }
            }
            if unlogged {
                try db.execute(sql: "UPDATE change_log SET enabled = 1, kept_from = max(kept_from, ?)", arguments: [generation])
                try db.execute(sql: "DELETE FROM item_changes WHERE generation <= ?", arguments: [generation])
                try db.execute(sql: "DELETE FROM generations WHERE generation < ?", arguments: [generation])
            }
            let added = try Int.fetchOne(db, sql: "SELECT count(*) FROM items")! - before
            let updated = rows.count - added
            try OrderData.refresh(db, force: true)
            _ = try Self.pruneStaleLayouts(db) // in the same transaction: no stale layout outlives the change
            return ImportSummary(added: added, updated: updated, generation: generation)
        }
    }
}
