import ArgumentParser
import CatalogKit

struct Errors: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List files that could not be read, and why.")

    @OptionGroup var catalog: CatalogOptions

    @Flag(help: "One JSON object per line.")
    var json = false

    func run() throws {
        for error in try catalog.openExisting().fileErrors() {
            print(json ? StatsText.json(error) : StatsText.text(error))
        }
    }
}
