import CatalogKit
import Foundation
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
    /// A cache that keeps fewer windows than a scroll through the layout touches drops them and
    /// reads them again, and every page still comes from it, equal to the catalog's.
    @Test func pastItsWindowBudget_theCacheStillAnswersEveryPage() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(2000))
        let cache = PageCache(catalog: catalog, windowsPerLayout: 3)
        let stored = try PageRequest(query: "width=414&cols=3&window=512")
        _ = try catalog.page(stored) // computes and stores the layout
        let height = try catalog.page(stored).contentHeight
        var asked = 0
        for offset in stride(from: 0.0, to: height, by: 700) {
            let request = try PageRequest(query: "width=414&cols=3&window=512&offset=\(offset)&height=700")
            let cached = try cache.page(request)
            #expect(cached != nil, "offset \(offset): from the cache, not through the catalog")
            expectSame(cached, try catalog.page(request))
            asked += 1
        }
        #expect(asked > 20, "the scroll passes the budget many times over")
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
        #expect(items.filter { $0.title?.hasPrefix("Café") == true }.count == 233)
        #expect(try catalog.store.withSnapshot { try $0.keys(ids: []) }.isEmpty)
    }
}
