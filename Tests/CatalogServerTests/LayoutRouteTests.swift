import CatalogKit
import Foundation
import GRDB
@testable import CatalogServer
@testable import CatalogStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// The layouts behind the routes: computed once for concurrent first requests, served while
/// they are stored, never stored on the request's thread, their use recorded, and a full disk
/// that leaves them unstored said once.
@Suite struct LayoutRouteTests {
    /// The pages of a configuration never seen are served as soon as its layout is computed,
    /// while it is stored: here the store is held back until the test lets it go, and four
    /// pages come meanwhile from the one layout in the server's memory. Once stored, the
    /// layout gives the same bytes.
    @Test(.timeLimit(.minutes(2))) func pagesOfANewConfigurationAreServedWhileItsLayoutIsStored() async throws {
        let served = try ServedCatalog(images: [], imported: 3000)
        let catalog = served.catalog
        let held = DispatchSemaphore(value: 0)
        let service = served.service { layout in
            held.wait() // on a read thread, until the test lets the store go
            return try catalog.storeLayout(layout)
        }
        let queries = ["width=500&cols=4", "width=500&cols=4&offset=2700", "width=500&cols=4&offset=60000", "width=500&cols=4&rect=0,900,120,300"]
        let key = try PageRequest(query: queries[0]).configuration.key
        try await served.test(service: service) { client in
            var texts: [String] = []
            for query in queries {
                texts.append(try await client.execute(uri: "/api/page?" + query, method: .get) { response in
                    #expect(response.status == .ok)
                    return response.text
                })
            }
            #expect(try catalog.layouts().isEmpty, "served before it is stored")
            #expect(service.beingStored.entry(key) != nil)
            #expect(service.layoutsComputed.load(ordering: .relaxed) == 1, "once for the four pages")
            held.signal()
            try await waitUntil("the layout stored once let go") { try catalog.layouts().count == 1 }
            try await waitUntil("the layout let go of once stored") { service.beingStored.count == 0 }
            for (query, text) in zip(queries, texts) {
                let stored = try catalog.page(try PageRequest(query: query))
                #expect(stored.source == .stored)
                #expect(PageText.json(stored) == text, "\(query)")
                #expect(try await client.execute(uri: "/api/page?" + query, method: .get) { $0.text } == text, "\(query), stored")
            }
            #expect(service.layoutsComputed.load(ordering: .relaxed) == 1)
        }
    }

    /// Layouts are computed and stored on threads of their own. With as many stores held back as
    /// may run at once, new configurations still get their first page, and a page of a stored
    /// layout is still read from the catalog: on the read threads, the held stores took every
    /// one of them, and the pages waited for the stores.
    @Test(.timeLimit(.minutes(3))) func pagesAreReadWhileAsManyLayoutsAsMayBeStoredAtOnceWait() async throws {
        let served = try ServedCatalog(images: [], imported: 3000)
        let catalog = served.catalog
        let stored = "width=500&cols=2&offset=2700"
        let expected = PageText.json(try catalog.page(try PageRequest(query: stored))) // computes and stores it
        let held = DispatchSemaphore(value: 0)
        let givenUp = Atomic<Int>(0)
        let service = served.service { layout in
            // Until the test lets the stores go; a minute at most, so that pages stuck behind
            // the stores fail the test instead of hanging it.
            if held.wait(timeout: .now() + 60) == .timedOut { givenUp.add(1, ordering: .relaxed) }
            return try catalog.storeLayout(layout)
        }
        let limit = catalog.readConcurrency
        try await served.test(service: service) { client in
            for columns in 3..<(3 + limit) {
                #expect(try await client.execute(uri: "/api/page?width=500&cols=\(columns)", method: .get) { $0.status } == .ok)
            }
            #expect(service.beingStored.count == limit && service.layoutsComputed.load(ordering: .relaxed) == limit)
            #expect(try await client.execute(uri: "/api/page?" + stored, method: .get) { $0.text } == expected,
                    "read from the catalog while \(limit) stores wait")
            #expect(try catalog.layouts().count == 1 && givenUp.load(ordering: .relaxed) == 0, "the held stores have not stored")
            for _ in 0..<limit { held.signal() }
            try await waitUntil("the held layouts stored") { try catalog.layouts().count == 1 + limit }
        }
    }

    /// What reads a stored layout (the sections list, snapping) after its store failed lays the
    /// layout out again on the layout threads, not on the read threads that pages of stored
    /// layouts need; with the layout stored, it reads it on the read threads.
    @Test func sectionsAfterAStoreThatFailedAreLaidOutOnTheLayoutThreads() async throws {
        let served = try ServedCatalog(images: [], imported: 3000)
        let catalog = served.catalog
        let query = "width=500&cols=3&sections=month"
        let configuration = try LayoutConfiguration(parameters: PageRequest.parameters(query: query))
        let expected = SectionText.json(try catalog.sections(configuration))
        _ = try catalog.dropLayouts()
        let service = served.service { _ in false } // every store of the service fails
        try await served.test(service: service) { client in
            let first = try await client.execute(uri: "/api/sections?" + query, method: .get) { $0.text }
            #expect(first == expected)
            #expect(service.layoutsComputed.load(ordering: .relaxed) == 1)
            #expect(service.layoutsComputedAgain.load(ordering: .relaxed) == 1, "the list laid out on the layout threads")
            // The list stored the layout as it laid it out: read on the read threads from now on.
            #expect(try catalog.isStoredFresh(configuration))
            let again = try await client.execute(uri: "/api/sections?" + query, method: .get) { $0.text }
            #expect(again == expected)
            #expect(service.layoutsComputedAgain.load(ordering: .relaxed) == 1)
        }
    }

    /// The routes never store a layout while it is computed (such a store holds the layout
    /// file's queue, which the server's read threads also go through, for the whole
    /// computation): every layout they compute goes to the service's own store once computed
    /// (a section list also stores the layout it lays out itself, once computed).
    /// A library caller's first page of a new configuration does store while computing.
    @Test func theRoutesNeverStoreALayoutWhileComputingIt() async throws {
        let served = try ServedCatalog(images: [], imported: 5_000) // more than a piece of 4,096
        let store = try #require(served.catalog.store as? SQLiteStore)
        let handed = Mutex<[String]>([])
        let service = served.service { layout in // stores nothing
            handed.withLock { $0.append(layout.configuration.key) }
            return false
        }
        try await served.test(service: service) { client in
            for uri in ["/api/page?width=375&cols=2", "/api/page?width=640&cols=4&style=grid", "/api/sections?width=414&cols=3"] {
                let status = try await client.execute(uri: uri, method: .get) { $0.status }
                #expect(status == .ok, "\(uri)")
            }
        }
        #expect(handed.withLock { $0.count } == 3, "every layout computed handed to the service's store")
        #expect(try served.catalog.layouts().count == 1, "only the section list's layout stored")
        #expect(store.streamedStoresBegun.load(ordering: .relaxed) == 0, "no store took a layout while it was computed")
        _ = try served.catalog.page(try PageRequest(query: "width=500&cols=3"))
        #expect(store.streamedStoresBegun.load(ordering: .relaxed) == 1, "a library caller's page stores while computing")
    }

    /// The layouts being stored are a service of the application: a graceful stop waits for them.
    @Test func theLayoutsBeingStoredAreAServiceOfTheApplication() throws {
        let served = try ServedCatalog(images: [], imported: 1)
        let service = served.service()
        let app = CatalogServer.application(catalog: served.catalog, options: .init(quiet: true, thumbnailCache: served.thumbnailCache),
                                            service: service)
        #expect(app.services.contains { ($0 as? LayoutsBeingStored) === service.beingStored })
    }

    /// Several requests for a layout not yet stored: one computation, every page right.
    @Test func concurrentFirstRequestsShareOneComputation() async throws {
        let served = try ServedCatalog(images: [], imported: 3000)
        _ = try served.catalog.page(try PageRequest(query: "width=500&cols=4")) // computes and stores the layout
        // Pages of the stored layout: the server's read the layout it stores again.
        let expected = try (0..<8).map { PageText.json(try served.catalog.page(try PageRequest(query: "width=500&cols=4&offset=\($0 * 900)"))) }
        _ = try served.catalog.dropLayouts()
        let service = served.service()
        try await served.test(service: service) { client in
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await client.execute(uri: "/api/page?width=500&cols=4&offset=\(index * 900)", method: .get) { (index, $0.text) }
                    }
                }
                for try await (index, text) in group { #expect(text == expected[index], "page \(index)") }
            }
        }
        try await waitUntil("the layout stored") { try served.catalog.layouts().count == 1 }
        #expect(service.layoutsComputed.load(ordering: .relaxed) == 1)
    }

    /// Layouts that a full disk leaves unstored are still served, each computed again; that went
    /// without a word (thumbnails said so): one line says it, however many pages meet it.
    @Test func layoutsAFullDiskLeavesUnstored_areSaidOnce() async throws {
        let served = try ServedCatalog(images: [], imported: 300)
        let kept = KeptLines()
        let log = Logger(label: "test") { _ in KeptLog(kept: kept) }
        let path = served.path
        let service = served.service(storeLayout: { _ in throw StoreError.full(path: path, reason: "no room") }, errorLog: log)
        try await served.test(service: service) { client in
            for width in [300, 301, 302] {
                try await client.execute(uri: "/api/page?width=\(width)", method: .get) { #expect($0.status == .ok) }
            }
        }
        try await waitUntil("three layouts computed") { service.layoutsComputed.load(ordering: .relaxed) == 3 }
        try await waitUntil("the line") { kept.lines.withLock { $0.contains { $0.hasPrefix("layouts are served but not stored while the disk is full") } } }
        #expect(kept.lines.withLock { $0.filter { $0.contains("not stored") } }.count == 1, "\(kept.lines.withLock { $0 })")
        #expect(try served.catalog.layouts().isEmpty)
    }

    /// The layouts' budget drops the least used layouts, but a page served from the server's
    /// memory, sections and snapping wrote no use down: a layout served all day looked unused
    /// since it was stored. Each now does, at most once a minute.
    @Test func pagesFromMemory_sectionsAndSnapping_recordTheLayoutsUse() async throws {
        let served = try ServedCatalog(images: [], imported: 300)
        let queries = ["/api/page?width=375&offset=0": "waterfall width=375.0 ", "/api/sections?width=375&sections=month": "sections=month",
                       "/api/snap?width=600&style=carousel&proposed=700": "carousel"]
        let layouts = try DatabaseQueue(path: served.path + ".layouts")
        for (uri, configuration) in queries.sorted(by: { $0.key < $1.key }) {
            let service = served.service() // a server started anew: its page cache empty
            try await served.test(service: service) { client in
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok, "\(uri)") } // stores the layout
            }
            try await waitUntil("\(configuration) stored") { try served.catalog.layouts().contains { $0.configuration.contains(configuration) } }
            try await layouts.write { db in try db.execute(sql: "UPDATE layouts SET last_used_at = '2020-01-01T00:00:00Z'") }
            try await served.test(service: service) { client in
                for _ in 0..<2 { try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok, "\(uri)") } }
            }
            try await waitUntil("\(uri) recorded as a use") {
                try served.catalog.layouts().first { $0.configuration.contains(configuration) }?.lastUsedAt ?? "" > "2020-01-01T00:00:00Z"
            }
        }
    }

    /// What fails every request is written down once per reason per 30 seconds.
    @Test func aReasonIsWrittenOnce_anotherOneToo() {
        let limit = RepeatLimit()
        #expect(limit.allows("the cache is full"))
        #expect(!limit.allows("the cache is full"))
        #expect(limit.allows("the disk is gone"))
        #expect(!limit.allows("the disk is gone") && !limit.allows("the cache is full"))
    }
}
