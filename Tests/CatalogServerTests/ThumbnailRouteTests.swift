import CatalogKit
import Foundation
@testable import CatalogServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /api/items/{id}/thumbnail`: validators, caching, errors, and one computation for many
/// requests at once.
@Suite struct ThumbnailRouteTests {
    /// Item ids and versions by file name, from a page of everything.
    static func pageItems(_ client: any TestClientProtocol) async throws -> [String: (id: Int, version: String?)] {
        try await client.execute(uri: "/api/page?width=375&cols=2&height=100000", method: .get) { response in
            #expect(response.status == .ok)
            var found: [String: (Int, String?)] = [:]
            for item in try #require(try response.object["items"] as? [[String: Any]]) {
                let name = ((item["path"] as? String ?? "") as NSString).lastPathComponent
                found[name] = (try #require(item["id"] as? Int), item["version"] as? String)
            }
            return found
        }
    }

    @Test func whenAThumbnailIsAsked_thenItIsCachedForGoodOnlyUnderItsVersion_andRevalidatesByETag() async throws {
        let served = try ServedCatalog(images: ["baseline.jpg", "rgb.png"], imported: 1)
        let cache = served.thumbnailCache
        try await served.test { client in
            let items = try await Self.pageItems(client)
            let (id, version) = try #require(items["baseline.jpg"])
            let v = try #require(version)
            #expect(v.count == 16 && v.allSatisfy(\.isHexDigit))
            #expect(items["pin-0"].map { $0.version == nil } == true, "an imported item has no file version")

            let etag = try await client.execute(uri: "/api/items/\(id)/thumbnail?size=64&v=\(v)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(response.headers[.eTag] == "\"\(id)-\(v)-64\"")
                let pixels = try Thumbnailer.decode(bytes: [UInt8](response.data))
                #expect((pixels.width, pixels.height) == (24, 16), "a 24 x 16 image is never enlarged")
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/api/items/\(id)/thumbnail?size=64", method: .get) { response in
                #expect(response.status == .ok && response.headers[.cacheControl] == "no-cache", "no version in the URL: revalidate")
            }
            try await client.execute(uri: "/api/items/\(id)/thumbnail?size=64", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified && response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/api/items/\(id)/thumbnail?size=64", method: .head) { response in
                #expect(response.status == .ok && response.body.readableBytes == 0 && response.headers[.eTag] == etag)
            }
            // `+64` (a `+` in a query is a space) is 64, as an offset of `+5` is 5.
            try await client.execute(uri: "/api/items/\(id)/thumbnail?size=+64", method: .get) { response in
                #expect(response.status == .ok && response.headers[.eTag] == etag)
            }
            #expect(FileManager.default.fileExists(atPath: cache + "/64"), "made into the configured cache")
        }
    }

    @Test func whenTheRequestOrTheFileIsWrong_thenTheStatusSaysWhich() async throws {
        let served = try ServedCatalog(images: ["baseline.jpg"], imported: 1)
        try Data(try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("progressive.jpg")).prefix(300)).write(to: served.photo("cut.jpg"))
        _ = try served.catalog.scan([served.folder.appendingPathComponent("photos").path])
        try await served.test { client in
            let items = try await Self.pageItems(client)
            let good = try #require(items["baseline.jpg"]?.id), cut = try #require(items["cut.jpg"]?.id)
            let imported = try #require(items["pin-0"]?.id)
            for (uri, status, parameter) in [
                ("/api/items/\(good)/thumbnail?size=300", 400, "size"), ("/api/items/\(good)/thumbnail?size=big", 400, "size"),
                ("/api/items/\(good)/thumbnail?v=xyz", 400, "v"), ("/api/items/\(good)/thumbnail?colour=red", 400, "colour"),
                ("/api/items/\(good)/thumbnail?size=64&size=128", 400, "size"), ("/api/items/abc/thumbnail", 400, "id"),
                ("/api/items/\(imported)/thumbnail", 404, nil), ("/api/items/987654/thumbnail", 404, "id"), ("/api/items/987654/original", 404, "id"),
            ] as [(String, Int, String?)] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status.code == status, "\(uri)")
                    let error = try response.error
                    #expect(error.parameter == parameter, "\(uri)")
                }
            }
            try await client.execute(uri: "/api/items/\(cut)/thumbnail", method: .get) { response in
                #expect(response.status.code == 422)
                let message = try response.error.message
                #expect(message.contains("truncated image") && message.hasPrefix("item \(cut): "), "\(message)")
            }
            try await client.execute(uri: "/api/items/\(good)/thumbnail", method: .post) { response in
                #expect(response.status == .methodNotAllowed)
            }
        }
    }

    /// Eight requests for a thumbnail nobody made yet: all get the same bytes, and the cache
    /// holds one finished entry (no temporary file left).
    @Test func whenManyRequestsAskForOneThumbnailAtOnce_thenAllGetIt() async throws {
        let served = try ServedCatalog(images: ["baseline.jpg"])
        let cache = served.thumbnailCache
        try await served.test { client in
            let id = try #require(try await Self.pageItems(client)["baseline.jpg"]?.id)
            let bodies = try await withThrowingTaskGroup(of: (Data, String?).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await client.execute(uri: "/api/items/\(id)/thumbnail?size=128", method: .get) { ($0.data, $0.headers[.eTag]) }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(bodies.map(\.0)).count == 1 && Set(bodies.map(\.1)).count == 1 && !bodies[0].0.isEmpty)
            let files = FileManager.default.enumerator(atPath: cache)?.allObjects as? [String] ?? []
            #expect(files.filter { $0.contains("-") }.count == 1 && !files.contains { $0.contains(".tmp-") }, "\(files)")
        }
    }

    /// The single flight itself: eight callers of one key while the work is held; it runs once
    /// and all eight get its value.
    @Test func whenEightCallersShareAKey_thenTheWorkRunsOnce() async throws {
        let flights = CatalogService.Flights<Int>()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let runs = Counter()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await flights.once("k") {
                        await runs.add()
                        for await _ in gate { break }
                        return 42
                    }
                }
            }
            // Wait (not sleep) until the seven others have joined the first one's work.
            while await flights.joined < 7 { await Task.yield() }
            open.yield()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: 42, count: 8))
        #expect(await runs.value == 1)
    }
}

actor Counter {
    private(set) var value = 0
    func add() { value += 1 }
}
