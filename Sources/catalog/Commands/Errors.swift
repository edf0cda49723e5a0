import ArgumentParser
import CatalogKit

struct Errors: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List files that could not be read, and why.")

    @OptionGroup var catalog: CatalogOptions

    @Flag(help: "One JSON object per line.")
    var json = false

    func run() throws {
        let store = try catalog.openStore()
        for error in try store.fileErrors() {
            print(json ? #"{"path":\#(PathText.jsonString(error.path)),"reason":\#(PathText.jsonString(error.reason))}"#
                       : "\(PathText.display(error.path))\t\(error.reason)")
        }
    }
}
