import ArgumentParser
import CatalogKit

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Count items by format, files, errors; show the catalog's path and size.")

    @OptionGroup var catalog: CatalogOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let stats = try catalog.openStore().stats()
        let formats = stats.itemsByFormat.sorted { $0.key < $1.key }
        if json {
            let byFormat = formats.map { "\(PathText.jsonString($0.key)):\($0.value)" }.joined(separator: ",")
            print("""
                {"path":\(PathText.jsonString(stats.path)),"bytes":\(stats.bytesOnDisk),"generation":\(stats.generation),\
                "items":\(stats.items),"itemsByFormat":{\(byFormat)},"imported":\(stats.importedItems),"files":\(stats.files),\
                "unsupported":\(stats.unsupportedFiles),"errors":\(stats.failedFiles)}
                """)
        } else {
            print("catalog     \(stats.path) (\(stats.bytesOnDisk) bytes)")
            print("generation  \(stats.generation)")
            print("items       \(stats.items)" + (formats.isEmpty ? "" : " (" + formats.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"))
            print("files       \(stats.files) scanned, \(stats.unsupportedFiles) unsupported, \(stats.failedFiles) errors")
        }
    }
}
