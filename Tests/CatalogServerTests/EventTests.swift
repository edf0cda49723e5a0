import CatalogKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import Testing

/// `/api/events` and `/api/changes` on the real `catalog serve`: two clients each get the
/// generation when another process imports and when the server's own watcher scans, keep-alive
/// comments, and a SIGTERM that ends the server while clients listen.
@Suite(.serialized) struct EventTests {
    /// A server-sent-events client over a plain socket: what arrived, read as it arrives.
    final class EventClient {
        private let connection: RawConnection

        init(address: String) throws {
            let port = try #require(Int(address.split(separator: ":").last!.filter(\.isNumber)))
            connection = try RawConnection(port: port)
            connection.send("GET /api/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
        }

        /// Reads until `predicate` holds for what arrived, for at most `limit`; whether it did.
        func waitFor(_ limit: Duration = .seconds(20), _ predicate: (String) -> Bool) -> Bool {
            connection.waitFor(limit, predicate)
        }

        private var received: String { connection.text }

        /// The generations of the `generation` events so far.
        var generations: [Int64] {
            received.components(separatedBy: "event: generation\n").dropFirst().compactMap { event in
                event.split(separator: "\n").first { $0.hasPrefix("data: ") }.flatMap { Int64($0.dropFirst(6)) }
            }
        }

        var text: String { received }

        /// Whether the server closed the stream.
        var isClosed: Bool { connection.isClosedByServer }
    }

    @Test func twoClientsSeeAnotherProcesssImport_andSIGTERMEndsTheStreams() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 20)
        let server = try ServeBinaryTests.Server(["--db", served.path, "--keep-alive-seconds", "1"])
        let start = try served.catalog.generation()
        let clients = try [EventClient(address: server.address), EventClient(address: server.address)]
        for client in clients {
            #expect(client.waitFor { $0.contains("event: generation") }, "\(client.text)")
            #expect(client.generations == [start])
            #expect(client.text.hasPrefix("HTTP/1.1 200") && client.text.lowercased().contains("content-type: text/event-stream"))
        }
        // Another process changes the catalog.
        let csv = served.folder.appendingPathComponent("more.csv")
        try "key,width,height\nnew-1,300,400\nnew-2,500,200\n".write(to: csv, atomically: true, encoding: .utf8)
        _ = try ServeBinaryTests.run(["import", "--db", served.path, csv.path])
        let now = try served.catalog.generation()
        #expect(now > start)
        for client in clients {
            #expect(client.waitFor { _ in client.generations.last == now }, "\(client.text)")
            #expect(client.waitFor { $0.contains(": keep-alive\n\n") }, "a keep-alive comment within a second or so")
        }
        // The change set since the generation the clients showed.
        let (status, body, _) = try await server.get("/api/changes?since=\(start)&sort=path")
        #expect(status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["from"] as? Int == Int(start) && object["to"] as? Int == Int(now) && object["reload"] as? Bool == false)
        #expect((object["inserts"] as? [[String: Any]])?.count == 2)
        #expect(try await server.get("/api/changes?since=x").status == 400)
        #expect(try await server.get("/api/changes").status == 400)
        #expect(server.stop() == 0, "SIGTERM ends the server although two clients listen")
        for client in clients { #expect(client.waitFor(.seconds(5)) { _ in client.isClosed }, "the stream ends: \(client.text.suffix(200))") }
    }

    /// A backup put back under a running server (`sqlite3 catalog.sqlite ".restore backup"`,
    /// which the README calls safe): the generation goes back. A stream open then hears the
    /// older generation (it heard nothing until the catalog passed the newer one again), a
    /// stream opened after hears only the generation the catalog is at (it heard the poller's
    /// old one too), and a page at a generation reached again, with other items, is not
    /// answered 304 for a tag taken before the backup was put back.
    @Test func aBackupPutBackUnderTheServerMovesTheStreamsBack_andItsTagsAreNew() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: [], imported: 20)
        let backup = served.folder.appendingPathComponent("backup.sqlite").path
        try DatabaseQueue(path: served.path).backup(to: DatabaseQueue(path: backup))
        let old = try served.catalog.generation()
        _ = try served.catalog.importItems((0..<30).map { ImportRow(line: $0 + 2, key: "a-\($0)", width: 300, height: 900) })
        let server = try ServeBinaryTests.Server(["--db", served.path])
        let page = "/api/page?width=375&cols=2&offset=0&height=2000"
        let (status, body, headers) = try await server.get(page)
        #expect(status == 200 && String(decoding: body, as: UTF8.self).contains("a-0"))
        let tag = try #require(headers["Etag"] as? String ?? headers["ETag"] as? String)
        let newer = try served.catalog.generation()
        let first = try EventClient(address: server.address)
        #expect(first.waitFor { _ in first.generations == [newer] }, "\(first.text)")

        try DatabaseQueue(path: backup).backup(to: DatabaseQueue(path: served.path)) // as sqlite3's .restore
        #expect(try served.catalog.generation() == old)
        #expect(first.waitFor { _ in first.generations == [newer, old] }, "\(first.text)")
        let second = try EventClient(address: server.address)
        #expect(second.waitFor { _ in second.generations == [old] }, "\(second.text)")

        // The generation of the tag again, with other items.
        _ = try served.catalog.importItems((0..<5).map { ImportRow(line: $0 + 2, key: "b-\($0)", width: 900, height: 300) })
        #expect(try served.catalog.generation() == newer)
        for client in [first, second] { #expect(client.waitFor { _ in client.generations.last == newer }, "\(client.text)") }
        #expect(first.generations == [newer, old, newer] && second.generations == [old, newer], "\(first.text)\n\(second.text)")
        var request = URLRequest(url: try #require(URL(string: server.address + page)))
        request.setValue(tag, forHTTPHeaderField: "If-None-Match")
        let (again, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "not 304: the tag was the items before the backup's")
        let text = String(decoding: again, as: UTF8.self)
        #expect(text.contains("b-0") && !text.contains("a-0"), "\(text.prefix(400))")
    }

    /// Event streams take at most half the connections: past that a stream is refused (503,
    /// Retry-After), and pages and health are still answered (512 streams locked every client
    /// out before).
    @Test func eventStreamsTakeAtMostHalfTheConnections() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 20)
        let server = try ServeBinaryTests.Server(["--db", served.path, "--max-connections", "6"])
        // Five at once: the places are taken under one lock, so three, not five, are streamed to.
        let clients = try (0..<5).map { _ in try EventClient(address: server.address) }
        for client in clients { #expect(client.waitFor { $0.contains("event: generation") || $0.contains("\r\n\r\n{") }, "\(client.text)") }
        #expect(clients.filter { $0.text.hasPrefix("HTTP/1.1 200") }.count == 3)
        let refused = try EventClient(address: server.address)
        #expect(refused.waitFor { $0.contains("\r\n\r\n{") }, "\(refused.text)")
        #expect(refused.text.hasPrefix("HTTP/1.1 503"), "\(refused.text)")
        #expect(refused.text.lowercased().contains("retry-after: 5"))
        #expect(refused.text.contains("too many event streams are open (3)"))
        #expect(try await server.get("/api/health").status == 200)
        #expect(try await server.get("/api/page?width=375").status == 200)
    }

    /// A client that closes its connection gives back its stream's place at once: the server
    /// learnt of it only when a write failed, a keep-alive or two later (about 30 s by default),
    /// and refused other clients meanwhile.
    @Test func aClientThatGoesGivesBackItsPlaceAtOnce() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 20)
        // One place for a stream, and no keep-alive written for a minute.
        let server = try ServeBinaryTests.Server(["--db", served.path, "--max-connections", "2", "--keep-alive-seconds", "60"])
        var first: EventClient? = try EventClient(address: server.address)
        #expect(first?.waitFor { $0.contains("event: generation") } == true)
        do {
            let refused = try EventClient(address: server.address)
            #expect(refused.waitFor { $0.contains("\r\n\r\n{") } && refused.text.hasPrefix("HTTP/1.1 503"), "\(refused.text)")
        }
        first = nil // its socket closed
        #expect(try Self.aStreamBegins(server, within: .seconds(20)), "the place came back long before the first keep-alive")
    }

    /// Whether a stream asked for again and again (each refused one closed) is begun within `limit`.
    static func aStreamBegins(_ server: ServeBinaryTests.Server, within limit: Duration) throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let client = try EventClient(address: server.address)
            _ = client.waitFor(.seconds(2)) { $0.contains("event: generation") || $0.contains("\r\n\r\n{") }
            if client.text.hasPrefix("HTTP/1.1 200") { return true }
        }
        return false
    }

    /// A client that resets its connection as its request for a stream arrives, before the
    /// stream began, gives back the place the request took: it was held for a minute, and a few
    /// such requests a minute refused every stream with 503 though none was open.
    @Test func aRequestResetBeforeItsStreamBegan_givesBackItsPlace() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 20)
        let server = try ServeBinaryTests.Server(["--db", served.path, "--max-connections", "4"]) // two places
        let port = try #require(Int(server.address.split(separator: ":").last!.filter(\.isNumber)))
        for _ in 0..<20 {
            let gone = try RawConnection(port: port)
            gone.send("GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
            gone.reset()
        }
        // Well within the minute a place was held for.
        #expect(try Self.aStreamBegins(server, within: .seconds(20)), "a place came back once the connections were gone")
    }

    /// HEAD has no body to stream, so it takes no place among the streams: many HEADs (which
    /// used to hold a place each for a minute) leave every place to the clients that stream.
    @Test func headRequestsTakeNoPlaceAmongTheStreams() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 20)
        let server = try ServeBinaryTests.Server(["--db", served.path, "--max-connections", "6"])
        let port = try #require(Int(server.address.split(separator: ":").last!.filter(\.isNumber)))
        for _ in 0..<10 {
            let head = try RawConnection(port: port)
            head.send("HEAD /api/events HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(head.waitFor { $0.contains("\r\n\r\n") }, "\(head.text)")
            #expect(head.text.hasPrefix("HTTP/1.1 200") && head.text.lowercased().contains("content-type: text/event-stream"), "\(head.text)")
            #expect(!head.text.lowercased().contains("content-length"), "an endless stream has no length: \(head.text)")
        }
        let clients = try (0..<3).map { _ in try EventClient(address: server.address) }
        for client in clients {
            #expect(client.waitFor { $0.contains("event: generation") }, "\(client.text)")
            #expect(client.text.hasPrefix("HTTP/1.1 200"), "\(client.text.prefix(200))")
        }
    }

    @Test func serveScanWatchesFolders_andItsChangesReachClients() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: [])
        let photos = served.folder.appendingPathComponent("photos")
        try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("baseline.jpg")).write(to: photos.appendingPathComponent("a.jpg"))
        let server = try ServeBinaryTests.Server(["--db", served.path, "--scan", photos.path])
        let client = try EventClient(address: server.address)
        // The first scan runs beside the server: its generation arrives as an event.
        #expect(client.waitFor { _ in (try? served.catalog.items().count) == 1 && client.generations.last == (try? served.catalog.generation()) },
                "\(client.text)")
        let seen = try #require(client.generations.last)
        try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("rgb.png")).write(to: photos.appendingPathComponent("b.png"))
        #expect(client.waitFor { _ in (client.generations.last ?? 0) > seen }, "\(client.text)")
        let (_, body, _) = try await server.get("/api/changes?since=\(seen)")
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let inserts = try #require(object["inserts"] as? [[String: Any]])
        let added = try #require(try served.catalog.items().first { PathText.display($0.key).hasSuffix("/b.png") })
        #expect(inserts.map { $0["id"] as? Int } == [Int(added.id)])
        // The rescan's line counts failed files too, as `scan --watch`'s does.
        try await waitUntil("the rescan's line") { server.errorOutput.contains("rescanned 1 folder: added 1,") }
        #expect(server.errorOutput.contains("rescanned 1 folder: added 1, updated 0, moved 0, removed 0, failed 0; generation "),
                "\(server.errorOutput)")
        #expect(server.stop() == 0)
    }

    /// The catalog file deleted under `serve --scan`: the watch stops, saying why, instead of
    /// waiting for ever for a database to come back (the server keeps the file it opened, so
    /// it never does), and the server answers that it must be restarted.
    @Test func aCatalogDeletedUnderServeScan_stopsTheWatch_andTheServerSaysToRestart() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: [])
        let photos = served.folder.appendingPathComponent("photos")
        try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("baseline.jpg")).write(to: photos.appendingPathComponent("a.jpg"))
        let server = try ServeBinaryTests.Server(["--db", served.path, "--scan", photos.path], quiet: false)
        try await waitUntil("the first scan") { server.errorOutput.contains("watching 1 folder") }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: served.path + suffix) }
        try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("rgb.png")).write(to: photos.appendingPathComponent("b.png"))
        try await waitUntil("the watch stopped") { server.errorOutput.contains("watching stopped") }
        #expect(server.errorOutput.contains("the file was removed since this process opened it"), "\(server.errorOutput)")
        #expect(!server.errorOutput.contains("Try again once it is back"), "\(server.errorOutput)")
        let (status, body, _) = try await server.get("/api/health")
        #expect(status == 503 && String(decoding: body, as: UTF8.self).contains("the server must be restarted"))
        #expect(server.stop() == 0)
    }
}
