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

/// Every route and its errors, through HummingbirdTesting's router client.
@Suite struct RouteTests {
    @Test func aPageIsWhatCatalogPageJsonPrints_withGenerationAndETag() async throws {
        let served = try ServedCatalog(imported: 500)
        let query = "width=414&cols=3&offset=2000&height=600&inset=4,6,8,10&sort=path"
        #expect(try served.catalog.page(try PageRequest(query: query)).source == .computed) // stores the layout the server reads
        let expected = PageText.json(try served.catalog.page(try PageRequest(query: query)))
        #expect(!expected.contains(#""source""#), "the server's body depends on the generation and the request alone, as its ETag")
        let generation = try served.catalog.generation()
        try await served.test { client in
            let tag = try await client.execute(uri: "/api/page?" + query, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text == expected)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.catalogGeneration] == String(generation))
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/api/page?" + query, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified)
                #expect(response.text.isEmpty)
            }
            try await client.execute(uri: "/api/page?width=414&cols=3", method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .ok, "another page, another tag")
            }
        }
    }

    /// A catalog deleted and made again at its path starts at generation 1 again: its ETags,
    /// made of the generation and the request alone, were the old catalog's, and a client that
    /// held one was told 304 for other items. When the catalog was made is part of them now.
    @Test func anotherCatalogAtTheSameGeneration_hasOtherETags() async throws {
        let old = try ServedCatalog(images: [], imported: 10)
        let made = try ServedCatalog(images: [], imported: 10)
        try #require(try old.catalog.generation() == made.catalog.generation())
        let store = try #require(made.catalog.store as? SQLiteStore)
        try store.write { db in try db.execute(sql: "UPDATE catalog SET created_at = '2031-01-02T03:04:05Z'") }
        #expect(try made.catalog.identity().hasPrefix("2031-01-02T03:04:05Z "))
        for uri in ["/api/page?width=375", "/api/items/3", "/api/items?limit=5", "/api/stats", "/api/changes?since=0"] {
            let tags = Mutex("")
            try await old.test { client in
                let tag = try await client.execute(uri: uri, method: .get) { try #require($0.headers[.eTag]) }
                tags.withLock { $0 = tag }
            }
            let tag = tags.withLock { $0 }
            try await made.test { client in
                try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                    #expect(response.status == .ok, "\(uri): another catalog's tag \(tag)")
                    #expect(response.headers[.eTag] != tag)
                }
            }
        }
    }

    /// Pages that differ have different tags, whatever parameter makes them differ: a client
    /// or a cache that keeps pages by their tag never gets another request's page.
    @Test func pagesThatDifferHaveDifferentETags() async throws {
        let served = try ServedCatalog(imported: 300)
        let pairs = [
            ("width=375&sections=month&offset=300", "width=375&sections=month&offset=300&pin-headers=true"),
            ("width=600&style=carousel&offset=100", "width=375&style=carousel&offset=100"),
            ("width=600&style=carousel&offset=100", "width=600&style=carousel&offset=100&min-scale=0.5"),
            ("width=600&style=carousel&offset=100", "width=600&style=carousel&offset=100&min-alpha=0.2"),
            ("width=600&style=carousel&offset=100", "width=600&style=carousel&offset=100&falloff=50"),
            ("width=375&sort=path&item=150", "width=375&sort=path&item=150&anchor-y=10"),
            ("width=375&rect=0,0,100,500", "width=375&rect=200,0,100,500"),
        ]
        try await served.test { client in
            for (one, other) in pairs {
                var tags: [String] = []
                var bodies: [String] = []
                for query in [one, other] {
                    try await client.execute(uri: "/api/page?" + query, method: .get) { response in
                        #expect(response.status == .ok, "\(query)")
                        tags.append(response.headers[.eTag] ?? "")
                        bodies.append(response.text)
                    }
                }
                #expect(bodies[0] != bodies[1], "\(one) and \(other) give other pages")
                #expect(tags[0] != tags[1], "\(one) and \(other)")
                try await client.execute(uri: "/api/page?" + other, method: .get, headers: [.ifNoneMatch: tags[0]]) { response in
                    #expect(response.status == .ok, "\(other) is not \(one)'s page")
                }
            }
        }
    }

    @Test(arguments: [("width=0", "width"), ("width=375&cols=0", "cols"), ("width=375&inset=1,2", "inset"), ("cols=2", "width"),
                      ("width=375&offset=-1", "offset"), ("width=375&height=5000000", "height"), ("width=375&style=mosaic", "style"),
                      ("width=375&colums=3", "colums"), ("width=375&width=400", "width"), ("width=375&item=x", "item")])
    func badParametersGive400NamingThem_withTheCommandLinesWording(_ query: String, _ parameter: String) async throws {
        let served = try ServedCatalog(images: [], imported: 10)
        let cliMessage: String? = {
            do { _ = try PageRequest(query: query); return nil } catch let error as LayoutParameterError { return error.description } catch { return nil }
        }()
        try await served.test { client in
            try await client.execute(uri: "/api/page?" + query, method: .get) { response in
                #expect(response.status == .badRequest)
                let error = try response.error
                #expect(error.parameter == parameter)
                #expect(error.message == cliMessage)
            }
        }
    }

    /// A strip a million times as tall as wide is laid out a thousand times as tall as wide; a
    /// configuration whose content would need more windows than its items may have is a 422
    /// saying so (before, one such request took gigabytes of memory and of disk), and the server
    /// serves on.
    @Test func anAbsurdStripIsLaidOutAThousandTimesAsTall_andAnEndlessLayoutIs422() async throws {
        let served = try ServedCatalog(images: [], imported: 0)
        _ = try served.catalog.importItems((0..<20).map { ImportRow(line: $0 + 2, key: "strip-\($0)", width: 1, height: 1_000_000) })
        try await served.test { client in
            try await client.execute(uri: "/api/page?width=375&cols=2&height=1000", method: .get) { response in
                #expect(response.status == .ok)
                let items = try #require(try response.object["items"] as? [[String: Any]])
                let frame = try #require(items.first?["frame"] as? [String: Double])
                #expect(frame["height"] == frame["width"].map { $0 * 1_000 })
            }
            // Each strip a billion points tall at this width: 20 of them need more than 65,536 windows of 2,048 points.
            try await client.execute(uri: "/api/page?width=1000000&cols=1", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                let message = try response.error.message
                #expect(message.hasPrefix("the layout would be longer than 65536 pagination windows of 2048 points"), "\(message)")
            }
            try await client.execute(uri: "/api/page?width=375&cols=2&offset=100000", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    /// A page that would hold more than 100,000 items is a 422, when its layout is computed
    /// and when it is read from the stored windows (which are not read whole for their keys).
    @Test func aPageOfMoreThanAHundredThousandItemsIs422() async throws {
        let served = try ServedCatalog(images: [], imported: 0)
        _ = try served.catalog.importItems(ServedCatalog.rows(100_500))
        let tooMany = "the page would hold more than 100000 items; a smaller height, or fewer and wider columns, make fewer"
        try await served.test { client in // computed
            try await client.execute(uri: "/api/page?width=0.001&inset=0&spacing=0", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                let message = try response.error.message
                #expect(message == tooMany)
            }
        }
        try await waitUntil("the layout stored") { try served.catalog.layouts().count == 1 }
        try await served.test { client in // stored: one window holds every item
            try await client.execute(uri: "/api/page?width=0.001&inset=0&spacing=0", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                let message = try response.error.message
                #expect(message == tooMany)
            }
            try await client.execute(uri: "/api/page?width=0.001&inset=0&spacing=0&height=0.01", method: .get) { response in
                #expect(response.status == .ok, "a smaller viewport of the same layout: its band, not its window")
                let items = try #require(try response.object["items"] as? [Any])
                #expect(items.count < 100)
            }
            // A rectangle is held to the items it meets, not to its whole band: one column's
            // half, a rectangle beside the content, and an empty one (all were refused).
            for (rect, count) in [("0,0,0.0002,1000000", 40_000...60_000), ("5,0,1,1000000", 0...0), ("0,0,0,1000000", 0...0)] {
                try await client.execute(uri: "/api/page?width=0.001&inset=0&spacing=0&rect=\(rect)", method: .get) { response in
                    #expect(response.status == .ok, "\(rect): \(response.text.prefix(200))")
                    let items = try #require(try response.object["items"] as? [[String: Any]])
                    #expect(count.contains(items.count), "\(rect): \(items.count) items")
                    #expect(items.allSatisfy { $0["column"] as? Int == 0 }, "the first column's only")
                }
            }
        }
    }

    @Test func scrollToAnItem_andAnUnknownItemIs404() async throws {
        let served = try ServedCatalog(images: [], imported: 300)
        let target = try #require(try served.catalog.items(order: .date, limit: 1, offset: 150).first)
        try await served.test { client in
            try await client.execute(uri: "/api/page?width=375&item=\(target.id)", method: .get) { response in
                #expect(response.status == .ok)
                let items = try #require(try response.object["items"] as? [[String: Any]])
                #expect(items.contains { ($0["id"] as? Int).map(Int64.init) == target.id })
            }
            try await client.execute(uri: "/api/page?width=375&item=999999", method: .get) { response in
                #expect(response.status == .notFound)
                let refused = try response.error
                #expect(refused.parameter == "item")
            }
        }
    }

    @Test func itemsAreListedWithTheTotal_andOneByID() async throws {
        let served = try ServedCatalog(imported: 250)
        let listed = try served.catalog.items(order: .path, limit: 3, offset: 5)
        try await served.test { client in
            try await client.execute(uri: "/api/items?offset=5&limit=3&sort=path", method: .get) { response in
                #expect(response.status == .ok)
                let object = try response.object
                #expect(object["total"] as? Int == 252)
                #expect((object["offset"] as? Int, object["limit"] as? Int) == (5, 3))
                let items = try #require(object["items"] as? [[String: Any]])
                #expect(items.compactMap { $0["id"] as? Int }.map(Int64.init) == listed.map(\.id))
            }
            try await client.execute(uri: "/api/items", method: .get) { response in
                let object = try response.object
                #expect((object["items"] as? [Any])?.count == 100, "the default limit")
            }
            for bad in ["limit=1001", "limit=-1", "offset=-3", "sort=size", "page=2"] {
                try await client.execute(uri: "/api/items?" + bad, method: .get) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                    let refused = try response.error
                    #expect(refused.parameter == String(bad.prefix { $0 != "=" }))
                }
            }
            try await client.execute(uri: "/api/items/\(listed[0].id)", method: .get) { response in
                #expect(response.text == ItemText.json(listed[0]))
                #expect(response.headers[.catalogGeneration] != nil)
            }
            try await client.execute(uri: "/api/items/424242", method: .get) { response in
                #expect(response.status == .notFound)
                let refused = try response.error
                #expect(refused.message.contains("424242"))
            }
            try await client.execute(uri: "/api/items/abc", method: .get) { response in
                #expect(response.status == .badRequest)
                let refused = try response.error
                #expect(refused.parameter == "id")
            }
        }
    }

    @Test func statsLayoutsHealthAndTheOpenAPIDocument() async throws {
        let served = try ServedCatalog(imported: 20)
        let catalog = served.catalog
        let generation = try served.catalog.generation()
        let stats = try served.catalog.stats()
        try await served.test { client in
            try await client.execute(uri: "/api/stats", method: .get) { response in
                #expect(response.text == StatsText.json(stats))
            }
            let before = try await client.execute(uri: "/api/layouts", method: .get) { try #require($0.headers[.eTag]) }
            _ = try await client.execute(uri: "/api/page?width=375", method: .get)
            // The page is served before its layout is stored.
            try await waitUntil("the layout stored") { try catalog.layouts().count == 1 }
            try await client.execute(uri: "/api/layouts", method: .get, headers: [.ifNoneMatch: before]) { response in
                #expect(response.status == .ok, "a layout was stored: same generation, another list")
                let layouts = try #require(try response.object["layouts"] as? [[String: Any]])
                #expect(layouts.count == 1)
                #expect(layouts.first?["fresh"] as? Bool == true)
                #expect(layouts.first?["items"] as? Int == 22)
            }
            try await client.execute(uri: "/api/health", method: .get) { response in
                #expect(response.status == .ok)
                let health = try response.object
                #expect(health["status"] as? String == "ok")
                #expect(health["generation"] as? Int == Int(generation))
            }
            try await client.execute(uri: "/api/openapi.yaml", method: .get) { response in
                let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("Sources/CatalogServer/Assets/openapi.yaml")
                let document = try String(contentsOf: repository, encoding: .utf8)
                #expect(response.text == document, "served as it is in the repository")
            }
        }
    }

    @Test func unknownRoutesWrongMethodsAndBodiesOnGET() async throws {
        let served = try ServedCatalog(images: [], imported: 1)
        try await served.test { client in
            try await client.execute(uri: "/api/nothing", method: .post) { response in
                #expect(response.status == .notFound, "another method on no route is still no route")
            }
            for query in ["offset=1e23", "rect=0,0,375,1e300", "rect=0,0,375,1e9", "offset=0x10"] {
                try await client.execute(uri: "/api/page?width=375&" + query, method: .get) { response in
                    #expect(response.status == .badRequest, "\(query)")
                }
            }
            try await client.execute(uri: "/api/items?limit=%205", method: .get) { response in
                #expect(response.status == .ok, "spaces around a number, as on /api/page")
            }
            try await client.execute(uri: "/api/nothing", method: .get) { response in
                #expect(response.status == .notFound)
                let refused = try response.error
                #expect(refused.message.contains("/api/nothing"))
            }
            for method in [HTTPRequest.Method.post, .put, .delete, .patch] {
                try await client.execute(uri: "/api/page?width=375", method: method) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow] == "GET, HEAD")
                    let refused = try response.error
                    #expect(!refused.message.isEmpty)
                }
            }
            try await client.execute(uri: "/api/health", method: .get, body: ByteBuffer(string: "hello")) { response in
                #expect(response.status == .badRequest)
                let refused = try response.error
                #expect(refused.message.contains("no body"))
            }
            try await client.execute(uri: "/api/page?width=375", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.text.isEmpty)
            }
            // A route that takes no parameters says so of one given, as the others refuse one
            // they do not know (these ignored it).
            for path in ["/api/stats", "/api/layouts", "/api/health", "/api/openapi.yaml", "/api/items/1", "/api/items/1/original"] {
                try await client.execute(uri: path + "?sise=256", method: .get) { response in
                    #expect(response.status == .badRequest, "\(path)")
                    let refused = try response.error
                    #expect(refused.message == "\(path) takes no parameters")
                    #expect(refused.parameter == "sise", "it names the parameter, as the others do")
                }
            }
        }
    }

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
