import CatalogModel
import Foundation

/// `catalog import`: items whose images are not local files, upserted by key in one
/// transaction.
enum Importer {
    /// Reads `source` (a path, or "-" for standard input), parses it and imports it.
    static func run(source: String, format: ImportParser.Format?, store: any CatalogBackend) throws(StoreError) -> ImportSummary {
        let bytes: [UInt8]
        if source == "-" {
            bytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw .cannotOpen(path: source, reason: "cannot read the import file")
            }
            bytes = [UInt8](data)
        }
        let chosen = format ?? (source.hasSuffix(".csv") ? .csv : source.hasSuffix(".ndjson") || source.hasSuffix(".jsonl") ? .ndjson : ImportParser.sniff(bytes))
        let rows = try ImportParser.parse(bytes, format: chosen)
        let lock = try store.lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        return try store.importItems(rows, importedAt: Timestamps.now())
    }
}
