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
    static func run(_ input: ImportInput, format: ImportParser.Format?, store: any CatalogBackend) throws(StoreError) -> ImportSummary {
        let source = input.source
        let first = try input.peek()
        if let reason = ImportParser.unreadableInput(first) { throw .invalidInput(line: 1, reason: reason) }
        var named = format ?? (source.hasSuffix(".csv") ? .csv : source.hasSuffix(".ndjson") || source.hasSuffix(".jsonl") ? .ndjson : nil)
        if named == nil { named = ImportParser.sniff(first) }
        let chosen = named!
        let longestKey = store.longestKey
        let lock = try store.lockForWriting()
        defer { withExtendedLifetime(lock) {} }
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
        var summary = try store.importItems(from: { () throws(StoreError) in try handoff.take().get() }, importedAt: Timestamps.now())
        if chosen == .csv { summary.ignoredColumns = CSVReader.ignoredColumns(first) }
        return summary
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
        func emit(_ row: ImportRow) throws(StoreError) {
            try check(row, longestKey: longestKey)
            rows.append(row)
            if rows.count == batchSize {
                guard handoff.put(.success(rows)) else { throw .database("import stopped") }
                rows.removeAll(keepingCapacity: true)
            }
        }
        switch format {
        case .csv:
            var reader = CSVReader()
            try input.readRecords(line: { reader.line }) { bytes, atEnd throws(StoreError) in
                try reader.read(bytes, atEnd: atEnd) { line, fields throws(StoreError) in try emit(try ImportParser.row(line: line, fields)) }
            }
            try reader.finish()
        case .ndjson:
            var line = 1
            try input.readRecords(line: { line }) { bytes, atEnd throws(StoreError) in
                try NDJSONReader.read(bytes, line: &line, atEnd: atEnd) { line, fields throws(StoreError) in
                    try emit(try ImportParser.row(line: line, fields))
                }
            }
        }
        if !rows.isEmpty { _ = handoff.put(.success(rows)) }
    }
}
