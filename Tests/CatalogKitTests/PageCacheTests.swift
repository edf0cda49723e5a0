@testable import CatalogKit
import CatalogModel
@testable import CatalogStorePostgres
import Foundation
import Synchronization
import Testing

/// Pages from memory equal pages read from the catalog, and follow the catalog's changes.
@Suite struct PageCacheTests {
    func expectSame(_ cached: Page?, _ read: Page, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(cached?.items == read.items, sourceLocation: sourceLocation)
        #expect(cached?.contentHeight == read.contentHeight, sourceLocation: sourceLocation)
        #expect(cached?.generation == read.generation, sourceLocation: sourceLocation)
        #expect(cached?.next == read.next && cached?.previous == read.previous, sourceLocation: sourceLocation)
        #expect(cached?.viewport == read.viewport, sourceLocation: sourceLocation)
    }

    @Test(arguments: Backend.allCases)
    func pagesFromMemoryEqualPagesFromTheCatalog_andFollowItsChanges(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3000))
        let cache = PageCache(catalog: catalog)
        let request = try PageRequest(query: "width=414&cols=3")
        #expect(try cache.page(request) == nil, "not stored yet: the caller computes it")
        let height = try catalog.page(request).contentHeight
        for offset in stride(from: 0.0, through: height + 500, by: height / 37) {
            let request = try PageRequest(query: "width=414&cols=3&offset=\(offset)&height=700")
            expectSame(try cache.page(request), try catalog.page(request))
            expectSame(try cache.page(request), try catalog.page(request)) // the second time from memory
        }
        #expect(try cache.page(try PageRequest(query: "width=414&cols=3&item=5")) == nil, "by item: through the catalog")
        // Another process's import moves the catalog on: the next page is of the new generation.
        let before = try cache.generation()
        let other = try Catalog.open(at: library.catalogPath)
        _ = try other.importItems(PagerTests.importRows(100, from: 3000, year: 2030, seed: 9))
        // On PostgreSQL the change is heard by the listener a moment after it commits.
        try waitFor { try cache.generation() == before + 1 }
        #expect(try cache.page(request) == nil, "the stored layout is stale now")
        let fresh = try catalog.page(request)
        #expect(fresh.generation == before + 1)
        expectSame(try cache.page(request), fresh)
    }
}

extension PageCacheTests {
    /// A catalog of `count` imported items with the layout of `query` stored (the library holds
    /// its folder: keep it while the catalog is used).
    static func stored(_ backend: Backend, items count: Int, query: String) throws -> (Library, Catalog, PageRequest) {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(count))
        let request = try PageRequest(query: query)
        _ = try catalog.page(request) // computes and stores the layout
        return (library, catalog, request)
    }

    /// What the store's `storedWindows` must give for the layout stored first in `catalog`: every
    /// window's bytes with its items' keys, read in one snapshot; with the layout, its generation
    /// and how a window's cell ids are read.
    static func storedWindowsAndKeys(_ catalog: Catalog) throws
        -> (stored: StoredLayout, generation: Int64, cells: @Sendable ([UInt8]) throws -> WindowCells, windows: [([UInt8], [Int64: ItemKey])]) {
        let stored = try #require(try catalog.layouts().first)
        let header = try #require(try Pager.readableHeader(stored))
        let generation = try catalog.generation()
        let order = try LayoutConfiguration(key: stored.configuration).order
        let cells: @Sendable ([UInt8]) throws -> WindowCells = { try PageCache.cells(header, order: order, $0) }
        let windows = try catalog.store.withSnapshot { snapshot in
            try snapshot.allWindows(layoutID: stored.id).map { ($0, try snapshot.keys(ids: try cells($0).ids)) }
        }
        return (stored, generation, cells, windows)
    }

    /// A cache that keeps fewer windows than a scroll through the layout touches drops them and
    /// reads them again, and every page still comes from it, equal to the catalog's.
    @Test func pastItsWindowBudget_theCacheStillAnswersEveryPage() throws {
        let (library, catalog, stored) = try Self.stored(.sqlite, items: 2000, query: "width=414&cols=3&window=512")
        defer { withExtendedLifetime(library) {} }
        let cache = PageCache(catalog: catalog, windowsPerLayout: 3)
        let height = try catalog.page(stored).contentHeight
        var most = 0
        for offset in stride(from: 0.0, to: height, by: 700) {
            let request = try PageRequest(query: "width=414&cols=3&window=512&offset=\(offset)&height=700")
            let cached = try cache.page(request)
            #expect(cached != nil, "offset \(offset): from the cache, not through the catalog")
            expectSame(cached, try catalog.page(request))
            // A band of 700 points meets at most 3 windows of 512: the budget holds.
            most = max(most, cache.keptWindows(configuration: request.configuration.key))
        }
        #expect(most == 3, "the budget is reached and never passed")
    }

    /// The windows kept stay within the cache's memory budget whatever windows the clients ask
    /// for: a layout keeps a quarter of it at most, and the least recently used layouts go.
    /// Every page still comes from the cache, equal to the catalog's.
    @Test func theWindowsKeptStayWithinTheMemoryBudget() throws {
        let (library, catalog, _) = try Self.stored(.sqlite, items: 2000, query: "width=414&cols=3&window=512")
        defer { withExtendedLifetime(library) {} }
        let budget = 64 << 10
        let bounded = PageCache(catalog: catalog, budgetBytes: budget)
        let unbounded = PageCache(catalog: catalog)
        var largest = 0
        for columns in 2...5 {
            let query = "width=414&cols=\(columns)&window=512"
            let height = try catalog.page(try PageRequest(query: query)).contentHeight // stores the layout
            for offset in stride(from: 0.0, to: height, by: 700) {
                let request = try PageRequest(query: query + "&offset=\(offset)&height=700")
                let cached = try bounded.page(request)
                #expect(cached != nil, "cols \(columns), offset \(offset): from the cache")
                expectSame(cached, try catalog.page(request))
                _ = try unbounded.page(request)
                largest = max(largest, bounded.keptBytes)
            }
        }
        #expect(largest <= budget && largest > budget / 2, "the budget is reached and never passed: \(largest)")
        #expect(unbounded.keptBytes > 2 * budget, "the same pages without the budget keep more: \(unbounded.keptBytes)")
    }

    /// A layout dropped and stored again while the catalog stays at one generation, under a new
    /// id (another layout was stored after it, so SQLite does not give the same id again): the
    /// cache, which reads windows by the id it kept, reads the layout again instead of sending
    /// every page through the catalog.
    @Test(arguments: Backend.allCases)
    func aLayoutStoredAgainAtTheSameGeneration_isReadAgain(_ backend: Backend) throws {
        let (library, catalog, request) = try Self.stored(backend, items: 1500, query: "width=414&cols=3&window=512&height=600")
        defer { withExtendedLifetime(library) {} }
        let cache = PageCache(catalog: catalog)
        let before = try #require(try catalog.layouts().first)
        let height = try catalog.page(request).contentHeight
        let offsets = Array(stride(from: 0.0, to: height, by: height / 9))
        for offset in offsets.prefix(3) {
            let page = try PageRequest(query: "width=414&cols=3&window=512&height=600&offset=\(offset)")
            expectSame(try cache.page(page), try catalog.page(page))
        }
        _ = try catalog.page(try PageRequest(query: "width=300&cols=2")) // another layout, stored after it
        #expect(try catalog.dropLayout(request.configuration))
        _ = try catalog.page(request) // stored again
        let after = try #require(try catalog.layouts().first { $0.configuration == before.configuration })
        #expect(after.id != before.id && after.generation == before.generation)
        for offset in offsets.dropFirst(3) {
            let page = try PageRequest(query: "width=414&cols=3&window=512&height=600&offset=\(offset)")
            let cached = try cache.page(page)
            #expect(cached != nil, "offset \(offset): from the cache")
            expectSame(cached, try catalog.page(page))
        }
    }

    /// The store's windows for a page cache (on PostgreSQL at most two statements outside a
    /// transaction) are the snapshot's windows with their items' keys, and nothing at another
    /// generation or for another layout id.
    @Test(arguments: Backend.allCases)
    func storedWindows_areTheSnapshotsWindowsAndKeys_atTheirGenerationAndLayoutOnly(_ backend: Backend) throws {
        let (library, catalog, _) = try Self.stored(backend, items: 1500, query: "width=414&cols=3&window=512")
        let stored = try #require(try catalog.layouts().first)
        let header = try #require(try Pager.readableHeader(stored))
        let generation = try catalog.generation()
        let range = 3...7
        let order = try LayoutConfiguration(key: stored.configuration).order
        let ids = { (bytes: [UInt8]) in try PageCache.cells(header, order: order, bytes) }
        let expected = try catalog.store.withSnapshot { snapshot in
            try snapshot.windows(layoutID: stored.id, range: range).map { ($0, try snapshot.keys(ids: try ids($0).ids)) }
        }
        let windows = try #require(try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id,
                                                                   generation: generation, range: range, cells: ids))
        #expect(windows.map(\.bytes) == expected.map(\.0))
        #expect(windows.map(\.keys) == expected.map(\.1))
        #expect(windows.allSatisfy { !$0.keys.isEmpty })
        for (generation, layoutID, configuration) in [(generation - 1, stored.id, stored.configuration), (generation + 1, stored.id, stored.configuration),
                                                      (generation, stored.id + 1, stored.configuration), (generation, stored.id, "waterfall width=1")] {
            #expect(try catalog.store.storedWindows(configuration: configuration, layoutID: layoutID, generation: generation,
                                                    range: range, cells: ids) == nil)
        }
        // Past the layout's last window: not all there, so nothing.
        let windowCount = try catalog.store.withSnapshot { try $0.allWindows(layoutID: stored.id).count }
        #expect(try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id, generation: generation,
                                                range: (windowCount - 2)...(windowCount + 1), cells: ids) == nil)
        // The catalog moves on between the windows and the keys (the ids are asked for in
        // between): PostgreSQL's second statement sees it and answers nothing; SQLite's snapshot
        // still answers the windows and keys of the generation it read.
        let other = try Catalog.open(at: library.catalogPath) // as another process would
        var moved = false
        let between = try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id, generation: generation,
                                                      range: range) { bytes in
            if !moved {
                moved = true
                _ = try other.importItems(PagerTests.importRows(5, from: 1500, year: 2032, seed: 4))
            }
            return try ids(bytes)
        }
        if backend == .postgres {
            #expect(between == nil)
        } else {
            #expect(between?.map(\.bytes) == expected.map(\.0))
            #expect(between?.map(\.keys) == expected.map(\.1))
        }
        #expect(try catalog.generation() == generation + 1)
        #expect(try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id, generation: generation,
                                                range: range, cells: ids) == nil, "the catalog moved on")
    }

    /// On PostgreSQL the store keeps the layout segments it read, so a page read again needs
    /// only its items' keys: the segments' rows, deleted behind its back, are not read again;
    /// windows of a segment it never read are; and every read still checks that the layout is
    /// the one stored, fresh, and reads the keys as they are (scanned items' files included).
    @Test func postgresKeepsTheSegmentsItRead_andStillChecksTheLayoutEachTime() throws {
        let library = try Library(.postgres)
        try library.write("a/one.jpg", try Library.fixture("baseline.jpg"))
        try library.write("b/two.png", try Library.fixture("gray-alpha.png"))
        _ = try library.scan()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(1500))
        _ = try catalog.page(try PageRequest(query: "width=414&cols=3&window=512"))
        let (stored, generation, ids, expected) = try Self.storedWindowsAndKeys(catalog)
        #expect(expected.count > 2 * LayoutSegment.windowsPerSegment, "three segments at least")
        #expect(expected.contains { $0.1.values.contains { $0.file != nil } }, "scanned items among them")
        let read = { (range: ClosedRange<Int>) in
            try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id, generation: generation,
                                            range: range, cells: ids)
        }
        // Segments are kept only while the store's listener is connected (its first call starts it).
        try waitFor { catalog.store.changeStamp() != nil }
        let first = 0...(LayoutSegment.windowsPerSegment + 3) // the first two segments
        let windows = try #require(try read(first))
        #expect(windows.map(\.bytes) == expected[first].map(\.0) && windows.map(\.keys) == expected[first].map(\.1))
        try TestPostgres.psql(OrderDataTests.database(library), "DELETE FROM layout_segments WHERE layout_id = \(stored.id)")
        let again = try #require(try read(3...(LayoutSegment.windowsPerSegment + 1)), "from the segments kept")
        #expect(again.map(\.bytes) == expected[3...(LayoutSegment.windowsPerSegment + 1)].map(\.0))
        #expect(again.map(\.keys) == expected[3...(LayoutSegment.windowsPerSegment + 1)].map(\.1))
        let third = 2 * LayoutSegment.windowsPerSegment
        #expect(try read(third...(third + 1)) == nil, "a segment never read is read, and its rows are gone")
        _ = try catalog.page(try PageRequest(query: "width=300&cols=2")) // another layout stays stored
        let configuration = try PageRequest(query: "width=414&cols=3&window=512").configuration
        #expect(try catalog.dropLayout(configuration))
        #expect(try read(first) == nil, "the layout is no longer stored")
        #expect(try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id, generation: generation,
                                                range: 3...4, cells: { _ in WindowCells(ids: [], positions: [], order: .date) }) == nil, "nor with no item to read")
        _ = try catalog.precompute(configuration) // stored again at the same generation, under another id
        #expect(try catalog.layouts().contains { $0.configuration == stored.configuration && $0.id != stored.id && $0.generation == generation })
        #expect(try read(first) == nil, "the id the segments were kept under is not the one stored")
    }

    /// Pages that miss at the same time on many threads share the keys' statements (at most
    /// as many run at once as cores): each read still gets its own windows and keys, as read alone.
    @Test func postgresReadsAtTheSameTime_shareStatements_andEachGetsItsOwnKeys() throws {
        let (library, catalog, _) = try Self.stored(.postgres, items: 2000, query: "width=414&cols=3&window=512")
        defer { withExtendedLifetime(library) {} }
        let (stored, generation, ids, expected) = try Self.storedWindowsAndKeys(catalog)
        #expect(expected.count > 20)
        let store = try #require(catalog.store as? PostgresStore)
        let before = store.keyBatches.readsAnswered.load(ordering: .relaxed)
        let threads = 8, rounds = 30
        let wrong = Mutex<[String]>([])
        let group = DispatchGroup()
        for thread in 0..<threads {
            KeyReadBatchesTests.spawn(group) {
                for round in 0..<rounds {
                    let first = (thread * 7 + round * 13) % (expected.count - 1)
                    do {
                        let read = try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id,
                                                                   generation: generation, range: first...(first + 1), cells: ids)
                        if read?.map(\.bytes) != expected[first...(first + 1)].map(\.0) || read?.map(\.keys) != expected[first...(first + 1)].map(\.1) {
                            wrong.withLock { $0.append("windows \(first) and \(first + 1)") }
                        }
                    } catch {
                        wrong.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        group.wait()
        #expect(wrong.withLock { $0 } == [])
        #expect(store.keyBatches.readsAnswered.load(ordering: .relaxed) - before == threads * rounds, "every read answered once")
    }

    /// A column whose type changed under the keys' prepared plan (SQLSTATE 0A000, as after a
    /// schema change): the read is answered all the same, on new connections, still prepared.
    @Test func postgresReadsTheKeysAgain_whenASchemaChangeOutdatesThePreparedPlan() throws {
        let (library, catalog, _) = try Self.stored(.postgres, items: 300, query: "width=414&cols=3&window=512")
        let stored = try #require(try catalog.layouts().first)
        let header = try #require(try Pager.readableHeader(stored))
        let generation = try catalog.generation()
        let order = try LayoutConfiguration(key: stored.configuration).order
        let read = {
            try catalog.store.storedWindows(configuration: stored.configuration, layoutID: stored.id, generation: generation,
                                            range: 1...2, cells: { try PageCache.cells(header, order: order, $0) })
        }
        let before = try #require(try read())
        // (The trigger that logs changes of content names the column: PostgreSQL alters no type under it.)
        try TestPostgres.psql(OrderDataTests.database(library),
                              "DROP TRIGGER items_change_log_content ON items; ALTER TABLE items ALTER COLUMN title TYPE varchar(1000)")
        for _ in 0..<3 {
            let after = try #require(try read(), "read again")
            #expect(after.map(\.bytes) == before.map(\.bytes) && after.map(\.keys) == before.map(\.keys))
        }
        #expect((catalog.store as? PostgresStore)?.prepares.load(ordering: .relaxed) == true, "a schema change is not a pooler")
    }

    /// The keys a page shows, by item id, in one read whatever the number of ids: each item's
    /// key, its file's identity (scanned) or its address and title (imported); ids asked twice
    /// or unknown change nothing.
    @Test(arguments: Backend.allCases)
    func itemKeysByID_areEachItemsKeyFileAndAddress(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("a/one.jpg", try Library.fixture("baseline.jpg"))
        try library.write("b/two.png", try Library.fixture("gray-alpha.png"))
        _ = try library.scan()
        let catalog = try library.catalog()
        var rows = PagerTests.importRows(700)
        for index in rows.indices where index % 3 != 0 {
            rows[index].url = "https://example.com/\(index)"
            rows[index].title = index % 3 == 1 ? "Café ☕ \(index)" : "pin \"\(index)\""
        }
        _ = try catalog.importItems(rows)
        let items = try catalog.items()
        #expect(items.count == 702)
        let asked = items.map(\.id) + [items[0].id, items[5].id, 9_999_999]
        let keys = try catalog.store.withSnapshot { try $0.keys(ids: asked) }
        #expect(keys.count == items.count)
        for item in items {
            let key = try #require(keys[item.id])
            #expect(key.key == item.key && key.url == item.url && key.title == item.title, "item \(item.id)")
            if item.isImported {
                #expect(key.file == nil)
            } else {
                var status = stat()
                #expect(stat(String(decoding: item.key, as: UTF8.self), &status) == 0)
                let mtime = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
                #expect(key.file == FileIdentity(device: Int64(status.st_dev), inode: Int64(status.st_ino), size: Int64(status.st_size),
                                                 mtimeNanoseconds: mtime))
            }
        }
        #expect(keys.values.filter { $0.title?.hasPrefix("Café") == true }.count == 233, "titles beyond ASCII read back")
        #expect(try catalog.store.withSnapshot { try $0.keys(ids: []) }.isEmpty)
    }
}

extension PageCacheTests {
    /// The same files scanned and the same rows imported into an SQLite catalog and a
    /// PostgreSQL one give the same stored pages, item for item: paths, file versions,
    /// addresses and titles (NULL, empty, with a tab, a backslash, a quote and non-ASCII text),
    /// however each store reads its items' keys (on PostgreSQL, packed into one blob a page).
    @Test func storedPagesAreTheSameOnBothBackends_pathsVersionsAddressesAndTitles() throws {
        let files = try Library(.sqlite)
        for (index, fixture) in ["baseline.jpg", "progressive.jpg", "gray-alpha.png", "exif6.webp"].enumerated() {
            try files.write("folder \(index)/Ünïcode \(index).\((fixture as NSString).pathExtension)", try Library.fixture(fixture))
        }
        let titles: [String?] = [nil, "", "tab\there", #"back\slash "quoted""#, "日本語のタイトル 🖼", "plain"]
        let rows = PagerTests.importRows(600).enumerated().map { index, row in
            var row = row
            row.url = index % 3 == 0 ? nil : "https://example.com/\(index)?q=ä"
            row.title = titles[index % titles.count]
            return row
        }
        let postgres = try Library(.postgres)
        let request = try PageRequest(query: "width=414&cols=3&window=512&height=900")
        var pages: [[Page.Item]] = []
        for catalog in [try files.catalog(), try postgres.catalog()] {
            let summary = try catalog.scan([files.root.path])
            #expect(summary.failed == 0 && summary.added == 4)
            _ = try catalog.importItems(rows)
            let height = try catalog.page(request).contentHeight // stores the layout
            let cache = PageCache(catalog: catalog)
            var items: [Page.Item] = []
            for offset in stride(from: 0.0, to: height, by: 700) {
                let page = try #require(try cache.page(try PageRequest(query: "width=414&cols=3&window=512&height=900&offset=\(offset)")))
                items += page.items
            }
            pages.append(items)
        }
        #expect(pages[0].count > 600, "every item, some twice")
        #expect(pages[0].filter { $0.version != nil }.count >= 4, "the scanned files have versions")
        #expect(Set(pages[0].compactMap(\.title)).count == titles.count - 1)
        let first = zip(pages[0], pages[1]).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(pages[0].count == pages[1].count && first == nil,
                "\(pages[0].count) and \(pages[1].count) items; the first that differs: \(String(describing: first))")
    }
}

extension PageCacheTests {
    /// The blob a PostgreSQL store reads its items' keys from: a record of each kind read back,
    /// and any blob cut short or with a bad length or flag an error, never a crash.
    @Test func packedKeys_readBack_andABrokenBlobIsAnError() throws {
        func int(_ value: some FixedWidthInteger) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        let scanned = int(Int64(7)) + int(Int32(3)) + Array("a/b".utf8) + [1] + int(Int64(2)) + int(Int64(3)) + int(Int64(4)) + int(Int64(5))
            + int(Int32(-1)) + int(Int32(-1))
        let imported = int(Int64(9)) + int(Int32(5)) + Array("pin-1".utf8) + [0] + int(Int32(4)) + Array("http".utf8)
            + int(Int32(0))
        let keys = try StoredWindowKeys.Packed.keys(Data(scanned + imported))
        #expect(keys == [7: ItemKey(key: Data("a/b".utf8), file: FileIdentity(device: 2, inode: 3, size: 4, mtimeNanoseconds: 5)),
                         9: ItemKey(key: Data("pin-1".utf8), file: nil, url: "http", title: "")])
        #expect(try StoredWindowKeys.Packed.keys(Data()).isEmpty)
        let whole = scanned + imported
        for cut in 1..<whole.count where cut != scanned.count {
            #expect(throws: StoreError.self, "cut at \(cut)") { try StoredWindowKeys.Packed.keys(Data(whole.prefix(cut))) }
        }
        var badFlag = imported
        badFlag[8 + 4 + 5] = 2
        #expect(throws: StoreError.self) { try StoredWindowKeys.Packed.keys(Data(badFlag)) }
        var badLength = imported
        badLength.replaceSubrange(8..<12, with: int(Int32(-2)))
        #expect(throws: StoreError.self) { try StoredWindowKeys.Packed.keys(Data(badLength)) }
    }
}

extension PageCacheTests {
    /// The keys a page cache keeps for a window, packed in one buffer, read back as they were;
    /// a key already there is kept (two windows may share an item).
    @Test func packedKeysInTheCache_readBackAsTheyWere() throws {
        let keys: [Int64: ItemKey] = [
            1: ItemKey(key: Data("/photos/Ünï/a.jpg".utf8), file: FileIdentity(device: 7, inode: -3, size: 1 << 40, mtimeNanoseconds: 1_700_000_000_123_456_789)),
            2: ItemKey(key: Data("pin-2".utf8), file: nil, url: "https://example.com/ä", title: "日本語 🖼"),
            3: ItemKey(key: Data(), file: nil, url: "", title: nil),
            Int64.max: ItemKey(key: Data([0, 255, 47]), file: nil, url: nil, title: "tab\tand\\"),
        ]
        let packed = PackedItemKeys(keys)
        var read: [Int64: ItemKey] = [:]
        try packed.add(to: &read)
        #expect(read == keys)
        var held: [Int64: ItemKey] = [2: ItemKey(key: Data("other".utf8), file: nil)]
        try packed.add(to: &held)
        #expect(held[2]?.key == Data("other".utf8) && held.count == 4)
        #expect(PackedItemKeys([:]).bytes.isEmpty)
        #expect(packed.bytes.count < keys.count * 100, "packed: \(packed.bytes.count) bytes")
    }
}
