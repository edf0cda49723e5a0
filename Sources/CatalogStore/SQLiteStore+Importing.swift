package import CatalogModel
import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Upserts rows by key in one transaction, batch by batch from `next`: a refused row leaves
    /// the catalog as it was. `width`/`height` are the stored pixel size; orientations 5 to 8
    /// swap the display size.
    package func importItems(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String) throws(StoreError) -> ImportSummary {
        let summary = try importRows(from: next, importedAt: importedAt)
        // Once the import is committed, the layouts it made stale go, as after a scan. A layout
        // file busy for seconds does not fail it: pruneStaleLayouts leaves them for next time.
        _ = try pruneStaleLayouts()
        return summary
    }

    private func importRows(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String) throws(StoreError) -> ImportSummary {
        do {
            return try pool.writeWithoutTransaction { db in
                // Memory stays bounded however long the input: a smaller page cache than a scan's
                // (the transaction spills to the WAL past it), and no memory map, whose pages
                // would stay resident as the import reads the indexes. Foreign keys are off: an
                // import only inserts and updates items, which no file can point to wrongly.
                try db.execute(sql: "PRAGMA cache_size = -\(Self.importCacheKiB); PRAGMA mmap_size = 0; PRAGMA foreign_keys = OFF")
                defer {
                    try? db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB); PRAGMA mmap_size = \(Self.mmapBytes); PRAGMA foreign_keys = ON; PRAGMA threads = 0")
                }
                var summary: ImportSummary?
                try db.inTransaction {
                    summary = try Self.importItems(db, from: next, importedAt: importedAt)
                    return .commit
                }
                return summary!
            }
        } catch {
            throw StoreError.wrap(error)
        }
    }

    private static func importItems(_ db: Database, from next: () throws(StoreError) -> [ImportRow]?,
                                    importedAt: String) throws -> ImportSummary {
        guard var rows = try next(), !rows.isEmpty else {
            return ImportSummary(added: 0, updated: 0, generation: try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0)
        }
        let generation = try nextGeneration(db) // every row inserts or updates, or the import fails
        let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM items")!
        // A change of more than a tenth of the catalog is a reload for clients, not a batch: not
        // logged row by row (Migrations/0008_change_log_switch.sql). The length is known only
        // at the end, so logging stops when the rows pass that mark; what was logged goes below.
        let reloadMark = max(ChangeLogBounds.reloadRows, before / 10)
        var unlogged = false
        // Into an empty catalog the date index is built once at the end, by sorting, instead of
        // row by row: rows in input order land all over it, and past the page cache each one
        // costs a page read and write (10,000,000 rows: 334 s row by row, 98 s sorted). In the
        // same transaction, so a refused import leaves the index as it was.
        let dateIndex = before == 0
            ? try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'items_by_date'") : nil
        if dateIndex != nil { try db.execute(sql: "DROP INDEX items_by_date") }
        // A key that is a scanned file's path, or one this import already wrote (its row has
        // this generation), is not overwritten: the WHERE leaves it and no row changes, which
        // tells the conflict apart from an insert or an update.
        let upsert = try BulkStatement(db, sql: upsertSQL(rows: 1, datesChange: true))
        // The same for `importStatementRows` rows at once: one statement opens its cursors and
        // descends the table and the key index once for all of them (half the time of a row per
        // statement). First without `sort_date` among the columns it updates, for the rows
        // whose date stays: SQLite rewrites an index entry of every column an UPDATE sets, even
        // to the value it had, and entries of the date index, in key order, land all over it
        // (importing 1,000,000 unchanged rows again: 9.4 s with the date set, 3.5 s without;
        // BENCHMARKS.md, "Importing the same export again").
        // The rows it leaves, whose dates change, an UPDATE that sets it writes next (not the
        // upsert again: each row an upsert meets takes an id, as on PostgreSQL). A batch that
        // changes fewer rows than it holds, or fails, is undone to its savepoint and run again
        // row by row, which stops at the first refused row as before. While most dates change
        // (an export whose dates all moved), the rows would be looked up twice: after a batch
        // that left more than half its rows, the next `datedBatches` take the upsert that sets
        // the date (1,000,000 rows all of whose dates changed: 14.6-15.3 s the two ways, 11.7 s
        // this way, as before the two ways).
        let batch = try BulkStatement(db, sql: upsertSQL(rows: Self.importStatementRows, datesChange: false))
        let datedUpdate = try BulkStatement(db, sql: datedUpdateSQL(rows: Self.importStatementRows))
        let datedBatch = try BulkStatement(db, sql: upsertSQL(rows: Self.importStatementRows, datesChange: true))
        let datedBatches = 8
        var datedLeft = 0
        let savepoint = try BulkStatement(db, sql: "SAVEPOINT import_rows")
        let release = try BulkStatement(db, sql: "RELEASE import_rows")
        let undo = try BulkStatement(db, sql: "ROLLBACK TO import_rows")
        let sourceOf = try BulkStatement(db, sql: "SELECT source FROM items WHERE key = ?1")
        var origins = WebOrigins(try BulkStatement(db, sql: "INSERT OR IGNORE INTO web_origins (origin) VALUES (?1)"))
        func oneByOne(_ rows: ArraySlice<ImportRow>) throws {
            for row in rows {
                bind(row, at: 0, to: upsert, importedAt: importedAt, generation: generation)
                try upsert.run(db)
                if db.changesCount == 0 {
                    sourceOf.bind(1, blob: row.key)
                    let reason = try sourceOf.run(db) == 0 ? "is a scanned file's path" : "appears twice"
                    throw StoreError.invalidInput(line: row.line, reason: "key \"\(row.key)\" \(reason)")
                }
            }
        }
        var count = 0
        repeat {
            var start = rows.startIndex
            while rows.endIndex - start >= Self.importStatementRows {
                let slice = rows[start..<start + Self.importStatementRows]
                func bindSlice(to statement: BulkStatement) {
                    for (position, row) in slice.enumerated() {
                        bind(row, at: Int32(position * upsertColumns), to: statement, importedAt: importedAt, generation: generation)
                    }
                }
                let first = datedLeft > 0 ? datedBatch : batch
                bindSlice(to: first)
                try savepoint.run(db)
                var failure: (any Error)?
                var changed = 0
                do {
                    try first.run(db)
                    changed = db.changesCount
                    if datedLeft > 0 {
                        datedLeft -= 1
                    } else if changed != slice.count {
                        if slice.count - changed > slice.count / 2 { datedLeft = datedBatches }
                        // The rows written above now have this generation: it leaves them.
                        bindSlice(to: datedUpdate)
                        try datedUpdate.run(db)
                        changed += db.changesCount
                    }
                } catch {
                    failure = error
                }
                if failure != nil || changed != slice.count {
                    // An error that ended the transaction leaves no savepoint: it is the answer.
                    do { try undo.run(db) } catch { throw failure ?? error }
                    try oneByOne(slice)
                }
                try release.run(db)
                start += Self.importStatementRows
            }
            try oneByOne(rows[start...])
            for row in rows {
                if let url = row.url { try origins.note(url, db) }
            }
            if count / Self.importFlushRows != (count + rows.count) / Self.importFlushRows {
                // Every dirty page to the WAL once, in one pass: past a full cache SQLite would
                // otherwise spill one page per page it needs, the same date-index pages over and
                // over (3.8 million writes for a 1,000,000-row import, 0.28 million with this).
                try flushCache(db)
            }
            count += rows.count
            if !unlogged && before > 0 && count > reloadMark {
                unlogged = true
                try db.execute(sql: "UPDATE change_log SET enabled = 0")
            }
            rows = try next() ?? []
        } while !rows.isEmpty
        if unlogged {
            try db.execute(sql: "UPDATE change_log SET enabled = 1, kept_from = max(kept_from, ?)", arguments: [generation])
            try db.execute(sql: "DELETE FROM item_changes WHERE generation <= ?", arguments: [generation])
            try db.execute(sql: "DELETE FROM generations WHERE generation < ?", arguments: [generation])
        }
        if let dateIndex {
            // SQLite's sorter sorts runs as large as the page cache, then merges them. Runs of
            // a few MiB sort in the CPU's caches, and a second thread sorts one run while the
            // first reads the next: 1,000,000 rows sort in about half the time of one 64 MiB
            // run, in less memory. The cache's dirty pages are written out first.
            try flushCache(db)
            try db.execute(sql: "PRAGMA cache_size = -\(Self.importSortKiB); PRAGMA threads = \(Self.importSortThreads)")
            try db.execute(sql: dateIndex)
            // The order data's rebuild below runs on half the import's cache: its sizes by id
            // (up to 12 bytes an item) take the rest of the import's memory bound.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.importCacheKiB / 2); PRAGMA threads = 0")
        }
        let added = try Int.fetchOne(db, sql: "SELECT count(*) FROM items")! - before
        try OrderData.refresh(db, force: true)
        return ImportSummary(added: added, updated: count - added, generation: generation)
    }
}

/// The upsert of `rows` import rows, `upsertColumns` parameters each (bound by `bind`). An item
/// imported again without a date keeps sorting by its first import's time (`imported_at`), not
/// this import's: importing the same export again moves nothing. Without `datesChange`, it
/// leaves (changes nothing of) the existing rows whose sort date would change, and never sets
/// that column.
private func upsertSQL(rows: Int, datesChange: Bool) -> String {
    let sortDate = sortDateSQL(captureDate: "excluded.capture_date", given: "excluded.sort_date")
    let values = (0..<rows).map { row in
        let parameters = importParameters(row: row)
        return "(\(parameters[0]), 1, \(parameters[1...].joined(separator: ", ")))"
    }
    return """
        INSERT INTO items (key, source, pixel_width, pixel_height, orientation, width, height, capture_date,
                           imported_at, sort_date, url, title, changed_generation)
        VALUES \(values.joined(separator: ", "))
        ON CONFLICT(key) DO UPDATE SET pixel_width = excluded.pixel_width, pixel_height = excluded.pixel_height,
            orientation = excluded.orientation, width = excluded.width, height = excluded.height,
            capture_date = excluded.capture_date,\(datesChange ? " sort_date = \(sortDate)," : "")
            url = excluded.url, title = excluded.title, changed_generation = excluded.changed_generation
        WHERE items.source = 1 AND items.changed_generation < excluded.changed_generation\(datesChange ? "" : " AND items.sort_date IS \(sortDate)")
        """
}

/// The update, for `rows` rows bound as for `upsertSQL`, of the imported items among them that
/// this import has not written yet, their sort date included: the rows an upsert without
/// `datesChange` left.
private func datedUpdateSQL(rows: Int) -> String {
    let values = (0..<rows).map { "(" + importParameters(row: $0).joined(separator: ", ") + ")" }
    return """
        UPDATE items SET pixel_width = v.column2, pixel_height = v.column3, orientation = v.column4,
            width = v.column5, height = v.column6, capture_date = v.column7,
            sort_date = \(sortDateSQL(captureDate: "v.column7", given: "v.column9")),
            url = v.column10, title = v.column11, changed_generation = v.column12
        FROM (VALUES \(values.joined(separator: ", "))) AS v
        WHERE items.key = v.column1 AND items.source = 1 AND items.changed_generation < v.column12
        """
}

private let upsertColumns = 12

/// The parameters (`?N`) of import row `row` of a statement, `upsertColumns` of them.
private func importParameters(row: Int) -> [String] {
    (1...upsertColumns).map { "?\(row * upsertColumns + $0)" }
}

/// An imported item's sort date: its capture date, else when it was first imported (an item
/// imported again keeps it), else the date the import gives a new row.
private func sortDateSQL(captureDate: String, given: String) -> String {
    "coalesce(\(captureDate), items.imported_at, \(given))"
}

/// Binds `row` to the upsert's parameters after the first `offset`.
private func bind(_ row: ImportRow, at offset: Int32, to statement: BulkStatement, importedAt: String, generation: Int64) {
    let swapped = row.orientation >= 5
    statement.bind(offset + 1, blob: row.key)
    statement.bind(offset + 2, row.width)
    statement.bind(offset + 3, row.height)
    statement.bind(offset + 4, row.orientation)
    statement.bind(offset + 5, swapped ? row.height : row.width)
    statement.bind(offset + 6, swapped ? row.width : row.height)
    statement.bind(offset + 7, row.date)
    statement.bind(offset + 8, importedAt)
    statement.bind(offset + 9, row.date ?? importedAt)
    statement.bind(offset + 10, row.url)
    statement.bind(offset + 11, row.title)
    statement.bind(offset + 12, generation)
}

/// Writes the transaction's dirty pages to the WAL (uncommitted until the commit), leaving them
/// clean for the page cache to drop.
private func flushCache(_ db: Database) throws {
    let code = sqlite3_db_cacheflush(db.sqliteConnection)
    if code != SQLITE_OK { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
}

/// The origins (`scheme://host[:port]`, lowercased) of imported web addresses, written to
/// `web_origins` the first time an import meets each (Migrations/0011_web_origins_by_import.sql).
struct WebOrigins {
    private let insert: BulkStatement
    /// Origins written by this import; forgotten past a bound (writing one again is harmless).
    private var written = Set<[UInt8]>()
    private var runs = WebOrigin.Runs()

    init(_ insert: BulkStatement) {
        self.insert = insert
    }

    mutating func note(_ url: String, _ db: Database) throws {
        guard let origin = runs.next(url), !written.contains(origin) else { return }
        if written.count >= 10_000 { written.removeAll() }
        written.insert(origin)
        insert.bind(1, String(decoding: origin, as: UTF8.self))
        try insert.run(db)
    }
}
