import ArgumentParser
import CatalogKit

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Count items by format, files, errors; show the catalog's path and size.")

    @OptionGroup var catalog: CatalogOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let stats = try catalog.openExisting().stats()
        print(json ? StatsText.json(stats) : StatsText.text(stats))
    }
}
