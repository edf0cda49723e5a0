package import CatalogModel
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

extension SQLiteStore {
    /// Upserts rows by key in one transaction, batch by batch from `next`: a refused row leaves
    /// the catalog as it was. `width`/`height` are the stored pixel size; orientations 5 to 8
    /// swap the display size.
    package func importItems(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String,
                             committed: () -> Void) throws(StoreError) -> ImportSummary {
        let summary = try importRows(from: next, importedAt: importedAt)
        committed()
        // Once the import is committed, the layouts it made stale go, as after a scan. A layout
        // file busy for seconds does not fail it: pruneStaleLayouts leaves them for next time.
        _ = try pruneStaleLayouts()
        return summary
    }

    private func importRows(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String) throws(StoreError) -> ImportSummary {
        try checkSameFile()
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
                var written: ImportWritten?
                try db.inTransaction {
                    written = try Self.importItems(db, from: next, importedAt: importedAt,
                                                   orderBytes: importOrderBytes.load(ordering: .relaxed))
                    return written!.changed ? .commit : .rollback
                }
                if written!.changed && written!.orderDataFromRows { importsWithOrderDataFromRows.add(1, ordering: .relaxed) }
                return written!.summary
            }
        } catch {
            throw wrap(error, damaged: .catalog)
        }
    }

    /// `orderBytes`: the most the import holds of its rows to make the order data from.
    private static func importItems(_ db: Database, from next: () throws(StoreError) -> [ImportRow]?,
                                    importedAt: String, orderBytes: Int) throws -> ImportWritten {
        let current = try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0
        guard var rows = try next(), !rows.isEmpty else {
            return ImportWritten(summary: ImportSummary(added: 0, updated: 0, generation: current), changed: false)
        }
        let generation = try nextGeneration(db)
        let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM items")!
        // A change of more than a tenth of the catalog is a reload for clients, not a batch: not
        // logged row by row (Migrations/0008_change_log_switch.sql). Its size is known only at
        // the end, so logging stops when the rows added and updated pass that mark; what was
        // logged goes below. Rows that leave their item as it was do not count.
        let reloadMark = max(ChangeLogBounds.reloadRows, before / 10)
        var unlogged = false
        // Into an empty catalog the date index is built once at the end, by sorting, instead of
        // row by row: rows in input order land all over it, and past the page cache each one
        // costs a page read and write (10,000,000 rows: 334 s row by row, 98 s sorted). In the
        // same transaction, so a refused import leaves the index as it was.
        let dateIndex = before == 0
            ? try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'items_by_date'") : nil
        if dateIndex != nil { try db.execute(sql: "DROP INDEX items_by_date") }
        // Into an empty catalog the order data is made from the rows themselves, while they fit
        // their budget, not read back from the items (ImportedOrder).
        let imported = dateIndex != nil ? ImportedOrder<OrderData.ChunkWriter>(budget: orderBytes, importedAt: importedAt) : nil
        defer { imported?.close() }
        // Every row of the input lands in exactly one of `ImportStatements`' kinds, each of which
        // leaves a row this import already met (its `imported_generation` is this generation),
        // and a scanned file's path: a row none of them takes is refused. Many rows go to a
        // statement at once (`importStatementRows`): one statement opens its cursors and descends
        // the table and the key index once for all of them (half the time of a row per
        // statement). A batch that some row of it is in no kind of, or that fails, is undone to
        // its savepoint and run again row by row, which stops at the first refused row.
        let batch = try ImportStatements(db, rows: Self.importStatementRows, emptyCatalog: before == 0)
        let single = try ImportStatements(db, rows: 1, emptyCatalog: before == 0)
        let savepoint = try BulkStatement(db, sql: "SAVEPOINT import_rows")
        let release = try BulkStatement(db, sql: "RELEASE import_rows")
        let undo = try BulkStatement(db, sql: "ROLLBACK TO import_rows")
        let sourceOf = try BulkStatement(db, sql: "SELECT source FROM items WHERE key = ?1")
        var origins = WebOrigins(try BulkStatement(db, sql: "INSERT OR IGNORE INTO web_origins (origin) VALUES (?1)"))
        var written = ImportCounts()
        func oneByOne(_ rows: ArraySlice<ImportRow>) throws {
            for row in rows {
                guard let counts = try single.run(db, rows: 1, bind: {
                    bind(row, at: 0, to: $0, importedAt: importedAt, generation: generation)
                }) else {
                    sourceOf.bind(1, blob: row.key)
                    let reason = try sourceOf.run(db) == 0 ? "is a scanned file's path" : "appears twice"
                    throw StoreError.invalidInput(line: row.line, reason: "key \"\(row.key)\" \(reason)")
                }
                written.add(counts)
            }
        }
        var count = 0
        repeat {
            var start = rows.startIndex
            while rows.endIndex - start >= Self.importStatementRows {
                let slice = rows[start..<start + Self.importStatementRows]
                try savepoint.run(db)
                var counts: ImportCounts?
                var failure: (any Error)?
                do {
                    counts = try batch.run(db, rows: slice.count) { statement in
                        for (position, row) in slice.enumerated() {
                            bind(row, at: Int32(position * upsertColumns), to: statement, importedAt: importedAt, generation: generation)
                        }
                    }
                } catch {
                    failure = error
                }
                if let counts {
                    written.add(counts)
                } else {
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
            imported?.note(rows)
            if count / Self.importFlushRows != (count + rows.count) / Self.importFlushRows {
                // Every dirty page to the WAL once, in one pass: past a full cache SQLite would
                // otherwise spill one page per page it needs, the same date-index pages over and
                // over (3.8 million writes for a 1,000,000-row import, 0.28 million with this).
                try flushCache(db)
            }
            count += rows.count
            if !unlogged && before > 0 && written.added + written.updated > reloadMark {
                unlogged = true
                try db.execute(sql: "UPDATE change_log SET enabled = 0")
            }
            rows = try next() ?? []
        } while !rows.isEmpty
        guard written.added + written.updated > 0 else {
            // Nothing changed: the transaction is rolled back, and the generation stays.
            return ImportWritten(summary: ImportSummary(added: 0, updated: 0, unchanged: written.unchanged, generation: current), changed: false)
        }
        if unlogged {
            try db.execute(sql: "UPDATE change_log SET enabled = 1, kept_from = max(kept_from, ?)", arguments: [generation])
            try db.execute(sql: "DELETE FROM item_changes WHERE generation <= ?", arguments: [generation])
            try db.execute(sql: "DELETE FROM generations WHERE generation < ?", arguments: [generation])
        }
        if let dateIndex {
            // SQLite's sorter sorts runs as large as the page cache, then merges them. Runs of
            // a few MiB sort in the CPU's caches, and a second thread sorts one run while the
            // first reads the next: 1,000,000 rows sort in about half the time of one 64 MiB
            // run, in less memory. The cache's dirty pages are written out first. Meanwhile the
            // order data is cut from the rows on a thread of its own.
            if let imported { try OrderData.startCutting(db, imported, items: written.added) }
            try flushCache(db)
            try db.execute(sql: "PRAGMA cache_size = -\(Self.importSortKiB); PRAGMA threads = \(Self.importSortThreads)")
            // The pages the smaller cache let go are free, but malloc keeps them: they go back to
            // the system before SQLite's sorter takes memory of its own (10,000,000 rows: a peak
            // of 263-303 MB without this, 271 MB with it and the rows' order data).
            releaseFreeMemory()
            try db.execute(sql: dateIndex)
            // The order data's rebuild below (when the rows did not fit their budget) runs on half
            // the import's cache: its sizes by id (up to 12 bytes an item) take the rest of the
            // import's memory bound.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.importCacheKiB / 2); PRAGMA threads = 0")
        }
        let fromRows = try imported.map { try OrderData.rebuild(db, from: $0) } ?? false
        if !fromRows { try OrderData.refresh(db, force: true) }
        return ImportWritten(summary: ImportSummary(added: written.added, updated: written.updated, unchanged: written.unchanged,
                                                    generation: generation), changed: true, orderDataFromRows: fromRows)
    }
}

/// An import's summary, and whether it changed the catalog (else its transaction is rolled back).
private struct ImportWritten {
    var summary: ImportSummary
    var changed: Bool
    /// Whether the order data was cut from the rows (ImportedOrder), not read back from the items.
    var orderDataFromRows = false
}

/// How many rows of an import added an item, updated one, or left one as it was.
private struct ImportCounts {
    var added = 0
    var updated = 0
    var unchanged = 0

    mutating func add(_ other: ImportCounts) {
        added += other.added
        updated += other.updated
        unchanged += other.unchanged
    }
}

/// The statements an import writes `rows` rows with, each bound (`upsertColumns` parameters a
/// row, as `bind` binds them) just before it runs.
///
/// Into an empty catalog, one insert: a key it meets again appears twice. Into one with items,
/// four kinds whose conditions part the rows, each run until the rows' count is reached, the
/// kind that took most rows in the last run first (importing the same export again: the rows
/// that leave their items as they were, nearly every row, in one statement):
/// - `unchanged`: the row leaves its item as it was; only `imported_generation` is written;
/// - `updated`: the row changes its item but not its sort date, which the statement does not
///   set: SQLite rewrites an entry of every index of a column an UPDATE sets, even to the value
///   it had, and the date index's entries, in key order, land all over it (importing 1,000,000
///   unchanged rows again: 9.4 s with the date set, 3.5 s without; BENCHMARKS.md, "Importing
///   the same export again");
/// - `dated`: the row changes its item's sort date;
/// - `added`: a key that is in no item yet. Only new items take an id.
private final class ImportStatements {
    private enum Kind { case added, updated, dated, unchanged }
    private var statements: [(kind: Kind, statement: BulkStatement, last: Int)]

    init(_ db: Database, rows: Int, emptyCatalog: Bool) throws {
        let kinds: [Kind] = emptyCatalog ? [.added] : [.unchanged, .added, .updated, .dated]
        statements = try kinds.map { kind in
            let sql = switch kind {
            case .added: emptyCatalog ? insertSQL(rows: rows) : insertNewSQL(rows: rows)
            case .updated: updateSQL(rows: rows, dated: false)
            case .dated: updateSQL(rows: rows, dated: true)
            case .unchanged: markSQL(rows: rows)
            }
            return (kind, try BulkStatement(db, sql: sql), 0)
        }
    }

    /// Runs the statements, each bound by `bind` first, until every one of the `rows` rows is
    /// written; nil if some row is in no kind (the caller undoes what was written).
    func run(_ db: Database, rows: Int, bind: (BulkStatement) -> Void) throws -> ImportCounts? {
        var counts = ImportCounts()
        var left = rows
        for index in statements.indices {
            statements[index].last = 0
            guard left > 0 else { continue }
            bind(statements[index].statement)
            try statements[index].statement.run(db)
            let changed = db.changesCount
            statements[index].last = changed
            left -= changed
            switch statements[index].kind {
            case .added: counts.added += changed
            case .updated, .dated: counts.updated += changed
            case .unchanged: counts.unchanged += changed
            }
        }
        statements.sort { $0.last > $1.last }
        return left == 0 ? counts : nil
    }
}

/// The insert of `rows` import rows into an empty catalog: a key met twice is left (no row
/// changes), which tells it apart.
private func insertSQL(rows: Int) -> String {
    let values = (0..<rows).map { row in
        let parameters = importParameters(row: row)
        return "(\(parameters[0]), 1, \(parameters[1...].joined(separator: ", ")), \(parameters[11]))"
    }
    return """
        INSERT INTO items (\(insertedColumns))
        VALUES \(values.joined(separator: ", "))
        ON CONFLICT(key) DO NOTHING
        """
}

/// The insert of those of `rows` import rows whose key is in no item yet.
private func insertNewSQL(rows: Int) -> String {
    """
    INSERT INTO items (\(insertedColumns))
    SELECT v.column1, 1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8, v.column9,
           v.column10, v.column11, v.column12, v.column12
    FROM (VALUES \(valuesList(rows: rows))) AS v
    WHERE NOT EXISTS (SELECT 1 FROM items WHERE items.key = v.column1)
    """
}

private let insertedColumns = """
    key, source, pixel_width, pixel_height, orientation, width, height, capture_date,
    imported_at, sort_date, url, title, changed_generation, imported_generation
    """

/// The update of the imported items, not met yet by this import, that `rows` import rows
/// change: with `dated`, those whose sort date changes (and it), else the others.
private func updateSQL(rows: Int, dated: Bool) -> String {
    let sortDate = sortDateSQL(captureDate: "v.column7", given: "v.column9")
    return """
        UPDATE items SET pixel_width = v.column2, pixel_height = v.column3, orientation = v.column4,
            width = v.column5, height = v.column6, capture_date = v.column7,\(dated ? " sort_date = \(sortDate)," : "")
            url = v.column10, title = v.column11, changed_generation = v.column12, imported_generation = v.column12
        FROM (VALUES \(valuesList(rows: rows))) AS v
        WHERE items.key = v.column1 AND items.source = 1 AND items.imported_generation < v.column12
            AND \(dated ? "items.sort_date IS NOT \(sortDate)" : "items.sort_date IS \(sortDate) AND NOT (\(sameSQL))")
        """
}

/// The mark, on the imported items not met yet by this import that `rows` import rows leave as
/// they are, that this import met them.
private func markSQL(rows: Int) -> String {
    """
    UPDATE items SET imported_generation = v.column12
    FROM (VALUES \(valuesList(rows: rows))) AS v
    WHERE items.key = v.column1 AND items.source = 1 AND items.imported_generation < v.column12
        AND items.sort_date IS \(sortDateSQL(captureDate: "v.column7", given: "v.column9")) AND \(sameSQL)
    """
}

/// Whether the import row `v` leaves the item's columns it sets but the sort date as they are
/// (the display size follows from the pixel size and the orientation).
private let sameSQL = """
    items.pixel_width = v.column2 AND items.pixel_height = v.column3 AND items.orientation = v.column4
        AND items.capture_date IS v.column7 AND items.url IS v.column10 AND items.title IS v.column11
    """

private func valuesList(rows: Int) -> String {
    (0..<rows).map { "(" + importParameters(row: $0).joined(separator: ", ") + ")" }.joined(separator: ", ")
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
    statement.bind(offset + 1, blob: row.key)
    statement.bind(offset + 2, row.width)
    statement.bind(offset + 3, row.height)
    statement.bind(offset + 4, row.orientation)
    statement.bind(offset + 5, row.displayWidth)
    statement.bind(offset + 6, row.displayHeight)
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

/// Gives the memory malloc holds free back to the system: glibc's `malloc_trim`, which Swift's
/// Glibc module does not declare, looked up by name.
private func releaseFreeMemory() {
    #if canImport(Glibc)
    typealias Trim = @convention(c) (Int) -> Int32
    if let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") { // RTLD_DEFAULT
        _ = unsafeBitCast(trim, to: Trim.self)(0)
    }
    #endif
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
