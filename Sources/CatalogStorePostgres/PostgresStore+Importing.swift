package import CatalogModel
import Foundation
import NIOCore
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Upserts rows by key in one transaction: the rows stream with COPY (batch by batch from
    /// `next`, so memory holds one batch) into a temporary table, are checked there (a key seen
    /// twice, a scanned file's path: the first such line is refused and nothing is written), and
    /// go into the items with one UPDATE and one INSERT. Into an empty catalog they go straight
    /// into the items (`importIntoEmptyCatalog`), and the order data is cut from them as they go
    /// (ImportedOrder), which holds up to `importOrderBytes` of them: 1,000,000 rows took 4.4 s
    /// instead of 9.6 s, 2.3 s of it the COPY (BENCHMARKS.md).
    package func importItems(from next: () throws(StoreError) -> [ImportRow]?, importedAt: String,
                             committed: () -> Void) throws(StoreError) -> ImportSummary {
        do {
            return try connections.withSession { session in
                do {
                    let (summary, fromRows) = try session.transaction {
                        let written = try Self.importItems(session, from: next, importedAt: importedAt,
                                                           orderBytes: importOrderBytes.load(ordering: .relaxed))
                        try session.script(PostgresChangeListener.notify)
                        return written
                    }
                    committed()
                    if fromRows { importsWithOrderDataFromRows.add(1, ordering: .relaxed) }
                    return summary
                } catch let nothing as NothingChanged {
                    return nothing.summary
                }
            }
        } catch {
            throw wrap(error)
        }
    }

    /// The import's summary, and whether its order data was cut from its rows.
    private static func importItems(_ session: PostgresSession, from next: () throws(StoreError) -> [ImportRow]?,
                                    importedAt: String, orderBytes: Int) throws -> (ImportSummary, Bool) {
        let current = try session.value("SELECT generation FROM catalog", as: Int64.self) ?? 0
        guard let first = try next(), !first.isEmpty else {
            return (ImportSummary(added: 0, updated: 0, generation: current), false)
        }
        let generation = try nextGeneration(session)
        let before = try session.value("SELECT count(*)::int8 FROM items", as: Int.self) ?? 0
        var origins = Set<[UInt8]>()
        let count: Int
        var added = 0
        var updated = 0
        var unlogged = false
        // Into an empty catalog, the order data is cut from the rows as they are copied.
        let imported = before == 0 ? ImportedOrder<PostgresOrderData.ChunkCutter>(budget: orderBytes, importedAt: importedAt) : nil
        defer { imported?.close() }
        if let imported {
            count = try importIntoEmptyCatalog(session, first: first, then: next, importedAt: importedAt, generation: generation,
                                               origins: &origins, imported: imported)
            added = count
        } else {
            try session.script("""
                CREATE TEMPORARY TABLE import_rows (
                    line bigint NOT NULL, key text NOT NULL, pixel_width integer NOT NULL, pixel_height integer NOT NULL,
                    orientation smallint NOT NULL, width integer NOT NULL, height integer NOT NULL, capture_date text,
                    sort_date text NOT NULL, url text, title text
                ) ON COMMIT DROP
                """)
            count = try copy(first, then: next, origins: &origins, into: session, table: "import_rows") { row, buffer in
                CopyText.append(row, importedAt: importedAt, to: &buffer)
            }
            // A temporary table has no statistics: without them the planner may join a few rows
            // with a whole catalog by scanning it, where each row's key is one index lookup.
            try session.execute("ANALYZE import_rows")
            // The first refused line, as the SQLite store refuses it row by row.
            try refuseFirstBadLine(session)
            // A change of more than a tenth of the catalog is a reload for clients: not logged row by
            // row. Rows that leave their items as they are do not count: when the input is past the
            // mark, the rows that would change something are counted first.
            let reloadMark = max(ChangeLogBounds.reloadRows, before / 10)
            if count > reloadMark {
                let changing = try session.value(PostgresQuery(unsafeSQL: """
                    SELECT count(*)::int8 FROM import_rows r LEFT JOIN items ON items.key = convert_to(r.key, 'UTF8')
                    WHERE items.id IS NULL OR \(differs)
                    """), as: Int.self) ?? 0
                unlogged = changing > reloadMark
            }
            if unlogged { try session.execute("UPDATE change_log SET enabled = false") }
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
        let fromRows = try imported.map { try PostgresOrderData.rebuild(session, from: $0) } ?? false
        if !fromRows { try PostgresOrderData.refresh(session, force: true) }
        _ = try pruneStaleLayouts(session)
        return (ImportSummary(added: added, updated: updated, unchanged: count - added - updated, generation: generation), fromRows)
    }

    /// The columns of `items` an import into an empty catalog copies, in `CopyText.appendItem`'s order.
    private static let copiedColumns = ["id", "key", "source", "pixel_width", "pixel_height", "orientation", "width", "height",
                                        "capture_date", "imported_at", "sort_date", "url", "title", "changed_generation"]

    /// Into an empty catalog no key can conflict with an item, so the rows are copied straight
    /// into `items` (one COPY, in line order, so the ids follow the lines), with the unique key
    /// index and the date index dropped before and made again after by sorting, as the SQLite
    /// store builds its own. A key the input holds twice is found when the unique key index is
    /// made: the first line that repeats one is worked out then, from the ids (given one after
    /// the other: the dropped index holds the table's lock, so no other writer takes an id
    /// meanwhile) and the lines the rows came from. The rows go to `imported` too, which cuts
    /// them into order data while the indexes are made. Returns how many rows it copied.
    /// 1,000,000 rows: the insert from a temporary table took 4.1 s instead of 7.9 s upserted with
    /// the indexes in place, the unique key index made after it 0.6 to 1.5 s less; the COPY
    /// straight into `items` saves the temporary table's COPY and the insert from it (BENCHMARKS.md).
    private static func importIntoEmptyCatalog(_ session: PostgresSession, first: [ImportRow], then next: () throws(StoreError) -> [ImportRow]?,
                                               importedAt: String, generation: Int64, origins: inout Set<[UInt8]>,
                                               imported: ImportedOrder<PostgresOrderData.ChunkCutter>) throws -> Int {
        // The constraint's name is PostgreSQL's for Migrations/postgres/0001's `key bytea NOT NULL UNIQUE`.
        try session.execute("DROP INDEX items_by_date")
        try session.execute("ALTER TABLE items DROP CONSTRAINT items_key_key")
        // Where the ids' sequence stands (read under the table's lock), to put it back if the
        // import is refused: a sequence is not rolled back, and SQLite gives the next import's
        // items the ids this one would have taken.
        let sequence = try session.value("SELECT pg_get_serial_sequence('items', 'id')", as: String.self) ?? "items_id_seq"
        guard let (lastValue, isCalled) = try session.rows(PostgresQuery(unsafeSQL: "SELECT last_value, is_called FROM \(sequence)")).first?
            .decode((Int64, Bool).self) else { throw StoreError.database("cannot read the sequence \(sequence)") }
        var lines = LineNumbers()
        try session.execute("SAVEPOINT copying")
        let count: Int
        // The ids given here, in line order, as the sequence would give them (the table's lock
        // keeps every other writer out): the COPY then asks the sequence for none, 14 % of the
        // COPY's time in psql at 1,000,000 rows, within the noise of the whole import (BENCHMARKS.md).
        var nextID = isCalled ? lastValue + 1 : lastValue
        do {
            count = try copy(first, then: next, origins: &origins, into: session, table: "items", columns: copiedColumns,
                             noting: imported.note) { row, buffer in
                lines.append(row.line)
                CopyText.appendItem(row, id: nextID, importedAt: importedAt, generation: generation, to: &buffer)
                nextID += 1
            }
            // `first` holds a row at least: the sequence moves past the last id given.
            _ = try session.execute(PostgresQuery(unsafeSQL: "SELECT setval($1::regclass, $2, true)", binds: try binds(sequence, nextID - 1)))
            try PostgresOrderData.startCutting(session, imported, items: count)
            try session.execute("SAVEPOINT unique_keys")
            do {
                try session.execute("ALTER TABLE items ADD CONSTRAINT items_key_key UNIQUE (key)")
            } catch where PostgresConnections.sqlState(error) == "23505" {
                try session.execute("ROLLBACK TO SAVEPOINT unique_keys")
                // The second item of each key seen twice (a key's items in id order); the first of those.
                if let repeated = try session.rows("""
                    SELECT id - (SELECT min(id) FROM items), convert_from(key, 'UTF8') FROM (
                        SELECT id, key, row_number() OVER (PARTITION BY key ORDER BY id) AS seen FROM items) AS numbered
                    WHERE seen = 2 ORDER BY id LIMIT 1
                    """).first {
                    let (index, key) = try repeated.decode((Int, String).self)
                    throw StoreError.invalidInput(line: lines[index], reason: "key \"\(key)\" appears twice")
                }
                throw error
            }
        } catch {
            // Refused (a key twice, a line the parser refused mid-COPY): no order data is cut, and
            // the sequence put back, on a connection that still answers; the caller rolls the
            // rest back.
            imported.cancel()
            if (try? session.execute("ROLLBACK TO SAVEPOINT copying")) != nil {
                _ = try? session.execute(PostgresQuery(unsafeSQL: "SELECT setval($1::regclass, $2, $3)", binds: try binds(sequence, lastValue, isCalled)))
            }
            throw error
        }
        try session.execute("CREATE INDEX items_by_date ON items (sort_date DESC, key ASC)")
        return count
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

    /// Streams the rows into `table` (its `columns`, all when empty) with COPY (text format), each
    /// as `encode` writes it, each batch handed to `noting` once handed to the COPY; returns how many. `next`
    /// is called on this thread only: the rows are encoded here (and their web origins noted)
    /// and handed to the COPY, which
    /// runs on a thread of its own (PostgresNIO's COPY is async), a few buffers ahead at most.
    private static func copy(_ first: [ImportRow], then next: () throws(StoreError) -> [ImportRow]?, origins: inout Set<[UInt8]>,
                             into session: PostgresSession, table: String, columns: [String] = [],
                             noting: ([ImportRow]) -> Void = { _ in }, encode: (ImportRow, inout ByteBuffer) -> Void) throws -> Int {
        // A buffer, the producer's error, or nil at the end.
        let buffers = Handoff<Result<ByteBuffer, any Error>?>(capacity: 4)
        let connection = session.connection
        let copying = BlockingTask {
            defer { buffers.cancel() } // a failed COPY stops the producer below at its next put
            try await connection.copyFrom(table: table, columns: columns, logger: PostgresConnections.logger) { writer in
                while let buffer = try buffers.take()?.get() { try await writer.write(buffer) }
            }
        }
        // A connection that closes under the COPY (the server stopped) leaves it waiting for
        // ever, and this import with the catalog's write lock: both end now, the import failing
        // as the database gone.
        connection.closeFuture.whenComplete { _ in
            copying.fail(ConnectionGone())
            buffers.cancel()
        }
        var count = 0
        var runs = WebOrigin.Runs()
        do {
            var rows = first
            repeat {
                var buffer = ByteBuffer()
                for row in rows {
                    encode(row, &buffer)
                    if let url = row.url, let origin = runs.next(url) { origins.insert(origin) }
                }
                guard buffers.put(.success(buffer)) else { break }
                noting(rows)
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
    /// A row as the columns of the temporary table `import_rows`.
    static func append(_ row: ImportRow, importedAt: String, to buffer: inout ByteBuffer) {
        number(row.line, &buffer)
        text(row.key, &buffer)
        sizesAndDate(row, &buffer)
        sortDateAndWeb(row, importedAt: importedAt, &buffer)
        endRow(&buffer)
    }

    /// A row as the columns of `PostgresStore.copiedColumns`: its id, the key as bytea (hex).
    static func appendItem(_ row: ImportRow, id: Int64, importedAt: String, generation: Int64, to buffer: inout ByteBuffer) {
        number(Int(id), &buffer)
        buffer.writeString("\\\\x")
        var key = row.key
        key.withUTF8 { bytes in
            for byte in bytes {
                buffer.writeInteger(hexDigits[Int(byte >> 4)])
                buffer.writeInteger(hexDigits[Int(byte & 0x0F)])
            }
        }
        buffer.writeInteger(UInt8(ascii: "\t"))
        number(1, &buffer) // source: an import
        sizesAndDate(row, &buffer)
        text(importedAt, &buffer)
        sortDateAndWeb(row, importedAt: importedAt, &buffer)
        number(Int(generation), &buffer)
        endRow(&buffer)
    }

    /// Pixel width and height, orientation, display width and height (after orientation), and
    /// capture date: the columns both tables have in this order.
    private static func sizesAndDate(_ row: ImportRow, _ buffer: inout ByteBuffer) {
        number(row.width, &buffer)
        number(row.height, &buffer)
        number(row.orientation, &buffer)
        number(row.displayWidth, &buffer)
        number(row.displayHeight, &buffer)
        text(row.date, &buffer)
    }

    /// The sort date (the capture date, else the import's time), address and title.
    private static func sortDateAndWeb(_ row: ImportRow, importedAt: String, _ buffer: inout ByteBuffer) {
        text(row.date ?? importedAt, &buffer)
        text(row.url, &buffer)
        text(row.title, &buffer)
    }

    /// Ends the row: the tab after its last field becomes the line's end.
    private static func endRow(_ buffer: inout ByteBuffer) {
        buffer.moveWriterIndex(to: buffer.writerIndex - 1)
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A text field and the tab after it.
    static func text(_ value: String?, _ buffer: inout ByteBuffer) {
        field(value, &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
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

/// The input lines of the rows of an import, by position: kept as the positions where a line is
/// not the one after the line before (a record over several lines, the first row), so a file of
/// one record a line costs one entry.
struct LineNumbers {
    private var starts: [(position: Int, line: Int)] = []
    private(set) var count = 0
    /// Positions kept (for tests).
    var entries: Int { starts.count }

    mutating func append(_ line: Int) {
        if let last = starts.last, last.line + (count - last.position) == line {
            count += 1
            return
        }
        starts.append((count, line))
        count += 1
    }

    subscript(position: Int) -> Int {
        // The last start at or before `position`.
        var low = 0, high = starts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle].position <= position { low = middle } else { high = middle }
        }
        return starts[low].line + (position - starts[low].position)
    }
}
