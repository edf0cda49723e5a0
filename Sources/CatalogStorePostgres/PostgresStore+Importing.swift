package import CatalogModel
import Foundation
import NIOCore
import PostgresNIO

extension PostgresStore {
    /// Upserts rows by key in one transaction: the rows stream into a temporary table with COPY
    /// (batch by batch from `next`, so memory holds one batch), are checked there (a key seen
    /// twice, a scanned file's path: the first such line is refused and nothing is written), and
    /// go into the items with one INSERT (with ON CONFLICT unless the catalog was empty).
    package func importItems(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String) throws(StoreError) -> ImportSummary {
        do {
            return try connections.withSession { session in
                do {
                    return try session.transaction {
                        let summary = try Self.importItems(session, from: next, importedAt: importedAt)
                        try session.script(PostgresChangeListener.notify)
                        return summary
                    }
                } catch let nothing as NothingChanged {
                    return nothing.summary
                }
            }
        } catch {
            throw wrap(error)
        }
    }

    private static func importItems(_ session: PostgresSession, from next: () throws(StoreError) -> [ImportRow]?,
                                    importedAt: String) throws -> ImportSummary {
        let current = try session.value("SELECT generation FROM catalog", as: Int64.self) ?? 0
        guard let first = try next(), !first.isEmpty else {
            return ImportSummary(added: 0, updated: 0, generation: current)
        }
        let generation = try nextGeneration(session)
        let before = try session.value("SELECT count(*)::int8 FROM items", as: Int.self) ?? 0
        try session.script("""
            CREATE TEMPORARY TABLE import_rows (
                line bigint NOT NULL, key text NOT NULL, pixel_width integer NOT NULL, pixel_height integer NOT NULL,
                orientation smallint NOT NULL, width integer NOT NULL, height integer NOT NULL, capture_date text,
                sort_date text NOT NULL, url text, title text
            ) ON COMMIT DROP
            """)
        var origins = Set<[UInt8]>()
        let count = try copy(first, then: next, importedAt: importedAt, origins: &origins, into: session)
        // A temporary table has no statistics: without them the planner may join a few rows
        // with a whole catalog by scanning it, where each row's key is one index lookup.
        try session.execute("ANALYZE import_rows")
        // The first refused line, as the SQLite store refuses it row by row. Into an empty
        // catalog, only once the unique key index made after the insert finds a key twice: a
        // sort of every key for nothing, most of the time (0.6 s at 1,000,000 rows).
        if before > 0 { try refuseFirstBadLine(session) }
        // A change of more than a tenth of the catalog is a reload for clients: not logged row by
        // row. Rows that leave their items as they are do not count: when the input is past the
        // mark, the rows that would change something are counted first.
        let reloadMark = max(ChangeLogBounds.reloadRows, before / 10)
        var unlogged = false
        if before > 0 && count > reloadMark {
            let changing = try session.value(PostgresQuery(unsafeSQL: """
                SELECT count(*)::int8 FROM import_rows r LEFT JOIN items ON items.key = convert_to(r.key, 'UTF8')
                WHERE items.id IS NULL OR \(differs)
                """), as: Int.self) ?? 0
            unlogged = changing > reloadMark
        }
        if unlogged { try session.execute("UPDATE change_log SET enabled = false") }
        var added = 0
        var updated = 0
        if before == 0 {
            // Into an empty catalog no key can conflict with an item (and a key the input holds
            // twice is found when the unique key index is made), so the date index is built once
            // at the end by sorting, as the SQLite store does:
            // 1,000,000 rows in 4.1 s instead of 7.9 s upserted with the index in place. So is
            // the unique key index: its constraint, which PostgreSQL named items_key_key for
            // Migrations/postgres/0001's `key bytea NOT NULL UNIQUE`, made again after the
            // insert (0.6 to 1.5 s less at 1,000,000 rows). A refused import rolls both back.
            try session.execute("DROP INDEX items_by_date")
            try session.execute("ALTER TABLE items DROP CONSTRAINT items_key_key")
            added = try session.execute(PostgresQuery(unsafeSQL: insert, binds: try binds(importedAt, generation)))
            try session.execute("SAVEPOINT unique_keys")
            do {
                try session.execute("ALTER TABLE items ADD CONSTRAINT items_key_key UNIQUE (key)")
            } catch where PostgresConnections.sqlState(error) == "23505" {
                try session.execute("ROLLBACK TO SAVEPOINT unique_keys")
                try refuseFirstBadLine(session)
                throw error
            }
            try session.execute("CREATE INDEX items_by_date ON items (sort_date DESC, key ASC)")
        } else {
            // Only the items a row changes are written (every update is a new row version), and
            // only new items take an id, as on SQLite.
            updated = try session.execute(PostgresQuery(unsafeSQL: """
                UPDATE items SET pixel_width = r.pixel_width, pixel_height = r.pixel_height, orientation = r.orientation,
                    width = r.width, height = r.height, capture_date = r.capture_date,
                    sort_date = coalesce(r.capture_date, items.imported_at, r.sort_date), url = r.url, title = r.title,
                    changed_generation = $1
                FROM import_rows r WHERE items.key = convert_to(r.key, 'UTF8') AND \(differs)
                """, binds: try binds(generation)))
            added = try session.execute(PostgresQuery(unsafeSQL: insert.replacingOccurrences(
                of: "FROM import_rows r", with: "FROM import_rows r WHERE NOT EXISTS (SELECT FROM items WHERE items.key = convert_to(r.key, 'UTF8'))"),
                binds: try binds(importedAt, generation)))
        }
        guard added + updated > 0 else {
            // Nothing changed: the transaction is rolled back, and the generation stays.
            throw NothingChanged(summary: ImportSummary(added: 0, updated: 0, unchanged: count, generation: current))
        }
        if unlogged {
            try session.execute("UPDATE change_log SET enabled = true, kept_from = greatest(kept_from, \(generation))")
            try session.execute("DELETE FROM item_changes WHERE generation <= \(generation)")
        }
        for origin in origins {
            try session.execute("INSERT INTO web_origins (origin) VALUES (\(String(decoding: origin, as: UTF8.self))) ON CONFLICT DO NOTHING")
        }
        try PostgresOrderData.refresh(session, force: true)
        _ = try pruneStaleLayouts(session)
        return ImportSummary(added: added, updated: updated, unchanged: count - added - updated, generation: generation)
    }

    /// Throws for the first line of `import_rows` that cannot be imported: its key came on a
    /// line before, or is a scanned file's path.
    private static func refuseFirstBadLine(_ session: PostgresSession) throws {
        if let refused = try session.rows("""
            SELECT line, key, reason FROM (
                SELECT line, key, 'appears twice' AS reason
                FROM (SELECT line, key, row_number() OVER (PARTITION BY key ORDER BY line) AS seen FROM import_rows) AS numbered
                WHERE seen = 2
                UNION ALL
                SELECT r.line, r.key, 'is a scanned file''s path' FROM import_rows r
                JOIN items i ON i.key = convert_to(r.key, 'UTF8') AND i.source = 0
            ) AS problems ORDER BY line LIMIT 1
            """).first {
            let (line, key, reason) = try refused.decode((Int, String, String).self)
            throw StoreError.invalidInput(line: line, reason: "key \"\(key)\" \(reason)")
        }
    }

    /// The insert of the rows of `import_rows` into `items`, in line order ($1 the import's
    /// time, $2 its generation).
    private static let insert = """
        INSERT INTO items (key, source, pixel_width, pixel_height, orientation, width, height, capture_date,
                           imported_at, sort_date, url, title, changed_generation)
        SELECT convert_to(key, 'UTF8'), 1, pixel_width, pixel_height, orientation, width, height, capture_date,
               $1, sort_date, url, title, $2
        FROM import_rows r ORDER BY line
        """

    /// Whether the import row `r` changes the item `items` of its key: the columns an import
    /// sets, the sort date as it would set it (the display size follows from the others).
    private static let differs = """
        (items.pixel_width, items.pixel_height, items.orientation, items.capture_date, items.url, items.title, items.sort_date)
            IS DISTINCT FROM (r.pixel_width, r.pixel_height, r.orientation, r.capture_date, r.url, r.title,
                              coalesce(r.capture_date, items.imported_at, r.sort_date))
        """

    /// Thrown out of an import's transaction, to roll it back, when it changed nothing.
    private struct NothingChanged: Error {
        let summary: ImportSummary
    }

    /// Streams the rows into `import_rows` with COPY (text format); returns how many. `next`
    /// is called on this thread only: the rows are encoded here (and their web origins noted)
    /// and handed to the COPY, which
    /// runs on a thread of its own (PostgresNIO's COPY is async), a few buffers ahead at most.
    private static func copy(_ first: [ImportRow], then next: () throws(StoreError) -> [ImportRow]?, importedAt: String,
                             origins: inout Set<[UInt8]>, into session: PostgresSession) throws -> Int {
        // A buffer, the producer's error, or nil at the end.
        let buffers = Handoff<Result<ByteBuffer, any Error>?>(capacity: 4)
        let connection = session.connection
        let copying = BlockingTask {
            defer { buffers.cancel() } // a failed COPY stops the producer below at its next put
            try await connection.copyFrom(table: "import_rows", logger: PostgresConnections.logger) { writer in
                while let buffer = try buffers.take()?.get() { try await writer.write(buffer) }
            }
        }
        var count = 0
        var runs = WebOrigin.Runs()
        do {
            var rows = first
            repeat {
                var buffer = ByteBuffer()
                for row in rows {
                    CopyText.append(row, importedAt: importedAt, to: &buffer)
                    if let url = row.url, let origin = runs.next(url) { origins.insert(origin) }
                }
                guard buffers.put(.success(buffer)) else { break }
                count += rows.count
                rows = try next() ?? []
            } while !rows.isEmpty
            buffers.put(nil)
        } catch {
            buffers.put(.failure(error))
            _ = try? copying.wait()
            throw error
        }
        try copying.wait()
        return count
    }
}

/// COPY's text format: tab-separated fields, `\N` for NULL, backslash escapes.
enum CopyText {
    static func append(_ row: ImportRow, importedAt: String, to buffer: inout ByteBuffer) {
        let swapped = row.orientation >= 5
        number(row.line, &buffer)
        field(row.key, &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        number(row.width, &buffer)
        number(row.height, &buffer)
        number(row.orientation, &buffer)
        number(swapped ? row.height : row.width, &buffer)
        number(swapped ? row.width : row.height, &buffer)
        field(row.date, &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        field(row.date ?? importedAt, &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        field(row.url, &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        field(row.title, &buffer)
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// A whole number and the tab after it (a short string: no allocation).
    static func number(_ value: Int, _ buffer: inout ByteBuffer) {
        buffer.writeString(String(value))
        buffer.writeInteger(UInt8(ascii: "\t"))
    }

    static func field(_ text: String?, _ buffer: inout ByteBuffer) {
        guard var text else {
            buffer.writeString("\\N")
            return
        }
        text.withUTF8 { bytes in
            // Most text has nothing to escape, and is written at once.
            guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else {
                buffer.writeBytes(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeString("\\t")
                case UInt8(ascii: "\n"): buffer.writeString("\\n")
                case UInt8(ascii: "\r"): buffer.writeString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }
}
