public import ArgumentParser
import CatalogKit

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List items in layout order.",
        discussion: """
            The default order is the one `catalog page` lays out: newest first by capture date \
            (EXIF), else file modification time (UTC), else import date; ties by path or key. \
            --sort path lists by path or key, bytewise.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(help: "date or path.")
    var sort: ItemOrder = .date

    @Option(help: "At most this many items.")
    var limit: Int?

    @Option(help: "Skip this many items first.")
    var offset = 0

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
    }

    func run() throws {
        for item in try catalog.open().items(order: sort, limit: limit, offset: offset) {
            print(json ? ItemText.json(item) : ItemText.line(item))
        }
    }
}

extension ItemOrder: ExpressibleByArgument {}
