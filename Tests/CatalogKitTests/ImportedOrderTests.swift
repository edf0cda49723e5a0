import CatalogKit
import CatalogModel
@testable import CatalogStore
@testable import CatalogStorePostgres
import Foundation
import GRDB
import Synchronization
import Testing

/// The order data an import into an empty catalog cuts from its own rows (ImportedOrder), held
/// against the order data rebuilt from the items' indexes (on PostgreSQL, by the database's own
/// statement): chunk for chunk, byte for byte, on both stores.
@Suite struct ImportedOrderTests {
    /// Every chunk of both orders, all its columns but the chunk's id, in the orders' order.
    static func chunks(_ library: Library) throws -> [String] {
        switch library.backend {
        case .sqlite:
            try DatabaseQueue(path: library.catalogPath).read { db in
                try String.fetchAll(db, sql: """
                    SELECT item_order || '|' || lo_date || '|' || hex(lo_key) || '|' || count || '|' || hex(entries) || '|' || hex(sections)
                    FROM order_chunks ORDER BY item_order, lo_date DESC, lo_key
                    """)
            }
        case .postgres:
            try TestPostgres.psql(OrderDataTests.database(library), """
                SELECT concat_ws('|', item_order, lo_date, encode(lo_key, 'hex'), count, encode(entries, 'hex'), month_starts, months,
                                 folder_starts, folders)
                FROM order_chunks ORDER BY item_order, lo_date DESC, lo_key
                """).split(separator: "\n").map(String.init)
        }
    }

    /// Rebuilds the catalog's order data from its indexes, as a scan's end does, and returns its chunks.
    static func rebuiltChunks(_ library: Library, _ catalog: Catalog) throws -> [String] {
        switch library.backend {
        case .sqlite:
            try DatabaseQueue(path: library.catalogPath).write { try $0.execute(sql: "UPDATE order_data SET generation = -1") }
        case .postgres:
            try TestPostgres.psql(OrderDataTests.database(library), "UPDATE order_data SET generation = -1")
        }
        try catalog.store.refreshOrderData()
        return try chunks(library)
    }

    /// How many imports into the catalog cut their order data from their rows.
    static func importsCut(_ catalog: Catalog) throws -> Int {
        switch catalog.store {
        case let store as SQLiteStore: store.importsWithOrderDataFromRows.load(ordering: .relaxed)
        case let store as PostgresStore: store.importsWithOrderDataFromRows.load(ordering: .relaxed)
        default: throw CancellationError()
        }
    }

    /// Sets the most an import takes to cut its order data from its rows.
    static func setImportOrderBytes(_ catalog: Catalog, _ bytes: Int) {
        switch catalog.store {
        case let store as SQLiteStore: store.importOrderBytes.store(bytes, ordering: .relaxed)
        case let store as PostgresStore: store.importOrderBytes.store(bytes, ordering: .relaxed)
        default: Issue.record("a store of another kind")
        }
    }

    /// Rows that sort in awkward ways. Keys: all share "https://example.com/" (which the sort
    /// skips), many are alike in the 16 bytes after it, one is the start of another ("…-1",
    /// "…-12"), some in folders and some not, one not ASCII. Dates: many equal (the keys break
    /// the tie), some alike in their first 24 bytes and longer, one the start of another, one
    /// equal to another but for a NUL after it (alike in their zero-padded bytes), some not
    /// dates at all, some none (the import's date), some of other months of the same years. Sizes: swapped by orientation; with `huge`,
    /// some past 2³² (stored halved until they fit, so `catalog list` gives other sizes).
    /// Last, pairs of keys equal but for a NUL after one (the longer one first), which end
    /// within the 16 bytes the sort compares as integers. With `sharedStart`, the first rows all
    /// share a longer start than the rest (runs sorted before the rest come skip more bytes).
    /// Without `nul`, no NUL in a date or key (PostgreSQL's text holds none), and the pairs end
    /// in "!" instead, which still sorts within those 16 bytes.
    static func awkwardRows(_ count: Int, huge: Bool = false, sharedStart: Int = 0, nul: Bool = true) -> [ImportRow] {
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let bases = ["https://example.com/photos/2024/summer/IMG_0001", "https://example.com/photos/2024/summer/IMG_0001.jpeg",
                     "https://example.com/photos/2024/summer/deep/IMG", "https://example.com/x", "https://example.com/caf\u{E9}/y",
                     "https://example.com/photos/2024/summes"]
        let dates: [String?] = ["2024-03-05T10:00:00Z", "2024-03-05T10:00:00.000+01:00", "2024-03-05T10:00:00.000+02:00",
                                "2024-03-05T10:00:00.000+01:00 (CET)", "2024-03-05", "2024", "", "zz", "ann\u{E9}e-05",
                                "2019-12-31T23:59:59Z", "2024-03-05T10:00:01Z", "2024-01-15T08:00:00Z", "2019-07-04", nul ? "2024\u{0}" : "2024!", nil]
        let pairs = min(20, count / 10)
        let rows = (0..<(count - 2 * pairs)).map { index in
            let past = huge && next(50) == 0
            return ImportRow(line: index + 2, key: "\(bases[index < sharedStart ? 0 : next(bases.count)])-\(index)",
                             width: past ? 5_000_000_000 + next(1_000) : 1 + next(5_000), height: 1 + next(5_000),
                             orientation: 1 + next(8), date: dates[next(dates.count)])
        }
        return rows + (0..<(2 * pairs)).map { index in
            ImportRow(line: rows.count + index + 2, key: "https://example.com/z\(index / 2)" + (index % 2 == 0 ? (nul ? "\u{0}" : "!") : ""),
                      width: 100, height: 100, orientation: 1, date: "2024-03-05T10:00:00Z")
        }
    }

    /// An import into an empty catalog writes the order data it cut from its rows: the same
    /// chunks a rebuild from the indexes writes, and the same items as `catalog list`. On
    /// PostgreSQL, with keys in folders (runs of folders within and across chunks) and folders
    /// whose bytes the database escapes.
    @Test(arguments: Backend.allCases)
    func intoAnEmptyCatalog_theOrderDataCutFromTheRowsIsWhatARebuildWrites(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        var rows = Self.awkwardRows(10_000, nul: backend == .sqlite)
        for index in stride(from: 0, to: rows.count, by: 7) { rows[index].key = "back\\slash/caf\u{E9}/\(index / 700)/\(rows[index].key)" }
        _ = try catalog.importItems(rows)
        #expect(try Self.importsCut(catalog) == 1, "the order data was cut from the rows")
        try OrderDataTests.expectCurrent(catalog, "cut from the rows")
        let cut = try Self.chunks(library)
        #expect(cut.count >= 6, "two orders of 10,000 items in chunks of 4,096")
        let rebuilt = try Self.rebuiltChunks(library, catalog)
        #expect(rebuilt.count == cut.count)
        let equal = rebuilt == cut // compared as one Bool: the chunks are too long to print
        #expect(equal, "first difference at chunk \(zip(cut, rebuilt).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
    }

    /// The rows cut in runs of any size, merged: one row a run, runs that end before the last
    /// row, exactly two runs, exactly one, one and a row, one run for all. Against the same
    /// rows' order data rebuilt from a catalog's indexes.
    @Test(arguments: [1, 7, 4_096, 4_500, 8_999, 9_000, 100_000])
    func runsOfAnySizeMergeIntoTheOrder(runSize: Int) throws {
        let library = try Library()
        let catalog = try library.catalog()
        let rows = Self.awkwardRows(9_000, huge: true, sharedStart: 2_000)
        _ = try catalog.importItems(rows)
        let expected = try Self.rebuiltChunks(library, catalog)
        let (importedAt, firstID) = try DatabaseQueue(path: library.catalogPath).read { db in
            (try String.fetchOne(db, sql: "SELECT imported_at FROM items LIMIT 1") ?? "", try Int64.fetchOne(db, sql: "SELECT min(id) FROM items") ?? 0)
        }
        let imported = ImportedOrder<OrderData.ChunkWriter>(budget: 1 << 24, importedAt: importedAt, runSize: runSize)
        for start in stride(from: 0, to: rows.count, by: 1_000) { imported.note(Array(rows[start..<min(start + 1_000, rows.count)])) }
        imported.cut(firstID: firstID, lastID: firstID + Int64(rows.count) - 1, items: rows.count,
                     firstKey: Array(rows[0].key.utf8), lastKey: Array(rows[rows.count - 1].key.utf8))
        let chunks = try #require(imported.chunks())
        #expect(imported.count == rows.count && !imported.dropped)
        let cut = ItemOrder.allCases.flatMap { order in
            (order == .date ? chunks.date : chunks.path).map { chunk in
                "\(order.rawValue)|\(String(decoding: chunk.lo.date, as: UTF8.self))|\(Self.hex(chunk.lo.key))|\(chunk.count)|"
                    + "\(Self.hex(chunk.entries))|\(Self.hex(chunk.sections))"
            }
        }
        #expect(cut.count == expected.count)
        #expect(cut == expected, "first difference at chunk \(zip(cut, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
    }

    /// Rows past the budget are dropped: nothing is cut, and the import reads its order data back
    /// from the items instead, as current as ever.
    @Test func rowsPastTheBudgetAreDropped_andTheImportRebuildsFromTheIndexes() throws {
        let imported = ImportedOrder<OrderData.ChunkWriter>(budget: 2_000, importedAt: "2026-01-01T00:00:00Z", runSize: 8)
        imported.note(Self.awkwardRows(30))
        imported.note(Self.awkwardRows(30))
        imported.cut(firstID: 1, lastID: 60, items: 60, firstKey: [], lastKey: [])
        #expect(imported.chunks() == nil)
        #expect(imported.dropped)

        for backend in Backend.allCases {
            let library = try Library(backend)
            let catalog = try library.catalog()
            Self.setImportOrderBytes(catalog, 5_000)
            _ = try catalog.importItems(Self.awkwardRows(10_000, nul: backend == .sqlite))
            #expect(try Self.importsCut(catalog) == 0, "\(backend): the order data was read back from the items")
            try OrderDataTests.expectCurrent(catalog, "\(backend): rebuilt from the indexes")
            let made = try Self.chunks(library)
            #expect(try Self.rebuiltChunks(library, catalog) == made)
        }
    }

    /// Rows that are not the catalog's items (as many as it holds, with ids one after the
    /// other, the first and the last the items at the ends) are not cut: the import reads its
    /// order data back from the items instead. A second cut does nothing.
    @Test(arguments: [(items: 60, lastID: 60, ends: (0, 59), cut: true), (items: 61, lastID: 61, ends: (0, 59), cut: false),
                      (items: 60, lastID: 75, ends: (0, 59), cut: false), (items: 60, lastID: 60, ends: (1, 59), cut: false),
                      (items: 60, lastID: 60, ends: (0, 58), cut: false)])
    func onlyRowsThatAreTheItemsAreCut(items: Int, lastID: Int64, ends: (first: Int, last: Int), cut: Bool) {
        let rows = Self.awkwardRows(60)
        let imported = ImportedOrder<OrderData.ChunkWriter>(budget: 1 << 20, importedAt: "2026-01-01T00:00:00Z", runSize: 8)
        imported.note(rows)
        imported.cut(firstID: 1, lastID: lastID, items: items, firstKey: Array(rows[ends.first].key.utf8), lastKey: Array(rows[ends.last].key.utf8))
        imported.cut(firstID: 1, lastID: 60, items: 60, firstKey: Array(rows[0].key.utf8), lastKey: Array(rows[59].key.utf8))
        #expect((imported.chunks() != nil) == cut)
    }

    /// PostgreSQL's chunk cutter, given the rows merged from runs of any size, cuts the chunks it
    /// cuts from one run (which the test above holds against the database's own statement).
    @Test(arguments: [1, 7, 4_096])
    func postgresChunksFromRunsOfAnySize(runSize: Int) {
        let rows = Self.awkwardRows(9_000, sharedStart: 2_000, nul: false)
        func cut(_ runSize: Int) -> (date: [PostgresOrderData.CutChunk], path: [PostgresOrderData.CutChunk])? {
            let imported = ImportedOrder<PostgresOrderData.ChunkCutter>(budget: 1 << 24, importedAt: "2026-01-01T00:00:00Z", runSize: runSize)
            for start in stride(from: 0, to: rows.count, by: 1_000) { imported.note(Array(rows[start..<min(start + 1_000, rows.count)])) }
            imported.cut(firstID: 1, lastID: Int64(rows.count), items: rows.count,
                         firstKey: Array(rows[0].key.utf8), lastKey: Array(rows[rows.count - 1].key.utf8))
            return imported.chunks()
        }
        let whole = cut(1 << 16)
        let merged = cut(runSize)
        #expect(whole != nil && whole?.date.count == 3 && whole?.path.count == 3)
        let equal = whole?.date == merged?.date && whole?.path == merged?.path // one Bool: too long to print
        #expect(equal)
    }

    /// A cutter that says its chunks take `bytesPerRow` a row.
    struct Weighing: OrderChunkCutter {
        static let bytesPerRow = Mutex(0)
        var rows = 0
        init(order: ItemOrder) {}
        mutating func append(id: Int64, width: UInt32, height: UInt32, date: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) {
            rows += 1
        }
        mutating func finish() -> [Int] { [rows] }
        var bytes: Int { rows * Self.bytesPerRow.withLock { $0 } }
    }

    /// Chunks that take more than the budget leaves them beside the rows (sections starting at
    /// nearly every item) are not kept: the cut stops and cuts nothing. Nor does a cut of an
    /// import that was refused.
    @Test func chunksPastTheBudget_andACancelledCut_cutNothing() {
        let rows = Self.awkwardRows(3_000)
        func cut(bytesPerRow: Int, cancel: Bool = false) -> [Int]? {
            Weighing.bytesPerRow.withLock { $0 = bytesPerRow }
            let imported = ImportedOrder<Weighing>(budget: 1 << 20, importedAt: "2026-01-01T00:00:00Z", runSize: 100)
            imported.note(rows)
            if cancel { imported.cancel() }
            imported.cut(firstID: 1, lastID: Int64(rows.count), items: rows.count,
                         firstKey: Array(rows[0].key.utf8), lastKey: Array(rows[rows.count - 1].key.utf8))
            return imported.chunks().map { $0.date + $0.path }
        }
        #expect(cut(bytesPerRow: 32) == [3_000, 3_000], "3,000 rows of about 100 bytes, and 64 a row for both orders' chunks: within 1 MiB")
        #expect(cut(bytesPerRow: 200) == nil, "400 a row for both orders' chunks: past it")
        #expect(cut(bytesPerRow: 32, cancel: true) == nil)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined()
    }
}
