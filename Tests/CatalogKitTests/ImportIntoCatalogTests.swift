@testable import CatalogKit
import Foundation
import GRDB
import Testing

/// Imports into a catalog, on SQLite and on PostgreSQL: upserts, repeated keys, reimports, long
/// inputs read in pieces, and inputs refused without a change.
@Suite struct ImportIntoCatalogTests {
    @Test(arguments: Backend.allCases) func importingAFileUpsertsIntoTheCatalog_andABadFileChangesNothing(_ backend: Backend) throws {
        let library = try Library(backend)
        let good = try library.write("pins.csv", Data("key,width,height\np1,10,20\np2,30,40\n".utf8))
        let store = try library.catalog()
        let first = try store.importItems(from: good)
        #expect((first.added, first.updated) == (2, 0))
        let again = try library.write("more.ndjson", Data("{\"key\":\"p2\",\"width\":5,\"height\":6}\n{\"key\":\"p3\",\"width\":7,\"height\":8}\n".utf8))
        let second = try store.importItems(from: again)
        #expect((second.added, second.updated) == (1, 1))
        let generation = try store.generation()
        let bad = try library.write("bad.csv", Data("key,width,height\np4,1,1\np5,1,-1\n".utf8))
        #expect(throws: StoreError.invalidInput(line: 3, reason: "height must be a whole number from 1 to 16777216, got \"-1\"")) {
            try store.importItems(from: bad)
        }
        #expect(try store.items(order: .path).map { String(decoding: $0.key, as: UTF8.self) } == ["p1", "p2", "p3"])
        #expect(try store.generation() == generation)
    }

    /// Into an empty catalog, keys that come twice refuse the import at the first line that
    /// repeats one (not the first key repeated): on PostgreSQL, which copies the rows straight
    /// into the items, they are found only when the key index is made after the copy, and the
    /// line worked out from the item's id; the whole import is rolled back all the same. The
    /// catalog stays empty, and the same rows without the repeats import, keys unique.
    @Test(arguments: Backend.allCases) func intoAnEmptyCatalog_keysTwiceRefuseTheImportAtTheFirstRepeat(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let rows = PagerTests.importRows(500)
        var twice = rows
        twice[300].key = rows[10].key // the first key repeated ...
        twice[200].key = rows[20].key // ... repeated later than this one
        let generation = try catalog.generation()
        #expect(throws: StoreError.invalidInput(line: rows[200].line, reason: "key \"\(rows[20].key)\" appears twice (first on line \(rows[20].line))")) {
            try catalog.importItems(twice)
        }
        #expect(try catalog.items(order: .path).isEmpty)
        #expect(try catalog.generation() == generation)
        #expect(try ImportedOrderTests.importsCut(catalog) == 0, "a refused import's order data is not counted as cut")
        #expect(try catalog.importItems(rows).added == 500)
        #expect(try ImportedOrderTests.importsCut(catalog) == 1, "the next import cuts its order data from its rows")
        try OrderDataTests.expectCurrent(catalog, "after a refused import")
        #expect(Set(try catalog.items(order: .path).map(\.id)) == Set(1...500), "the ids the refused import would have taken, as on SQLite")
        #expect(throws: StoreError.invalidInput(line: 3, reason: "key \"\(rows[0].key)\" appears twice (first on line \(rows[0].line))")) {
            try catalog.importItems([rows[0], ImportRow(line: 3, key: rows[0].key, width: 1, height: 1, orientation: 1)])
        }
        let again = try catalog.importItems(rows.map { var row = $0; row.width += 1; return row })
        #expect((again.added, again.updated) == (0, 500), "each key one item: the key index is back")

        // Records over several lines before the repeat, in a file: the line is the record's first.
        // And a line the parser refuses deep in the file, once PostgreSQL has copied rows before it.
        let other = try Library(backend)
        for (name, text) in [("twice.csv", Self.longCSV(rows: 30_000, repeatKeyAt: 25_000)), ("bad.csv", Self.longCSV(rows: 30_000, badRecord: 29_000))] {
            guard case .failure(let expected) = ImportTests().parse(text, .csv), case .invalidInput(let line, _) = expected else {
                Issue.record("a whole read refuses \(name) too")
                continue
            }
            #expect(line > 25_000 + 2 + 3_000, "\(name): past the lines of the records over two")
            #expect(throws: expected) { try other.catalog().importItems(from: try other.write(name, Data(text.utf8))) }
            #expect(try other.catalog().items(order: .path).isEmpty)
        }
        _ = try other.catalog().importItems(from: try other.write("good.csv", Data(Self.longCSV(rows: 2_000).utf8)))
        #expect(Set(try other.catalog().items(order: .path).map(\.id)) == Set(1...2_000), "no id taken by the refused imports")
    }

    /// A CSV of several MiB, read in pieces cut where records end: quoted titles holding commas,
    /// doubled quotes and line breaks land across the cuts.
    static func longCSV(rows: Int, badRecord: Int? = nil, repeatKeyAt: Int? = nil) -> String {
        var text = "key,width,height,orientation,date,url,title\n"
        for index in 0..<rows {
            let key = index == repeatKeyAt ? "pin-0" : "pin-\(index)"
            let width = index == badRecord ? "wide" : "\(100 + index % 900)"
            let title = switch index % 7 {
            case 0: "\"Pin \(index), with a comma\""
            case 3: "\"two\nlines, \"\"quoted\"\" \(index)\""
            default: "plain title \(index) " + String(repeating: "x", count: index % 200)
            }
            text += "\(key),\(width),\(50 + index % 700),1,2024-01-\(String(format: "%02d", 1 + index % 28)),https://cdn\(index % 3).example/\(index),\(title)\n"
        }
        return text
    }

    /// Both stores give out the same ids for the same imports, so `list` and `page` print the
    /// same: only a new item takes an id (a row that updates an item, or leaves it as it was,
    /// takes none), and the next new item gets the same one on both.
    @Test(arguments: Backend.allCases) func reimportsGiveTheSameIdsOnBothStores(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3))
        for _ in 0..<2 { _ = try catalog.importItems(PagerTests.importRows(3)) }
        var rows = PagerTests.importRows(4)
        rows[0].width += 1
        #expect(try catalog.importItems(rows).added == 1)
        let ids = try catalog.items(order: .path).map(\.id)
        #expect(ids == [1, 2, 3, 4], "\(backend): \(ids)")
        #expect(try catalog.items(order: .path).first?.width == rows[0].width)
    }

    /// Importing an export again that changes nothing leaves the catalog as it was: no new
    /// generation, so its stored layouts stay current and its clients need no change set. A key
    /// twice in one input is still refused when its first row changes nothing, in a statement
    /// of many rows (SQLite writes 64 to a statement) and in the rows after the last such.
    @Test(arguments: Backend.allCases) func anUnchangedExportAgain_changesNothing_andAKeyTwiceIsStillRefused(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let rows = PagerTests.importRows(150)
        _ = try catalog.importItems(rows)
        let configuration = LayoutConfiguration(width: 375)
        _ = try catalog.precompute(configuration)
        let generation = try catalog.generation()
        let before = try catalog.items(order: .path)
        let again = try catalog.importItems(rows)
        #expect(again == ImportSummary(added: 0, updated: 0, unchanged: 150, generation: generation))
        #expect(try catalog.generation() == generation)
        #expect(try catalog.items(order: .path) == before)
        #expect(try catalog.layouts().map(\.generation) == [generation], "\(backend): the stored layout is still current")

        // Line 12 (in the first statement of 64) and line 140 (in the rows after the second)
        // leave their items as they were; each key comes again later, once changed, once not.
        for (first, second, changed) in [(10, 100, true), (10, 30, false), (138, 145, true), (138, 149, false)] {
            var twice = rows
            twice[second] = rows[first]
            twice[second].line = rows[second].line
            if changed { twice[second].width += 1 }
            #expect(throws: StoreError.invalidInput(line: rows[second].line, reason: "key \"\(rows[first].key)\" appears twice (first on line \(rows[first].line))"),
                    "\(backend): lines \(rows[first].line) and \(rows[second].line)") {
                try catalog.importItems(twice)
            }
        }
        #expect(try catalog.generation() == generation)
        #expect(try catalog.items(order: .path) == before)

        // A new title, a new size and a new date among unchanged rows: three updates.
        var changes = rows
        changes[5].title = "new title"
        changes[70].height += 1
        changes[140].date = "1990-01-01T00:00:00"
        let summary = try catalog.importItems(changes + PagerTests.importRows(2, from: 150))
        #expect(summary == ImportSummary(added: 2, updated: 3, unchanged: 147, generation: generation + 1))
        let items = Dictionary(uniqueKeysWithValues: try catalog.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0) })
        #expect(items[changes[5].key]?.title == "new title")
        #expect(items[changes[70].key]?.pixelHeight == changes[70].height)
        #expect(items[changes[140].key]?.date == "1990-01-01T00:00:00")
        #expect(items.values.map(\.id).sorted() == Array(1...152), "\(backend): only the new items took ids")
        try OrderDataTests.expectCurrent(catalog, "\(backend)")
    }

    @Test(arguments: Backend.allCases) func aLongInputIsReadInPieces_withTheRowsOfAWholeRead(_ backend: Backend) throws {
        let text = Self.longCSV(rows: 40_000)
        #expect(text.utf8.count > 3 << 20, "past a few of the reader's 1 MiB blocks")
        let expected = try ImportTests().parse(text, .csv).get()
        let library = try Library(backend)
        let file = try library.write("long.csv", Data(text.utf8))
        let catalog = try library.catalog()
        let summary = try catalog.importItems(from: file)
        #expect((summary.added, summary.updated) == (40_000, 0))
        let stored = Dictionary(uniqueKeysWithValues: try catalog.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0) })
        #expect(stored.count == expected.count)
        for row in expected {
            let item = try #require(stored[row.key])
            #expect((item.pixelWidth, item.pixelHeight, item.url, item.title) == (row.width, row.height, row.url, row.title))
        }
        #expect(stored["pin-3"]?.title == "two\nlines, \"quoted\" 3")
        #expect(try catalog.webOrigins(limit: 10) == ["https://cdn0.example", "https://cdn1.example", "https://cdn2.example"])
    }

    /// An item imported again without a date sorts by its first import's time, not the new
    /// import's: importing the same export again must not move every undated item to the top.
    @Test(arguments: Backend.allCases) func anItemImportedAgainWithoutADate_keepsSortingByItsFirstImport(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        // Past 64 rows, so that SQLite upserts many rows to a statement as well as one at a time.
        let many = (0..<70).map { ImportRow(line: 4 + $0, key: "z-\($0)", width: 5, height: 5) }
        _ = try catalog.store.importItems([ImportRow(line: 2, key: "undated", width: 5, height: 5),
                                           ImportRow(line: 3, key: "dated", width: 5, height: 5, date: "2019-01-01T00:00:00")] + many,
                                          importedAt: "2020-01-01T00:00:00")
        _ = try catalog.store.importItems([ImportRow(line: 2, key: "other", width: 5, height: 5)], importedAt: "2021-01-01T00:00:00")
        let again = try catalog.store.importItems([ImportRow(line: 2, key: "undated", width: 6, height: 5),
                                                   ImportRow(line: 3, key: "dated", width: 5, height: 5)] + many,
                                                  importedAt: "2022-01-01T00:00:00")
        #expect((again.added, again.updated, again.unchanged) == (0, 2, 70), "the 70 others are as they were")
        let items = try catalog.items()
        #expect(items.prefix(3).map { String(decoding: $0.key, as: UTF8.self) } == ["other", "dated", "undated"], "\(backend)")
        #expect(items.prefix(3).map(\.date) == ["2021-01-01T00:00:00", "2020-01-01T00:00:00", "2020-01-01T00:00:00"],
                "the dated item, now without a date, falls back to its first import's time too")
        #expect(items.dropFirst().allSatisfy { $0.date == "2020-01-01T00:00:00" }, "\(backend)")
        #expect(items[2].width == 6, "the rest of the row is updated")
        try OrderDataTests.expectCurrent(catalog, "\(backend)")
    }

    /// A WAL grown large while another process held a snapshot (a long `list`, a server beside
    /// a big import) is cut back once it starts over, not kept at its largest for as long as
    /// any process has the catalog open (it stayed at 270 MB beside a 55 MB catalog).
    @Test func aWALGrownBesideASnapshot_isCutBackOnceItStartsOver() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 2, key: "first", width: 1, height: 1)])
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true // the snapshot outlives one access
        let reader = try DatabaseQueue(path: library.catalogPath, configuration: configuration)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM items") // holds its snapshot: no checkpoint passes it
        }
        let long = String(repeating: "x", count: 2_000)
        _ = try catalog.importItems((0..<50_000).map { ImportRow(line: $0 + 2, key: "pin-\($0)", width: 2, height: 3, title: long) })
        func walSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: library.catalogPath + "-wal")[.size] as? Int) ?? 0 }
        try #require(walSize() > 80 << 20, "the WAL grew past the limit: \(walSize())")
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }
        // A commit checkpoints the whole WAL now, and the next write starts it over.
        for key in ["after-1", "after-2", "after-3"] { _ = try catalog.importItems([ImportRow(line: 2, key: key, width: 1, height: 1)]) }
        #expect(walSize() <= 64 << 20, "\(walSize())")
    }

    @Test(arguments: Backend.allCases) func aBadLineDeepInALongInput_leavesTheCatalogAsItWas_andIsNamed(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(from: try library.write("first.csv", Data("key,width,height\nkept,1,2\n".utf8)))
        let generation = try catalog.generation()
        // Titles span lines, so a record's line is its first line in the file, as a whole read names it.
        for (name, text) in [("bad.csv", Self.longCSV(rows: 30_000, badRecord: 29_000)), ("twice.csv", Self.longCSV(rows: 30_000, repeatKeyAt: 25_000))] {
            guard case .failure(let expected) = ImportTests().parse(text, .csv), case .invalidInput(let line, _) = expected else {
                Issue.record("a whole read of \(name) is refused too")
                continue
            }
            #expect(line > 25_000, "deep in the file, past several batches of 4096 rows")
            #expect(throws: expected) { try catalog.importItems(from: try library.write(name, Data(text.utf8))) }
        }
        #expect(try catalog.items(order: .path).map { String(decoding: $0.key, as: UTF8.self) } == ["kept"])
        #expect(try catalog.generation() == generation)
        #expect(try catalog.webOrigins(limit: 10) == [])
    }

    @Test(arguments: Backend.allCases) func importedAddressesKeepTheirOrigins_asSchemeHostAndPort_lowercased(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let ndjson = [
            #"{"key":"a","width":1,"height":1,"url":"HTTPS://I.Pinimg.COM/originals/a.jpg"}"#,
            #"{"key":"b","width":1,"height":1,"url":"http://cdn.example:8080?size=large"}"#,
            #"{"key":"c","width":1,"height":1,"url":"https://frag.example#top"}"#,
            #"{"key":"d","width":1,"height":1,"url":"ftp://files.example/d.jpg"}"#,
            #"{"key":"e","width":1,"height":1,"url":"https://i.pinimg.com/other.jpg"}"#,
            #"{"key":"f","width":1,"height":1,"url":"/relative/f.jpg"}"#,
        ].joined(separator: "\n")
        _ = try catalog.importItems(from: try library.write("pins.ndjson", Data(ndjson.utf8)))
        #expect(try catalog.webOrigins(limit: 10) == ["http://cdn.example:8080", "https://frag.example", "https://i.pinimg.com"])
        // An update that moves an item to another host adds that host; the old one stays.
        _ = try catalog.importItems(from: try library.write("moved.csv", Data("key,width,height,url\nd,1,1,https://new.example/d.jpg\n".utf8)))
        #expect(try catalog.webOrigins(limit: 10).contains("https://new.example"))
        #expect(try catalog.webOrigins(limit: 10).count == 4)
    }

    /// Text that COPY's text format escapes (backslashes, tabs, line ends) comes back as it was
    /// given, on both stores; and so does text with nothing to escape beside it.
    @Test(arguments: Backend.allCases) func textWithTabsBackslashesAndLineEnds_isStoredAsGiven(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let titles = ["tab\there", #"back\slash\N"#, "line\nend\r\n", "carriage\rreturn", "plain title", "ünïcödé \\ and \t"]
        let rows = titles.enumerated().map { index, title in
            ImportRow(line: index + 2, key: index == 1 ? #"key\with\backslash"# : "k\(index)", width: 10, height: 20,
                      url: "https://cdn.example/\(index)\t", title: title)
        }
        _ = try catalog.importItems(rows)
        let stored = Dictionary(uniqueKeysWithValues: try catalog.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0) })
        for row in rows {
            let item = try #require(stored[row.key], "\(backend): \(row.key)")
            #expect((item.title, item.url) == (row.title, row.url), "\(backend): \(row.key)")
        }
        // Origins that come back after another: each is kept once.
        let hosts = ["a.example", "b.example", "a.example", "A.EXAMPLE", "c.example", "b.example"]
        _ = try catalog.importItems(hosts.enumerated().map { index, host in
            ImportRow(line: index + 2, key: "o\(index)", width: 1, height: 1, url: "https://\(host)/\(index)")
        })
        #expect(try catalog.webOrigins(limit: 10) == ["https://a.example", "https://b.example", "https://c.example", "https://cdn.example"], "\(backend)")
    }

    @Test(arguments: Backend.allCases) func anInputThatCannotBeReadIsNamed_notTakenForTheCatalog(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let missing = library.root.appendingPathComponent("missing.csv").path
        #expect(throws: StoreError.cannotRead(path: missing, reason: "No such file or directory")) { try catalog.importItems(from: missing) }
        let folder = library.root.path
        #expect(throws: StoreError.cannotRead(path: folder, reason: "Is a directory")) { try catalog.importItems(from: folder, format: .csv) }
        #expect(StoreError.cannotRead(path: missing, reason: "No such file or directory").description
                == "cannot read \(missing): No such file or directory; nothing was imported")
        #expect(try catalog.generation() == 0)
    }
}
