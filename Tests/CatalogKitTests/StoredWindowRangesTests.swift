@testable import CatalogKit
import CatalogModel
@testable import CatalogStorePostgres
import Foundation
import Synchronization
import Testing

/// On PostgreSQL a page that misses the page cache reads its windows' items as ranges of the
/// layout's order (one descent of the order's index a window) rather than one id at a time:
/// the keys are the same as read by id, whatever the layout.
@Suite struct StoredWindowRangesTests {
    /// 1,500 items with dates of their own and 400 that share one date, so that ranges start
    /// and end inside a run of equal dates.
    static func catalog(_ query: String) throws -> (Library, Catalog) {
        let library = try Library(.postgres)
        let catalog = try library.catalog()
        var rows = PagerTests.importRows(1500)
        rows += PagerTests.importRows(400, from: 1500, seed: 3).map { row in
            var row = row
            row.date = "2024-06-15T12:00:00"
            return row
        }
        _ = try catalog.importItems(rows)
        _ = try catalog.page(try PageRequest(query: query)) // computes and stores the layout
        return (library, catalog)
    }

    @Test(arguments: ["width=414&cols=3&window=512", "width=414&cols=3&window=512&sort=path",
                      "width=800&style=justified&sections=month&footer-height=10&window=512",
                      "width=375&sections=folder&sort=path&window=300",
                      "width=414&cols=3&style=grid&sections=month&span-every=5&span-height=auto&window=512"])
    func aWindowsItemsAreReadAsARangeOfTheOrder_withTheKeysReadByID(_ query: String) throws {
        let (library, catalog) = try Self.catalog(query)
        defer { withExtendedLifetime(library) {} }
        let (stored, generation, cells, expected) = try PageCacheTests.storedWindowsAndKeys(catalog)
        #expect(expected.count > 10)
        let store = try #require(catalog.store as? PostgresStore)
        for first in stride(from: 0, to: expected.count, by: 2) {
            let range = first...min(first + 1, expected.count - 1)
            let read = try #require(try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id,
                                                                    generation: generation, range: range, cells: cells))
            #expect(read.map(\.bytes) == expected[range].map(\.0), "windows \(range)")
            #expect(read.map(\.keys) == expected[range].map(\.1), "windows \(range)")
        }
        #expect(store.rangesRead.load(ordering: .relaxed) >= expected.count / 2, "read as ranges")
        #expect(store.rangesMissed.load(ordering: .relaxed) == 0, "no item read again by its id")
    }

    /// An item a range misses (here one whose date was changed behind the catalog's back, so
    /// that the layout, still current, places it where the order no longer has it) is read by
    /// its id, with the same key in the end.
    @Test func anItemARangeMisses_isReadByID() throws {
        let (library, catalog) = try Self.catalog("width=414&cols=3&window=512")
        defer { withExtendedLifetime(library) {} }
        let (stored, generation, cells, expected) = try PageCacheTests.storedWindowsAndKeys(catalog)
        let store = try #require(catalog.store as? PostgresStore)
        let window = 3
        let shown = try cells(expected[window].0)
        let moved = try #require(shown.ids.first { $0 != shown.span?.firstID })
        _ = try TestPostgres.psql(OrderDataTests.database(library), "UPDATE items SET sort_date = '1990-01-01T00:00:00' WHERE id = \(moved)")
        let read = try #require(try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id,
                                                                generation: generation, range: window...window, cells: cells))
        #expect(read.map(\.keys) == [expected[window].1])
        #expect(read.first?.keys[moved] != nil)
        #expect(store.rangesMissed.load(ordering: .relaxed) == 1)
    }

    /// Windows whose cells lie close together become ranges, those that meet one range; a window
    /// whose cells are spread out (or too many) is read by id.
    @Test func windowsBecomeRanges_thatMeetMerge_spreadOutOnesGoByID() {
        func cells(_ ids: [Int64], _ positions: [Int]) -> WindowCells { WindowCells(ids: ids, positions: positions, order: .path) }
        var statement = StoredWindowKeys(ids: [], configuration: "c", layoutID: 1)
        PostgresStore.choose([cells([11, 10, 12], [101, 100, 102]), cells([13, 14], [103, 104]), cells([20, 21], [200, 201]),
                              cells([30, 31], [300, 900]), cells([], [])], for: &statement)
        #expect(statement.ranges == [.init(first: 10, count: 5), .init(first: 20, count: 2)])
        #expect(statement.ids == [30, 31], "spread over 601 positions for 2 cells")
        #expect(statement.order == .path)
        #expect(statement.itemsRead == 9)

        // All by id, it still names the layout's order: it goes with other pages' statements.
        var spread = StoredWindowKeys(ids: [], configuration: "c", layoutID: 1)
        PostgresStore.choose([cells([1, 2], [0, 500])], for: &spread)
        #expect(spread.ranges.isEmpty && spread.ids == [1, 2] && spread.order == .path)

        var long = StoredWindowKeys(ids: [], configuration: "c", layoutID: 1)
        let half = StoredWindowKeys.longestRange / 2 + 1
        PostgresStore.choose([cells((0..<half).map(Int64.init), Array(0..<half)),
                              cells((0..<half).map { Int64(half + $0) }, Array(half..<(2 * half)))], for: &long)
        #expect(long.ranges == [.init(first: 0, count: half), .init(first: Int64(half), count: half)], "not merged past the longest")
        #expect(long.ids.isEmpty)
    }

    /// The keys' statement is planned once per connection: after the database's first few runs
    /// it keeps its generic plan rather than planning each run for the values bound (which
    /// cost more than running it).
    @Test func theKeysStatementKeepsOneGenericPlan() throws {
        let (library, catalog) = try Self.catalog("width=414&cols=3&window=512")
        defer { withExtendedLifetime(library) {} }
        let (stored, _, cells, expected) = try PageCacheTests.storedWindowsAndKeys(catalog)
        let shown = try (0..<3).map { try cells(expected[$0].0) }
        var statement = StoredWindowKeys(ids: [], configuration: stored.configuration, layoutID: stored.id)
        PostgresStore.choose(shown, for: &statement)
        #expect(!statement.ranges.isEmpty)
        let firsts = statement.ranges.map { String($0.first) }.joined(separator: ","), counts = statement.ranges.map { String($0.count) }.joined(separator: ",")
        let run = "EXECUTE k('{}', '\(stored.configuration)', \(stored.id), '{\(firsts)}', '{\(counts)}', true);"
        let plans = try TestPostgres.psql(OrderDataTests.database(library), """
            PREPARE k(int8[], text, int8, int8[], int8[], bool) AS \(StoredWindowKeys.sql);
            \(String(repeating: run, count: 8))
            SELECT generic_plans > 0 FROM pg_prepared_statements WHERE name = 'k';
            """)
        // psql prints every statement's rows: the question's is the last line.
        #expect(plans.split(separator: "\n").last == "t")
    }
}
