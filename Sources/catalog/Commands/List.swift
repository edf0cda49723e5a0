import ArgumentParser
import CatalogKit

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List items in layout order.",
        discussion: """
            The default order is the one `catalog page` lays out: newest first by capture date \
            (EXIF), else file modification time (UTC), else the time it was first imported; ties by path or key. \
            --sort path lists by path or key, bytewise.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(help: "date or path. Default: date.")
    var sort: String?

    @Option(parsing: .unconditional, help: "At most this many items (default: all).")
    var limit: String?

    @Option(parsing: .unconditional, help: "Skip this many items first. Default: 0.")
    var offset: String?

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws {
        _ = try request()
    }

    /// The options, through the parser `GET /api/items` uses.
    func request() throws -> ListRequest {
        let given = [("sort", sort), ("limit", limit), ("offset", offset)].compactMap { name, value in value.map { (name, $0) } }
        return try LayoutOptions.parse { () throws(LayoutParameterError) in try ListRequest(parameters: given) }
    }

    func run() throws {
        let request = try request()
        try catalog.openExisting().forEachItem(order: request.order, limit: request.limit, offset: request.offset) { item in
            print(json ? ItemText.json(item) : ItemText.line(item))
        }
    }
}
