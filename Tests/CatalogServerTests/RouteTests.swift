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
            // Its id percent-encoded is the same URI (it was a 400, "got %31").
            let encoded = String(listed[0].id).unicodeScalars.map { "%" + String($0.value, radix: 16, uppercase: true) }.joined()
            try await client.execute(uri: "/api/items/\(encoded)", method: .get) { response in
                #expect(response.status == .ok && response.text == ItemText.json(listed[0]), "\(encoded)")
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
            for path in ["/api/stats", "/api/layouts", "/api/health", "/api/openapi.yaml", "/api/items/1", "/api/items/1/original", "/api/session"] {
                try await client.execute(uri: path + "?sise=256", method: .get) { response in
                    #expect(response.status == .badRequest, "\(path)")
                    let refused = try response.error
                    #expect(refused.message == "\(path) takes no parameters")
                    #expect(refused.parameter == "sise", "it names the parameter, as the others do")
                }
                // Empty pieces are no parameter, as the routes that take some skip them.
                try await client.execute(uri: path + "?&", method: .get) { response in
                    #expect(response.status != .badRequest, "\(path)?&")
                }
            }
        }
    }
}
