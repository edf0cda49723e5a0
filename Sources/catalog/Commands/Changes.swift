import ArgumentParser
import CatalogKit

struct Changes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The batch that turns the order at a past generation into the order now.",
        discussion: """
            A client showing the catalog at generation G (each page says its generation) asks for the deletes (indices in \
            the old order), inserts (indices in the new order), moves (old index → new index) and updates (items kept in \
            place whose key, date or display size changed, or whose title, address or file did: old index → new \
            index, the old one being what a reload inside the batch takes) to apply as one batch, as \
            UICollectionView.performBatchUpdates and IGListKit take them. An item that moved and changed is a delete and \
            an insert. When the change log no longer reaches G (it keeps the last 1,000 generations and at most \
            1,000,000 changes, and an import of more than a tenth of the catalog, and of more than 100,000 rows, is not logged) or G is ahead of the \
            catalog, the answer is "reload": list the catalog again.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("The generation the client shows.", valueName: "generation"))
    var since: String

    @Option(help: "date or path: the order the client shows. Default: date.")
    var sort: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        _ = try request()
    }

    func request() throws -> ChangeRequest {
        let given = [("since", since)] + (sort.map { [("sort", $0)] } ?? [])
        return try LayoutOptions.parse { () throws(LayoutParameterError) in try ChangeRequest(parameters: given) }
    }

    func run() throws {
        let set = try catalog.openExisting().changes(try request())
        print(json ? ChangeText.json(set) : ChangeText.lines(set))
    }
}
