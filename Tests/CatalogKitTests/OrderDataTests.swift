import CatalogKit
import CatalogModel
@testable import CatalogStore
import Foundation
import GRDB
import Testing

/// Order data (each order's ids and sizes in packed chunks) against `catalog list`, after
/// imports and scans of every kind, and the chunks a small change rewrites.
@Suite struct OrderDataTests {
    /// The order data of `order`, which must be current.
    static func orderData(_ catalog: Catalog, _ order: ItemOrder, offset: Int = 0) throws -> [LayoutInputRow]? {
        try catalog.store.withSnapshot { try $0.orderData(order: order, offset: offset) }
    }

    /// Both orders' data equal the items as `catalog list` gives them.
    static func expectCurrent(_ catalog: Catalog, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        for order in ItemOrder.allCases {
            let rows = try catalog.items(order: order)
            let listed = rows.map { LayoutInputRow(id: $0.id, width: $0.width, height: $0.height) }
            let data = try orderData(catalog, order)
            #expect(data != nil, "\(context): \(order) order data is current", sourceLocation: sourceLocation)
            let equal = data == listed // compared as one Bool: the arrays are too long to print
            let firstDifference = data.map { data in zip(data, listed).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(data.count, listed.count) }
            #expect(equal, "\(context): \(order) order data equals the list (\(data?.count ?? -1) of \(listed.count), first difference at \(firstDifference ?? -1))",
                    sourceLocation: sourceLocation)
            try expectSectionRuns(catalog, order, rows, context, sourceLocation: sourceLocation)
        }
    }

    /// The section runs of `order` are the runs of the listed items' months, years and parent folders.
    static func expectSectionRuns(_ catalog: Catalog, _ order: ItemOrder, _ rows: [ItemRow], _ context: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        for grouping in SectionGrouping.allCases {
            let keys = rows.map { row -> UInt64 in
                switch grouping {
                case .year: SectionGrouping.month(ofDate: row.date) / 100
                case .month: SectionGrouping.month(ofDate: row.date)
                case .folder: SectionGrouping.folderKey(of: row.key)
                }
            }
            var expected: [SectionRun] = []
            for (position, key) in keys.enumerated() where expected.last?.key != key { expected.append(SectionRun(position: position, key: key)) }
            let runs = try catalog.store.withSnapshot { try $0.sectionRuns(order: order, grouping: grouping) }
            #expect(runs == expected, "\(context): \(order) order's \(grouping) runs (\(runs.count) of \(expected.count))", sourceLocation: sourceLocation)
        }
    }

    /// Chunk row ids of an order, to see which chunks a change rewrote.
    static func chunkRows(_ library: Library) throws -> Set<Int64> {
        switch library.backend {
        case .sqlite:
            return try DatabaseQueue(path: library.catalogPath).read { Set(try Int64.fetchAll($0, sql: "SELECT rowid FROM order_chunks")) }
        case .postgres:
            return Set(try TestPostgres.psql(database(library), "SELECT id FROM order_chunks").split(separator: "\n").compactMap { Int64($0) })
        }
    }

    /// `forEachItem` (what `catalog list` prints), `items` and `list` (what `GET /api/items`
    /// returns, in a snapshot) give the rows of a whole read, whatever the limit and offset: from
    /// offset 4,096 on they start at the item the order data puts there (within a date, across
    /// dates, at chunk boundaries, past the end), and the same once the order data is stale; on
    /// PostgreSQL across a cursor's fetches of 10,000 rows.
    @Test(arguments: Backend.allCases) func listsFromAnyOffset_giveTheRowsOfAWholeRead_withTheOrderDataCurrentOrStale(_ backend: Backend) throws {
        let library = try Library(backend)
        let file = try library.write("long.csv", Data(ImportIntoCatalogTests.longCSV(rows: 12_000).utf8))
        let catalog = try library.catalog()
        _ = try catalog.importItems(from: file)
        let chunk = OrderChunking.chunkSize // 4,096: the chunks of a rebuild are full but the last
        let cases: [(limit: Int?, offset: Int)] = [(nil, 0), (2_500, 1_999), (nil, 7_000), (600, 5_000), (1, 11_999), (5, 11_998),
                                                   (nil, 12_000), (3, 20_000), (0, 0), (0, 6_000), (2, chunk - 1), (1, chunk),
                                                   (3, 2 * chunk - 1), (2, 2 * chunk), (chunk + 1, chunk)]
        let wholes = try ItemOrder.allCases.map { try catalog.items(order: $0) }
        for stale in [false, true] {
            if stale {
                switch backend {
                case .sqlite: try DatabaseQueue(path: library.catalogPath).write { try $0.execute(sql: "UPDATE order_data SET generation = -1") }
                case .postgres: try TestPostgres.psql(Self.database(library), "UPDATE order_data SET generation = -1")
                }
            }
            for (order, whole) in zip(ItemOrder.allCases, wholes) {
                #expect(whole.count == 12_000)
                #expect((try Self.orderData(catalog, order) != nil) == !stale, "current after the import (the lists seek), stale: \(stale)")
                // The total, from the order data's chunk list while it is current.
                #expect(try catalog.store.itemCount() == 12_000, "stale: \(stale)")
                #expect(try catalog.list(ListRequest(order: order, limit: 1, offset: 0)).total == 12_000, "stale: \(stale)")
                for (limit, offset) in cases {
                    let expected = Array(whole[min(offset, 12_000)..<min(offset + (limit ?? 12_000), 12_000)])
                    let what = "\(order), limit \(String(describing: limit)), offset \(offset), stale: \(stale)"
                    var listed: [ItemRow] = []
                    try catalog.forEachItem(order: order, limit: limit, offset: offset) { listed.append($0) }
                    #expect(listed == expected, "\(what): \(listed.count) rows")
                    if (limit, offset) != (nil, 0) { // (what `wholes` read)
                        #expect(try catalog.items(order: order, limit: limit, offset: offset) == expected, "\(what)")
                    }
                    if let limit, limit <= ListRequest.maximumLimit {
                        #expect(try catalog.list(ListRequest(order: order, limit: limit, offset: offset)).items == expected, "\(what)")
                    }
                }
            }
        }
    }

    /// The name of a PostgreSQL library's database on the shared test server.
    static func database(_ library: Library) -> String {
        String(URLComponents(string: library.catalogPath)?.path.dropFirst() ?? "")
    }

    @Test(arguments: Backend.allCases)
    func importsKeepTheOrderData_andSmallChangesRewriteFewChunks(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        try Self.expectCurrent(catalog, "empty")
        _ = try catalog.importItems(PagerTests.importRows(30_000, year: 2020)) // hourly dates: many ties, broken by key
        try Self.expectCurrent(catalog, "first import")
        let before = try Self.chunkRows(library)
        #expect(before.count >= 14, "two orders of 30,000 items in chunks of 4096")

        // Older items (date order: at the end) with keys after every other (path order: at the end).
        _ = try catalog.importItems(PagerTests.importRows(500, from: 30_000, year: 2010, seed: 2))
        try Self.expectCurrent(catalog, "appended")
        var after = try Self.chunkRows(library)
        #expect(before.subtracting(after).count <= 2, "an append rewrites the last chunk of each order, not all \(before.count)")

        // A few updates scattered through both orders: new sizes, new dates, and the same values.
        var rows = PagerTests.importRows(30_000, year: 2020)
        let changed = [17, 9_000, 21_345]
        rows[17].width = 7
        rows[9_000].date = "2030-01-01T00:00:00"
        rows[21_345].height = 4_321
        _ = try catalog.importItems(changed.map { rows[$0] } + [rows[5]])
        try Self.expectCurrent(catalog, "scattered updates")
        let updated = try Self.chunkRows(library)
        #expect(after.subtracting(updated).count <= 2 * changed.count + 2, "each change rewrites its chunks")
        after = updated

        // A newer item (first in date order) and one whose key sorts first.
        _ = try catalog.importItems([ImportRow(line: 2, key: "0-first", width: 300, height: 400, orientation: 6, date: "2031-05-05T00:00:00")])
        try Self.expectCurrent(catalog, "inserted at the front")
        #expect(after.subtracting(try Self.chunkRows(library)).count <= 2)

        // Everything again with new dates: a rebuild.
        _ = try catalog.importItems(PagerTests.importRows(30_000, year: 2015, seed: 9))
        try Self.expectCurrent(catalog, "everything changed")
    }

    @Test(arguments: Backend.allCases)
    func readingFromAnOffset_andFindingItems(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(10_000))
        for order in ItemOrder.allCases {
            let listed = try catalog.items(order: order)
            for offset in [0, 1, 4095, 4096, 4097, 9_999, 10_000, 12_000] {
                let suffix = try #require(try Self.orderData(catalog, order, offset: offset))
                let equal = suffix.map(\.id) == listed.dropFirst(offset).map(\.id)
                #expect(equal, "\(order) from \(offset)")
            }
            for position in [0, 1, 4095, 4096, 5_000, 9_999] {
                let found = try catalog.store.withSnapshot { try $0.index(ofItem: listed[position].id, order: order) }
                #expect(found == position, "\(order): item at \(position)")
            }
            #expect(try catalog.store.withSnapshot { try $0.index(ofItem: 987_654, order: order) } == nil)
            let positions = [0, 4095, 4096, 9_999, 10_000]
            let keys = try catalog.store.withSnapshot { try $0.keys(atPositions: positions, order: order) }
            #expect(keys == Dictionary(uniqueKeysWithValues: positions.dropLast().map { ($0, listed[$0].key) }), "\(order): keys at positions")
        }
    }

    @Test(arguments: Backend.allCases)
    func scansThatAddRemoveRenameAndChangeFilesKeepTheOrderData(_ backend: Backend) throws {
        let library = try Library(backend)
        let jpeg = try Library.fixture("baseline.jpg")
        let png = try Library.fixture("rgb.png")
        func bytes(_ index: Int) -> Data {
            var data = index % 2 == 0 ? jpeg : png
            data.append(contentsOf: withUnsafeBytes(of: index) { Array($0) })
            return data
        }
        for index in 0..<300 { try library.write("\(index % 7)/img\(index).\(index % 2 == 0 ? "jpg" : "png")", bytes(index)) }
        // Modification times spread over years: the date order is not the path order.
        for index in 0..<300 {
            let path = library.path("\(index % 7)/img\(index).\(index % 2 == 0 ? "jpg" : "png")")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double((index * 7_919) % 300) * 86_400 * 30)],
                                                  ofItemAtPath: path)
        }
        let catalog = try library.catalog()
        var options = ScanOptions()
        options.batchSize = 16 // many batches: the first rebuilds, later ones leave it for the end
        _ = try catalog.scan([library.root.path], options: options)
        try Self.expectCurrent(catalog, "first scan")

        try library.write("new/a.jpg", bytes(1_000))
        try library.write("new/b.png", bytes(1_001))
        try library.write("ü\\x/deep/c.jpg", bytes(1_002)) // a folder key from bytes PostgreSQL escapes
        _ = try library.scan()
        try Self.expectCurrent(catalog, "added")

        try FileManager.default.removeItem(atPath: library.path("3/img3.png"))
        try FileManager.default.removeItem(atPath: library.path("5"))
        _ = try library.scan()
        try Self.expectCurrent(catalog, "removed")

        try FileManager.default.moveItem(atPath: library.path("0/img7.png"), toPath: library.path("zz-renamed.png"))
        try FileManager.default.moveItem(atPath: library.path("new"), toPath: library.path("aa-moved"))
        _ = try library.scan()
        try Self.expectCurrent(catalog, "renamed")

        try library.write("1/img1.png", jpeg) // another image, another size
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 2_000_000_000)], ofItemAtPath: library.path("2/img2.jpg"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: library.path("4/img4.jpg")))
        _ = try library.scan()
        try Self.expectCurrent(catalog, "changed")
    }

    @Test func aRebuildWithIdsFarApart() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3_000, year: 2020))
        // The order data marked as never built: the next import rebuilds both orders.
        try DatabaseQueue(path: library.catalogPath).write { db in
            try db.execute(sql: "UPDATE items SET id = id + 5000000 WHERE id % 2 = 0; UPDATE order_data SET generation = -1")
        }
        _ = try catalog.importItems(PagerTests.importRows(3_000, year: 2015, seed: 9))
        try Self.expectCurrent(catalog, "ids far apart")
    }

    /// The encoding's edges, entry by entry: one entry is wide (its 16 bytes would read as a
    /// narrow chunk's base and one entry), ids exactly 2³²−1 apart and sides of 65,535 are
    /// narrow, a step past either is wide, negative ids too; every blob reads back its entries.
    @Test func entriesAreNarrowUpToTheEdgesAndWidePastThem() {
        func encoded(_ entries: [(Int64, Int64, Int64)]) -> (narrow: Bool, read: [LayoutInputRow]) {
            var buffer = OrderData.EntryBuffer()
            for (id, width, height) in entries { buffer.append(id: id, width: width, height: height) }
            let blob = buffer.encoded()
            let read = blob.withUnsafeBytes { raw in
                OrderData.Entries(raw, count: entries.count).map { view in (0..<entries.count).map { view[$0] } } ?? []
            }
            return (blob.count == 8 + 8 * entries.count && entries.count > 1, read)
        }
        let cases: [(entries: [(Int64, Int64, Int64)], narrow: Bool)] = [
            ([(7, 3, 4)], false),
            ([(7, 3, 4), (9, 5, 6)], true),
            ([(1, 1, 1), (1 + 0xFFFF_FFFF, 65_535, 65_535)], true),
            ([(1, 1, 1), (2 + 0xFFFF_FFFF, 2, 2)], false),
            ([(1, 65_536, 1), (2, 2, 2)], false),
            ([(1, 1, 65_536), (2, 2, 2)], false),
            ([(-5, 10, 20), (3, 30, 40), (-1, 50, 60)], true),
            ([(Int64.min, 1, 1), (Int64.max, 1, 1)], false),
        ]
        for (entries, narrow) in cases {
            let (isNarrow, read) = encoded(entries)
            #expect(isNarrow == narrow, "\(entries)")
            #expect(read == entries.map { LayoutInputRow(id: $0.0, width: Int($0.1), height: Int($0.2)) }, "\(entries)")
        }
    }

    /// SQLite keeps a chunk's entries narrow (its smallest id, then 8 bytes an entry) where every
    /// id of the chunk is within 2³²−1 of the smallest and every side fits 16 bits, and wide (16
    /// bytes an entry) where not: a side past 65,535 in the second chunk, ids past 2³² beside
    /// small ones in the third. Either way they read back as the items, and give each item's
    /// position and each position's key; so do chunks written wide by builds before the narrow
    /// encoding, all of them wide.
    @Test func chunksNarrowWhereTheyFit_wideWhereNot_andChunksWrittenWideBeforeReadTheSame() throws {
        let library = try Library()
        let catalog = try library.catalog()
        // One date for all: both orders are the keys' order, so each chunk holds known rows.
        func rows(_ range: Range<Int>) -> [ImportRow] {
            range.map { ImportRow(line: $0 + 2, key: String(format: "k%05d", $0), width: 300 + $0 % 7, height: 400, date: "2024-01-01T00:00:00") }
        }
        var first = rows(0..<10_000)
        first[5_000].width = 65_536 // in the second chunk (positions 4,096 to 8,191)
        _ = try catalog.importItems(first)
        #expect(try ImportedOrderTests.importsCut(catalog) == 1, "the order data was cut from the rows")
        let database = try DatabaseQueue(path: library.catalogPath)
        func encodings() throws -> [String] {
            try database.read { db in
                try String.fetchAll(db, sql: """
                    SELECT item_order || ':' || CASE length(entries) WHEN 16 * count THEN 'wide' WHEN 8 + 8 * count THEN 'narrow' ELSE 'neither' END
                    FROM order_chunks ORDER BY item_order, lo_date DESC, lo_key
                    """)
            }
        }
        #expect(try encodings() == ["date:narrow", "date:wide", "date:narrow", "path:narrow", "path:wide", "path:narrow"])
        try Self.expectCurrent(catalog, "cut from the rows")
        // Ids past 2³² for the items from k09001 on, and items added after them: the order data
        // marked as never built, so that the next import rebuilds both orders from the indexes.
        try database.write { db in
            try db.execute(sql: "UPDATE items SET id = id + 4294967296 WHERE id > 9001; UPDATE order_data SET generation = -1")
        }
        _ = try catalog.importItems(rows(10_000..<10_010))
        #expect(try encodings() == ["date:narrow", "date:wide", "date:wide", "path:narrow", "path:wide", "path:wide"])
        func expectPositions(_ context: String) throws {
            try Self.expectCurrent(catalog, context)
            let listed = try catalog.items(order: .path)
            let positions = Array(stride(from: 0, to: listed.count, by: 97)) + [4_095, 4_096, 8_191, 8_192, listed.count - 1]
            for order in ItemOrder.allCases {
                let (found, keys) = try catalog.store.withSnapshot { snapshot in
                    (try positions.map { try snapshot.index(ofItem: listed[$0].id, order: order) },
                     try snapshot.keys(atPositions: positions, order: order))
                }
                #expect(found == positions, "\(context): \(order) order, each item's position")
                #expect(positions.allSatisfy { keys[$0] == listed[$0].key }, "\(context): \(order) order, each position's key")
            }
        }
        try expectPositions("narrow and wide chunks")
        // Every chunk wide, as builds before the narrow encoding wrote them.
        try database.write { db in
            for (rowID, bytes, count) in try Row.fetchAll(db, sql: "SELECT rowid, entries, count FROM order_chunks").map({ ($0[0] as Int64, $0[1] as Data, $0[2] as Int) }) {
                let wide = bytes.withUnsafeBytes { raw -> Data in
                    let entries = OrderData.Entries(raw, count: count)!
                    var wide = Data()
                    for entry in 0..<count {
                        let row = entries[entry]
                        var words = (row.id.littleEndian, UInt32(row.width).littleEndian, UInt32(row.height).littleEndian)
                        withUnsafeBytes(of: &words) { wide.append(contentsOf: $0) }
                    }
                    return wide
                }
                try db.execute(sql: "UPDATE order_chunks SET entries = ? WHERE rowid = ?", arguments: [wide, rowID])
            }
        }
        #expect(try encodings().allSatisfy { $0.hasSuffix(":wide") })
        try expectPositions("every chunk wide")
    }

    /// Folder sections that run across chunk boundaries, in both orders, with keys whose folder
    /// is empty ("/x", "plain") among them; and a change that moves a folder's boundary.
    @Test(arguments: Backend.allCases)
    func folderRunsAcrossChunks(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        var rows = PagerTests.importRows(10_000)
        for index in rows.indices { rows[index].key = "f\(index / 3_000)/k\(String(format: "%05d", index))" }
        rows[0].key = "/x"
        rows[1].key = "plain"
        _ = try catalog.importItems(rows)
        try Self.expectCurrent(catalog, "imported")
        _ = try catalog.importItems([ImportRow(line: 2, key: "f1/k04095z", width: 10, height: 10, orientation: 1, date: "2024-06-01T00:00:00")])
        try Self.expectCurrent(catalog, "one more in the middle of f1")
    }

    /// Month runs where neighbours' dates differ in their first seven characters yet have the
    /// same month key (dates that are not "YYYY-MM...", all month 0), and where they share it
    /// with different days: one run each, in both orders (PostgreSQL works out the month in date
    /// order only where the first seven characters change).
    @Test(arguments: Backend.allCases)
    func monthRunsOfDatesThatAreNotMonths(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let dates = ["zz", "sometime", "someday-1", "9999", "2024-3-05", "2024-03-05", "2024-03-01T10:00:00", "2024-03", "2024-02-29",
                     "1999-12-31", "199x-12-31", "", "2024-03-05"]
        _ = try catalog.importItems(dates.enumerated().map { index, date in
            ImportRow(line: index + 2, key: "k\(index)", width: 10, height: 10, orientation: 1, date: date)
        })
        try Self.expectCurrent(catalog, "dates that are not months")
        if backend == .postgres {
            // As stored, too: a chunk's month runs start where the month changes, as the
            // migration says (a reader would join runs of equal months, so the read above cannot tell).
            let repeated = try TestPostgres.psql(Self.database(library), """
                SELECT count(*) FROM order_chunks, LATERAL (SELECT m, lag(m) OVER (ORDER BY i) AS before
                                                             FROM unnest(months) WITH ORDINALITY AS u(m, i)) AS runs
                WHERE m = before
                """)
            #expect(repeated.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "no run repeats the month before")
        }
    }

    /// While the order data lags behind (mid-scan), sections come from the rows: on PostgreSQL the
    /// database finds where they start. Dates without a month, keys without a folder, folders
    /// whose bytes PostgreSQL escapes.
    @Test(arguments: Backend.allCases)
    func sectionsWithoutCurrentOrderData(_ backend: Backend) throws {
        let library = try Library(backend)
        for (index, name) in ["a/1.jpg", "a/2.jpg", "b\\c/3.jpg", "caf\u{E9}/4.jpg", "caf\u{E9}/deep/5.jpg", "6.jpg"].enumerated() {
            let path = try library.write(name, try Library.fixture("baseline.jpg") + Data([UInt8(index)]))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(index % 3) * 86_400 * 40)], ofItemAtPath: path)
        }
        _ = try library.scan()
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 2, key: "undated", width: 5, height: 5, orientation: 1, date: "sometime"),
                                     ImportRow(line: 3, key: "x/y", width: 5, height: 5, orientation: 1, date: "2001-02")])
        switch backend {
        case .sqlite: try DatabaseQueue(path: library.catalogPath).write { try $0.execute(sql: "UPDATE order_data SET generation = -1") }
        case .postgres: try TestPostgres.psql(Self.database(library), "UPDATE order_data SET generation = -1")
        }
        for order in ItemOrder.allCases {
            #expect(try Self.orderData(catalog, order) == nil, "stale")
            try Self.expectSectionRuns(catalog, order, try catalog.items(order: order), "from the rows")
        }
    }

    /// Scanners that end at once each force a refresh of stale order data (and servers started
    /// together on a new build each build it after the migration): the refreshes take turns,
    /// so the order data holds every item once.
    @Test func forcedRefreshesAtOnceTakeTurns() async throws {
        let library = try Library(.postgres)
        _ = try library.catalog().importItems(PagerTests.importRows(20_000))
        let database = Self.database(library)
        for round in 0..<3 {
            try TestPostgres.psql(database, "UPDATE order_data SET generation = -1")
            let stores = try (0..<3).map { _ in try library.catalog() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for catalog in stores { group.addTask { try catalog.store.refreshOrderData() } }
                try await group.waitForAll()
            }
            try Self.expectCurrent(stores[0], "round \(round)")
            #expect(try TestPostgres.psql(database, "SELECT count(*) FROM order_chunks").trimmingCharacters(in: .whitespacesAndNewlines) == "10",
                    "two orders of 20,000 items in chunks of 4096, each once")
        }
    }
}
