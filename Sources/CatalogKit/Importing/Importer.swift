import CatalogModel
import Foundation

/// `catalog import`: items whose images are not local files, upserted by key in one
/// transaction. The input is parsed on a thread of its own while SQLite writes the rows parsed
/// before them, a bounded number of batches ahead: memory holds a few batches, whatever the
/// input's length.
enum Importer {
    static let batchSize = 4096

    /// Reads `source` (a path, or "-" for standard input), parses it and imports it.
    static func run(source: String, format: ImportParser.Format?, store: any CatalogBackend) throws(StoreError) -> ImportSummary {
        try run(ImportInput(source: source), format: format, store: store)
    }

    /// Parses `input` and imports it.
    /// `locked` is called once the import holds the catalog's write lock, `committed` once its
    /// transaction has committed.
    static func run(_ input: ImportInput, format: ImportParser.Format?, store: any CatalogBackend,
                    locked: () -> Void = {}, committed: () -> Void = {}) throws(StoreError) -> ImportSummary {
        let source = input.source
        let first = try input.peek()
        if let reason = ImportParser.unreadableInput(first) { throw .invalidInput(line: 1, reason: reason) }
        var named = format ?? (source.hasSuffix(".csv") ? .csv : source.hasSuffix(".ndjson") || source.hasSuffix(".jsonl") ? .ndjson : nil)
        if named == nil { named = ImportParser.sniff(first) }
        let chosen = named!
        let longestKey = store.longestKey
        let lock = try store.lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        locked()
        // A batch; nil: the input ended; an error: the input is refused at that line.
        let handoff = Handoff<Result<[ImportRow]?, StoreError>>(capacity: 4)
        nonisolated(unsafe) let unsafeInput = input
        handoff.startProducer { handoff in
            do throws(StoreError) {
                try parse(unsafeInput, format: chosen, longestKey: longestKey, into: handoff)
                handoff.put(.success(nil))
            } catch {
                handoff.put(.failure(error))
            }
        }
        defer { handoff.stop() } // a refused row stops the parser at its next batch
        var summary: ImportSummary
        do {
            summary = try store.importItems(from: { () throws(StoreError) in try handoff.take().get() }, importedAt: Timestamps.now(),
                                            committed: committed)
        } catch {
            throw namingFirstLine(error, input: input, format: chosen)
        }
        if chosen == .csv { summary.ignoredColumns = CSVReader.ignoredColumns(first) }
        if chosen == .ndjson {
            summary.ignoredColumns = NDJSONReader.ignoredFields(first)
            summary.ignoredAreFields = true
        }
        return summary
    }

    /// `error`, and where it refuses a key that a row before it gave, the line of that first row,
    /// found by reading the file again up to the refused line (only the store knows the keys
    /// met so far, and not their lines). Standard input, or an input that is not a regular file
    /// (a pipe), cannot be read again: `error` as it is.
    private static func namingFirstLine(_ error: StoreError, input: ImportInput, format: ImportParser.Format) -> StoreError {
        guard input.source != "-", input.isRegularFile else { return error }
        return namingFirstLine(error) { body throws(StoreError) in
            try forEachRow(try ImportInput(source: input.source), format: format, body)
        }
    }

    /// `error`, and where it refuses a key that a row before it gave, the line of the first row
    /// `rows` hands its body with that key (rows in their input's order).
    static func namingFirstLine(_ error: StoreError, rows: ((ImportRow) throws(StoreError) -> Void) throws(StoreError) -> Void) -> StoreError {
        guard case .invalidInput(let line, let reason) = error, reason.hasPrefix("key \""), reason.hasSuffix("\" appears twice") else { return error }
        do {
            try rows { row throws(StoreError) in
                guard row.line < line else { throw .database("past the refused line") }
                if ImportParser.repeatedKey(row.key) == reason { throw .invalidInput(line: row.line, reason: "") }
            }
        } catch .invalidInput(let first, "") {
            return .invalidInput(line: line, reason: reason + ImportParser.firstLine(first))
        } catch {}
        return error
    }

    /// Refuses a row whose key is longer than the store can index (a catalog in PostgreSQL).
    static func check(_ row: ImportRow, longestKey: Int?) throws(StoreError) {
        if let longestKey, row.key.utf8.count > longestKey {
            throw .invalidInput(line: row.line, reason: "key is \(row.key.utf8.count) bytes, more than the \(longestKey) a catalog in PostgreSQL can index")
        }
    }

    /// Parses the whole input into batches of rows; returns early when the import stopped.
    private static func parse(_ input: ImportInput, format: ImportParser.Format, longestKey: Int?,
                              into handoff: Handoff<Result<[ImportRow]?, StoreError>>) throws(StoreError) {
        var rows: [ImportRow] = []
        rows.reserveCapacity(batchSize)
        try forEachRow(input, format: format) { row throws(StoreError) in
            try check(row, longestKey: longestKey)
            rows.append(row)
            if rows.count == batchSize {
                guard handoff.put(.success(rows)) else { throw .database("import stopped") }
                rows.removeAll(keepingCapacity: true)
            }
        }
        if !rows.isEmpty { _ = handoff.put(.success(rows)) }
    }

    /// Hands `body` each row of the input in turn; the first bad line throws.
    private static func forEachRow(_ input: ImportInput, format: ImportParser.Format,
                                   _ body: (ImportRow) throws(StoreError) -> Void) throws(StoreError) {
        switch format {
        case .csv:
            var reader = CSVReader()
            try input.readRecords(line: { reader.line }) { bytes, atEnd throws(StoreError) in
                try reader.read(bytes, atEnd: atEnd) { line, fields throws(StoreError) in try body(try ImportParser.row(line: line, fields)) }
            }
            try reader.finish()
        case .ndjson:
            var line = 1
            try input.readRecords(line: { line }) { bytes, atEnd throws(StoreError) in
                try NDJSONReader.read(bytes, line: &line, atEnd: atEnd) { line, fields throws(StoreError) in
                    try body(try ImportParser.row(line: line, fields))
                }
            }
        }
    }
}
