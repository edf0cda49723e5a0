import ArgumentParser
import CatalogKit
import Foundation

struct Cluster: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite a PostgreSQL catalog's items in layout order, so that pages read them faster.",
        discussion: """
            A page that a server has not cached reads its items from the database. Imported and \
            scanned items lie in the table in the order they came, so each item of a page is a page \
            of the table of its own; clustered in the layout's order (PostgreSQL's CLUSTER, then \
            ANALYZE), a page's items share a few. At 10,000,000 imported items one server's stored \
            pages went from 3,526 to 4,329 and 4,823 a second (BENCHMARKS.md, "A page's items read \
            as ranges of the order").

            Run it after a large import or a first scan, and again now and then: items added later \
            go where there is room. It is refused while a scan or import runs, and none may start \
            until it ends (about a minute at 10,000,000 items). Every read of the items waits for \
            it meanwhile: a server's page requests that need the database may fail after 30 s, so \
            run it at a quiet time. The items, their ids and the catalog's generation stay as they \
            were. --sort path clusters for layouts sorted by path instead of by date.

            On SQLite there is nothing to do: its pages read the items through a memory map.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(help: "The layouts' order to cluster for: date or path. Default: date.")
    var sort: String?

    func validate() throws {
        _ = try order()
    }

    /// --sort, through the parser `catalog list` and `GET /api/items` use.
    func order() throws -> ItemOrder {
        let given = sort.map { [("sort", $0)] } ?? []
        return try LayoutOptions.parse { () throws(LayoutParameterError) in try ListRequest(parameters: given) }.order
    }

    func run() throws {
        let order = try order()
        let started = ContinuousClock.now
        guard try catalog.openExisting().clusterItems(order: order) else {
            print("nothing to do: an SQLite catalog's pages read its items through a memory map")
            return
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        print("items clustered in \(order.rawValue) order in \(String(format: "%.1f", seconds)) s")
    }
}
