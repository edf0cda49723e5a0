import CatalogKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The real `catalog serve` on a free port: the `listening on` line, pages equal to
/// `catalog page --json`, pages while a scan writes, and SIGTERM.
@Suite(.serialized) struct ServeBinaryTests {
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("catalog")
    }

    /// A running server and the address it printed (on 0.0.0.0: reached through 127.0.0.1).
    final class Server {
        let process = Process()
        let address: String
        let port: Int
        /// Where its stderr goes.
        let errorFile: URL

        /// `launcher`: a command that runs the binary (its path appended), as `prlimit ... --`.
        init(_ arguments: [String], quiet: Bool = true, environment: [String: String]? = nil, launcher: [String] = []) throws {
            let command = launcher + [ServeBinaryTests.binary.path, "serve", "--port", "0"] + (quiet ? ["--quiet"] : []) + arguments
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
            let out = Pipe()
            process.standardOutput = out
            errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-serve-\(UUID().uuidString).stderr")
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorFile)
            try process.run()
            // The first line, read as it arrives (a blocking read on the pipe).
            var line: [UInt8] = []
            while !line.contains(10) {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                line += data
            }
            let text = String(decoding: line.prefix { $0 != 10 }, as: UTF8.self)
            let printed = try #require(["listening on http://127.0.0.1:", "listening on http://0.0.0.0:"].first { text.hasPrefix($0) },
                                       "first line: \(text)")
            port = try #require(Int(text.dropFirst(printed.count).dropLast()))
            address = "http://127.0.0.1:\(port)/"
        }

        deinit {
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(at: errorFile)
        }

        /// What it wrote to stderr so far.
        var errorOutput: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

        func get(_ path: String) async throws -> (status: Int, body: Data, headers: [AnyHashable: Any]) {
            let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: address + path)))
            let http = try #require(response as? HTTPURLResponse)
            return (http.statusCode, data, http.allHeaderFields)
        }

        func stop() -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Runs the binary to its end: its exit status and what it wrote to stdout, or to stderr.
    static func runToEnd(_ arguments: [String], readingStderr: Bool) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = readingStderr ? FileHandle.nullDevice : pipe
        process.standardError = readingStderr ? pipe : FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    static func run(_ arguments: [String]) throws -> Data {
        try runToEnd(arguments, readingStderr: false).output
    }

    /// For a start that fails: the exit status and stderr.
    static func runFailing(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let (status, output) = try runToEnd(arguments, readingStderr: true)
        return (status, String(decoding: output, as: UTF8.self))
    }

    @Test func theBinaryServesWhatCatalogPagePrints_andStopsOnSIGTERM() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 400)
        let server = try Server(["--db", served.path])
        let (status, body, headers) = try await server.get("/api/page?width=414&cols=3&offset=1500&height=700")
        #expect(status == 200)
        try await waitUntil("the layout stored") { try served.catalog.layouts().count == 1 } // after the page is served
        let printed = try Self.run(["page", "--db", served.path, "--width", "414", "--cols", "3", "--offset", "1500", "--height", "700", "--json"])
        // The same page; the command also says how it had the layout (the server stored it first).
        #expect(String(decoding: body, as: UTF8.self).dropLast() + #","source":"stored"}"# + "\n" == String(decoding: printed, as: UTF8.self))
        #expect(headers["X-Catalog-Generation"] as? String == String(try served.catalog.generation()))
        #expect(try await server.get("/api/health").status == 200)
        #expect(server.stop() == 0, "a graceful stop")
        #expect(server.process.terminationReason == .exit)
    }

    @Test func aCatalogThatIsNotOneStopsTheServerAtStart() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: [])
        let bogus = served.folder.appendingPathComponent("notes.sqlite").path
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: bogus))
        let (status, message) = try Self.runFailing(["serve", "--db", bogus, "--port", "0"])
        #expect(status == 1)
        #expect(message.contains("is not a catalog"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: bogus)) == Data("not a database at all".utf8), "left untouched")
    }

    /// A port another server holds: exit 1, naming the address and what to do, not the socket call.
    @Test func aPortInUseIsNamedWithWhatToDo() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: [])
        let first = try Server(["--db", served.path])
        let (status, message) = try Self.runFailing(["serve", "--db", served.path, "--port", String(first.port)])
        #expect(status == 1)
        #expect(message == "Error: cannot listen on 127.0.0.1:\(first.port): the port is in use (another server?); "
                + "choose another --port, or --port 0 for any free one\n", "\(message)")
        #expect(first.stop() == 0, "the first server still ran")
    }

    /// Pages while `catalog scan` writes the same catalog from another process: every page is
    /// whole and from one generation, and generations never go back.
    /// Options that cannot work are usage errors naming them, before anything is said of the
    /// host: a host that does not resolve is not "reachable beyond this machine", a proxy is an
    /// address, and a token file missing on loopback is not mended by serving on loopback.
    @Test(arguments: [
        (["--host", "nosuchhost.invalid"], "--host \"nosuchhost.invalid\" cannot be resolved"),
        (["--trusted-proxy", "banana"], "--trusted-proxy must be an IP address"),
        (["--read-db", "/tmp/replica.sqlite"], "--read-db is a PostgreSQL replica's postgres:// URL"),
        (["--token-file", "/nonexistent/catalog.tokens"], "there is no token file at /nonexistent/catalog.tokens."),
        (["--token-file", "/tmp"], "the token file /tmp is a folder: give the path of a file, such as /tmp/catalog.tokens."),
    ])
    func optionsThatCannotWorkAreNamed(_ arguments: [String], _ message: String) throws {
        let served = try ServedCatalog(imported: 3)
        let (status, stderr) = try Self.runFailing(["serve", "--db", served.path, "--port", "0"] + arguments)
        #expect(status == 2)
        #expect(stderr.contains(message), "\(stderr)")
        #expect(!stderr.contains("reachable beyond this machine") && !stderr.contains("serve on loopback"), "\(stderr)")
        #expect(stderr.components(separatedBy: "Make a token").count <= 2, "said once: \(stderr)")
        if message.contains("is a folder") { #expect(!stderr.contains("Make a token"), "no token made makes a folder a file: \(stderr)") }
    }

    @Test func pagesDuringAScanNeverFailNorMixGenerations() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: [])
        let jpeg = try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("baseline.jpg"))
        let photos = served.folder.appendingPathComponent("photos")
        for index in 0..<3000 {
            let folder = photos.appendingPathComponent("\(index % 10)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var bytes = jpeg
            bytes.append(contentsOf: withUnsafeBytes(of: index) { Array($0) })
            try bytes.write(to: folder.appendingPathComponent("\(index).jpg"))
        }
        let server = try Server(["--db", served.path])
        let scan = Process()
        scan.executableURL = Self.binary
        scan.arguments = ["scan", "--db", served.path, "--batch-size", "50", photos.path]
        scan.standardOutput = FileHandle.nullDevice
        scan.standardError = FileHandle.nullDevice
        try scan.run()
        var generations: [Int] = []
        while scan.isRunning {
            let (status, body, _) = try await server.get("/api/page?width=375")
            #expect(status == 200)
            let page = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let items = try #require(page["items"] as? [[String: Any]])
            // Same 24x16 image everywhere: 117-point items, the first ones in index order.
            #expect(items.map { $0["index"] as? Int } == Array(0..<items.count).map { Optional($0) })
            let itemCount = try #require(page["itemCount"] as? Int)
            #expect(items.count == min(itemCount, 14), "a page shows the first items of the generation it read")
            generations.append(try #require(page["generation"] as? Int))
        }
        scan.waitUntilExit()
        #expect(scan.terminationStatus == 0)
        #expect(!generations.isEmpty, "pages were read while the scan ran")
        #expect(generations == generations.sorted())
        let (_, body, _) = try await server.get("/api/page?width=375")
        let last = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect((last["items"] as? [Any])?.count == 14)
        #expect(server.stop() == 0)
    }

    /// SIGTERM while slow clients download an original: every download ends whole, and the
    /// server exits 0 once they have. (Hummingbird closed a connection as it wrote its last
    /// response's end in a graceful shutdown, and bytes the client had not taken yet were lost,
    /// after a 200: one to three of six downloads in each run.) The clients are curl at 5 MB/s
    /// each, as a slow network would take them.
    @Test func aGracefulStopLetsSlowDownloadsFinishWhole() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (scripts/install-deps installs it)")
        let served = try ServedCatalog(images: [])
        var bytes = try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("baseline.jpg"))
        bytes.append(Data(repeating: 0x5A, count: 24 << 20)) // after the image: the scan reads the header
        try bytes.write(to: served.photo("large.jpg"))
        _ = try served.catalog.scan([served.folder.appendingPathComponent("photos").path])
        let id = try #require(try served.catalog.items().first?.id)
        let server = try Server(["--db", served.path])
        let downloads = (0..<6).map { served.folder.appendingPathComponent("download-\($0)") }
        let clients = try downloads.map { file in
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = ["-s", "--limit-rate", "5M", "-o", file.path, server.address + "api/items/\(id)/original"]
            try curl.run()
            return curl
        }
        // SIGTERM once every download is under way (a synchronous wait: Process.waitUntilExit
        // below spins in an async test on Linux).
        let deadline = ContinuousClock.now + .seconds(30)
        func underWay() -> Bool {
            downloads.allSatisfy { ((try? FileManager.default.attributesOfItem(atPath: $0.path)[.size]) as? Int ?? 0) > 1 << 20 }
        }
        while !underWay(), ContinuousClock.now < deadline, clients.allSatisfy(\.isRunning) { usleep(10_000) }
        try #require(underWay(), "every download under way")
        kill(server.process.processIdentifier, SIGTERM)
        for client in clients { client.waitUntilExit() }
        for (index, file) in downloads.enumerated() {
            let received = try Data(contentsOf: file)
            let whole = received == bytes // compared here: #expect would diff 24 MiB when they differ
            #expect(whole, "download \(index): \(received.count) of \(bytes.count) bytes, \(whole ? "the same" : "not the same")")
        }
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0)
    }

    /// A 500 says "internal error" to the client, and why on the server's stderr, once for a
    /// reason that repeats: a thumbnail cache that cannot be written (a path through a file)
    /// failed every thumbnail with nothing logged.
    /// A thumbnail cache that cannot be written (a file where its folder should be; a full disk
    /// is the same) costs the cache, not the thumbnails: each is sent, and the reason, with the
    /// system's words, is logged once however many requests meet it.
    @Test func aThumbnailCacheThatCannotBeWritten_stillSendsThumbnails_andSaysWhyOnce() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: ["baseline.jpg"])
        let blocker = served.folder.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let server = try Server(["--db", served.path, "--thumbnail-cache", blocker.path + "/thumbnails"])
        let id = try #require(try served.catalog.items().first?.id)
        for _ in 0..<3 {
            let response = try RawConnection.request(port: server.port, "/api/items/\(id)/thumbnail?size=64")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "image/jpeg")
            #expect((response.header("Content-Length").flatMap { Int($0) } ?? 0) > 100, "\(response.headers)")
        }
        #expect(server.stop() == 0)
        let lines = server.errorOutput.split(separator: "\n").filter { $0.contains("not cached") }
        #expect(lines.count == 1, "\(server.errorOutput)")
        #expect(lines.first?.contains("thumbnails are sent but not cached: cannot write the thumbnail cache at \(blocker.path)/thumbnails: "
            + "\(blocker.path): Not a directory") == true, "\(server.errorOutput)")
        #expect(!server.errorOutput.contains("answered 500"), "\(server.errorOutput)")
    }

    /// A file the server's user may not read is said to be that, not "gone since it was
    /// scanned" (404), which a new scan would not change: 403 for its original, and its
    /// thumbnail's 404 says this user may not read it rather than to scan again. The server runs
    /// as `nobody` when the tests run as root, whom no permission stops.
    @Test func aFileTheServerMayNotRead_isSaidSo_notGone() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: ["baseline.jpg", "rgb.png"])
        let items = try served.catalog.items()
        let locked = try #require(items.first { String(decoding: $0.key, as: UTF8.self).hasSuffix("rgb.png") })
        let open = try #require(items.first { String(decoding: $0.key, as: UTF8.self).hasSuffix("baseline.jpg") })
        try #require(chmod(served.photo("rgb.png").path, 0o600) == 0)
        try FileManager.default.createDirectory(atPath: served.thumbnailCache, withIntermediateDirectories: true)
        for path in [served.folder.path, served.thumbnailCache] { try #require(chmod(path, 0o777) == 0) }
        for name in try FileManager.default.contentsOfDirectory(atPath: served.folder.path) where name.hasPrefix("catalog.sqlite") {
            try #require(chmod(served.folder.appendingPathComponent(name).path, 0o666) == 0)
        }
        let server = try Server(["--db", served.path, "--thumbnail-cache", served.thumbnailCache, "--no-auth"],
                                launcher: getuid() == 0 ? ["/sbin/runuser", "-u", "nobody", "--"] : [])
        let original = try RawConnection.request(port: server.port, "/api/items/\(locked.id)/original")
        #expect(original.status == 403, "\(original.status) \(original.body)")
        #expect(original.body.contains("the file of item \(locked.id) cannot be opened by the server (Permission denied)"), "\(original.body)")
        let thumbnail = try RawConnection.request(port: server.port, "/api/items/\(locked.id)/thumbnail?size=64")
        #expect(thumbnail.status == 404)
        #expect(thumbnail.body.contains("(Permission denied)") && thumbnail.body.contains("this user may not read it"), "\(thumbnail.body)")
        #expect(try RawConnection.request(port: server.port, "/api/items/\(open.id)/original").status == 200, "the readable one is sent")
        _ = server.stop() // runuser passes SIGTERM on, and exits by it
    }

    /// The open-file limit: the soft one raised to the hard one at start (the server's process
    /// shows it), connections kept under it with a warning, and too few refused in words (at 14
    /// to 18 the event loops trapped; with idle connections holding every descriptor, the server
    /// answered nothing, not even /api/health).
    @Test func aServerRaisesItsOpenFileLimit_andKeepsItsConnectionsUnderIt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(images: ["baseline.jpg"])
        let raised = try Server(["--db", served.path], launcher: ["/usr/bin/prlimit", "--nofile=100:4096", "--"])
        let limits = try String(contentsOfFile: "/proc/\(raised.process.processIdentifier)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["4096", "4096"], "\(line)")
        #expect(try RawConnection.request(port: raised.port, "/api/health").status == 200)
        #expect(raised.stop() == 0)
        #expect(!raised.errorOutput.contains("lowered"), "\(raised.errorOutput)")

        let tight = try Server(["--db", served.path], launcher: ["/usr/bin/prlimit", "--nofile=100:100", "--"])
        #expect(try RawConnection.request(port: tight.port, "/api/health").status == 200)
        #expect(tight.stop() == 0)
        #expect(tight.errorOutput.contains("warning: --max-connections 512 lowered to 36: this process may open 100 files (ulimit -n)"),
                "\(tight.errorOutput)")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--nofile=40:40", "--", Self.binary.path, "serve", "--db", served.path, "--port", "0"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(said == "Error: the server needs at least 72 open files, and this process may open 40 (ulimit -n)\n", "\(said)")
    }
}
