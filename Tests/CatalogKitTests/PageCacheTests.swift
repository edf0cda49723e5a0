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
