import CatalogKit
import CatalogModel
@testable import CatalogStore
import Foundation
import GRDB
import Testing

/// Catalogs made by earlier versions, on both backends, get current order data when opened;
/// layouts stored before segments are dropped and computed again.
@Suite struct OrderDataUpgradeTests {
    /// A catalog migrated only up to `identifier`, with two items ("a", then the newer "b") at
    /// generation 1, and whatever `more` writes.
    static func makeOldCatalog(_ library: Library, upTo identifier: String, more: (Database) throws -> Void = { _ in }) throws {
        let queue = try DatabaseQueue(path: library.catalogPath)
        try CatalogMigrations.migrate(queue, upTo: identifier)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO items (key, source, pixel_width, pixel_height, width, height, sort_date, changed_generation)
                VALUES (x'61', 1, 10, 20, 10, 20, '2020-01-01', 1), (x'62', 1, 30, 20, 30, 20, '2021-01-01', 1)
                """)
            try db.execute(sql: "UPDATE catalog SET generation = 1")
            try more(db)
        }
        try queue.close()
    }

    /// Upgrades that change the order data's format (0003 makes it, 0006 adds section keys)
    /// rebuild it when the catalog is first opened after them.
    @Test(arguments: ["0002_layouts", "0005_layout_segments"])
    func aCatalogFromBeforeTheOrderDataGetsItWhenOpened(upTo migration: String) throws {
        let library = try Library()
        try Self.makeOldCatalog(library, upTo: migration)
        let catalog = try library.catalog()
        try OrderDataTests.expectCurrent(catalog, "after the upgrade")
        let page = try catalog.page(PageRequest(query: "width=375&cols=2&sections=month"))
        #expect(page.items.filter { $0.kind == .cell }.map(\.path) == [Data("b".utf8), Data("a".utf8)])
        _ = try catalog.importItems([ImportRow(line: 2, key: "c", width: 5, height: 5, orientation: 1, date: "2019-01-01T00:00:00")])
        try OrderDataTests.expectCurrent(catalog, "after the import")
    }

    /// An upgrade cut short after its migrations committed (killed, the disk full while the
    /// order data was rebuilt) leaves the order data marked stale: the next opening rebuilds it,
    /// unless a scan or import holds the catalog (it rebuilds it as it ends; an opening never
    /// waits for it).
    @Test func orderDataLeftStaleByAnUpgradeIsRebuiltAtTheNextOpening() throws {
        let library = try Library()
        try Self.makeOldCatalog(library, upTo: CatalogMigrations.identifiers.last!) { db in
            try db.execute(sql: "UPDATE order_data SET generation = -1")
        }
        var writer = Optional(try WriteLock(catalogPath: library.catalogPath, wait: false)) // a scan's
        #expect(try OrderDataTests.orderData(try library.catalog(), .date) == nil, "left to the writer")
        #expect(writer != nil)
        writer = nil
        try OrderDataTests.expectCurrent(try library.catalog(), "the next opening")
    }

    /// The same on PostgreSQL; and a catalog made by 0003 as it first shipped, whose chunks had
    /// no section starts (every scan and import then failed on them), gets them from 0010.
    @Test func aPostgresCatalogWithStaleOrderDataOrChunksWithoutSectionsIsMadeCurrentWhenOpened() throws {
        let library = try Library(.postgres)
        _ = try library.catalog().importItems(PagerTests.importRows(2_000))
        let database = OrderDataTests.database(library)
        try TestPostgres.psql(database, "UPDATE order_data SET generation = -1")
        try OrderDataTests.expectCurrent(try library.catalog(), "stale")
        try TestPostgres.psql(database, """
            ALTER TABLE order_chunks DROP COLUMN month_starts, DROP COLUMN months, DROP COLUMN folder_starts, DROP COLUMN folders;
            DELETE FROM catalog_migrations WHERE identifier = '0010_order_chunk_sections'
            """)
        let catalog = try library.catalog()
        try OrderDataTests.expectCurrent(catalog, "the first 0003's")
        _ = try catalog.importItems([ImportRow(line: 2, key: "new", width: 5, height: 5, orientation: 1, date: "2019-01-01T00:00:00")])
        try OrderDataTests.expectCurrent(catalog, "after an import")
    }

    /// A PostgreSQL catalog from before its order data (Migrations/postgres/0003), with items,
    /// gets it built when first opened by this build, and ends with the triggers of a new one
    /// (0005 changes them again).
    @Test func aPostgresCatalogFromBeforeTheOrderDataGetsItWhenOpened() throws {
        let library = try Library(.postgres)
        _ = try library.catalog().importItems(PagerTests.importRows(5_000))
        let database = OrderDataTests.database(library)
        // As 0002 left it: 0001's change-log trigger, no order data, 0003 to 0005 not applied.
        try TestPostgres.psql(database, """
            DROP TABLE order_chunks, order_data, order_changes; DROP FUNCTION note_order_change() CASCADE;
            DROP TRIGGER items_change_log_update ON items; DROP TRIGGER items_change_log_delete ON items;
            CREATE TRIGGER items_change_log AFTER UPDATE OF key, sort_date, width, height OR DELETE ON items
                FOR EACH ROW EXECUTE FUNCTION log_item_change();
            DELETE FROM catalog_migrations WHERE identifier IN ('0003_order_data', '0004_blob_storage', '0005_trigger_conditions');
            UPDATE catalog SET generation = generation + 1
            """)
        let catalog = try library.catalog()
        try OrderDataTests.expectCurrent(catalog, "after the upgrade")
        #expect(try TestPostgres.psql(database, "SELECT count(*) FROM order_chunks").trimmingCharacters(in: .whitespacesAndNewlines) == "4")
        let triggers = """
            SELECT string_agg(pg_get_triggerdef(oid), ' ; ' ORDER BY tgname) FROM pg_trigger
            WHERE tgrelid = 'items'::regclass AND NOT tgisinternal
            """
        let fresh = try TestPostgres.newDatabase()
        _ = try Catalog.open(at: fresh)
        let freshName = String(URLComponents(string: fresh)?.path.dropFirst() ?? "")
        let (upgraded, made) = (try TestPostgres.psql(database, triggers), try TestPostgres.psql(freshName, triggers))
        #expect(upgraded.contains("WHEN"))
        #expect(upgraded == made, "the upgraded catalog's triggers are a new one's")
    }

    /// Ids far apart (the largest past 2²⁰ and four times the count) keep their sizes in a map,
    /// and the path order's rebuild then reads each item's date itself: both orders rebuilt
    /// still give every entry its own size and month.

    /// Schema 0005 moves windows into segment rows: layouts stored one row per window before it
    /// are dropped by the upgrade (a cache: nothing else is touched), and computed again.
    @Test func layoutsStoredBeforeSegmentsAreDroppedByTheUpgrade_andComputedAgain() throws {
        let library = try Library()
        try Self.makeOldCatalog(library, upTo: "0004_layout_budget") { db in
            try db.execute(sql: """
                INSERT INTO layouts (id, configuration, item_order, generation, item_count, content_height, header, bytes, compute_seconds)
                VALUES (7, 'old', 'date', 1, 2, 100, x'00', 10, 0)
                """)
            try db.execute(sql: "INSERT INTO layout_windows (layout_id, window, min_index, max_index, bytes) VALUES (7, 0, 0, 1, x'00')")
        }
        let catalog = try library.catalog()
        #expect(try catalog.layouts().isEmpty)
        #expect(try catalog.items(order: .date).count == 2, "items are kept")
        let page = try catalog.page(PageRequest(query: "width=375&cols=2"))
        #expect(page.source == .computed && page.items.map(\.path) == [Data("b".utf8), Data("a".utf8)])
        #expect(try catalog.page(PageRequest(query: "width=375&cols=2&offset=1")).source == .stored)
        func tables(_ path: String) throws -> [String] {
            try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'layout%' ORDER BY name")
            }
        }
        #expect(try tables(library.catalogPath) == [], "0012 moved them to the layout file")
        #expect(try tables(library.layoutFilePath) == ["layout_segments", "layouts"])
    }
}
