import CatalogKit
import CatalogModel
import CatalogStorePostgres
import Foundation
import Testing

/// `catalog cluster`: a PostgreSQL catalog's items rewritten in a layout's order, through the
/// binary; on SQLite, nothing to do.
@Suite struct ClusterTests {
    /// The items' ids in the order they lie in the table, and in `order`.
    static func placesAndOrder(_ database: String, _ order: String) throws -> (table: String, order: String) {
        (try TestPostgres.psql(database, "SELECT string_agg(id::text, ',' ORDER BY ctid) FROM items"),
         try TestPostgres.psql(database, "SELECT string_agg(id::text, ',' ORDER BY \(order)) FROM items"))
    }

    /// Imported items lie in the table in the order of their lines; clustered by date they lie
    /// in date order, then by path in path order. The items, the generation, a stored page and
    /// the layouts stay as they were; with a scan or import under way it is refused as a
    /// second import is (exit 1).
    @Test func theItemsLieInTheTableInTheOrderAsked_andNothingElseChanges() throws {
        let library = try Library()
        let postgres = try TestPostgres.newDatabase()
        let database = String(URLComponents(string: postgres)?.path.dropFirst() ?? "")
        let rows = PagerTests.importRows(3_000).map { "\($0.key),\($0.width),\($0.height),\($0.date ?? "")" }
        let pins = try library.write("pins.csv", Data(("key,width,height,date\n" + rows.joined(separator: "\n") + "\n").utf8))
        #expect(try BuiltTool.run(["import", "--db", postgres, pins]).status == 0)
        let byDate = "sort_date DESC, key"
        let before = try Self.placesAndOrder(database, byDate)
        #expect(before.table != before.order, "imported in line order, not date order")
        let page = ["page", "--db", postgres, "--width", "375", "--cols", "2", "--offset", "20000", "--json"]
        _ = try BuiltTool.run(page) // stores the layout
        let stored = try BuiltTool.run(page)
        let (list, generation) = (try BuiltTool.run(["list", "--db", postgres]).stdout, try TestPostgres.psql(database, "SELECT generation FROM catalog"))

        let clustered = try BuiltTool.run(["cluster", "--db", postgres])
        #expect(clustered.status == 0, "\(clustered.stderr)")
        #expect(String(decoding: clustered.stdout, as: UTF8.self).hasPrefix("items clustered in date order in "))
        let after = try Self.placesAndOrder(database, byDate)
        #expect(after.table == after.order, "the table in date order")
        #expect(after.order == before.order)
        #expect(try BuiltTool.run(page).stdout == stored.stdout, "the stored page as before")
        #expect(try BuiltTool.run(["list", "--db", postgres]).stdout == list)
        #expect(try TestPostgres.psql(database, "SELECT generation FROM catalog") == generation)

        #expect(try BuiltTool.run(["cluster", "--db", postgres, "--sort", "path"]).status == 0)
        let byPath = try Self.placesAndOrder(database, "key")
        #expect(byPath.table == byPath.order, "the table in path order")

        let store = try Catalog.open(at: postgres).store
        let lease = try store.lockForWriting() // as an import under way holds it
        let busy = try BuiltTool.run(["cluster", "--db", postgres])
        #expect(busy.status == 1 && busy.stderr.contains("another scan, import or `catalog cluster` is writing"), "\(busy.stderr)")
        withExtendedLifetime(lease) {}
    }

    /// On SQLite it says there is nothing to do, even while a scan writes, and changes nothing;
    /// a bad --sort is a usage error.
    @Test func onSQLiteThereIsNothingToDo_andABadSortIsAUsageError() throws {
        let library = try Library()
        _ = try library.catalog().importItems(PagerTests.importRows(10))
        let list = ["list", "--db", library.catalogPath, "--json"]
        let before = try BuiltTool.run(list).stdout
        let lease = try library.catalog().store.lockForWriting() // a scan under way does not stop it
        let done = try BuiltTool.run(["cluster", "--db", library.catalogPath])
        withExtendedLifetime(lease) {}
        #expect(done.status == 0, "\(done.stderr)")
        #expect(String(decoding: done.stdout, as: UTF8.self).contains("nothing to do"))
        #expect(try BuiltTool.run(list).stdout == before)
        let bad = try BuiltTool.run(["cluster", "--db", library.catalogPath, "--sort", "name"])
        #expect(bad.status == 2 && bad.stderr.contains("--sort"), "\(bad.stderr)")
    }
}
