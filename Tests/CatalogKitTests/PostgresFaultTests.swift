import CatalogKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// PostgreSQL going away under a running server and a running scan, and coming back: each test
/// launches a server of its own (the shared one serves the other tests meanwhile) and stops
/// and starts it for real with `pg_ctl`.
@Suite struct PostgresFaultTests {
    /// A PostgreSQL server of the test's own, a catalog on it of `files` (path: fixture)
    /// scanned, and `catalog serve` on it, its stderr in a file.
    static func served(_ files: [String: String]) throws -> (TestPostgresServer, Library, ServeProcess, String) {
        let postgres = try TestPostgresServer.launch()
        let library = try Library(.postgres, on: postgres)
        for (path, fixture) in files { try library.write(path, Library.fixture(fixture)) }
        #expect(try BuiltTool.run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        let stderr = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-serve-\(UUID().uuidString)").path
        return (postgres, library, try ServeProcess(["--db", library.catalogPath, "--quiet"], stderrPath: stderr), stderr)
    }

    /// `catalog serve` on the database: 503 with the JSON error body while it is stopped,
    /// `/api/health` says so, the process stays up, and it serves again by itself once the
    /// database is back.
    @Test func aServerAnswers503WhileItsDatabaseIsStopped_andServesAgainByItself() async throws {
        let (postgres, library, serve, stderr) = try Self.served(["a.jpg": "baseline.jpg", "b/c.png": "rgb.png"])
        defer { serve.stop(); unlink(stderr) }

        let page = "api/page?width=375&cols=2&offset=0"
        let before = try await serve.get(page)
        #expect(before.status == 200)
        let health = try await serve.get("api/health")
        #expect(health.status == 200)
        #expect(String(decoding: health.body, as: UTF8.self) == #"{"status":"ok","generation":1}"#)

        try postgres.stop()
        let refused = try await serve.waitFor(page) { $0.status == 503 }
        let body = try #require(try JSONSerialization.jsonObject(with: refused.body) as? [String: Any])
        let error = try #require(body["error"] as? [String: Any])
        #expect(error["message"] as? String == "the catalog's database cannot be reached; try again")
        #expect(refused.headers["Retry-After"] == "2")
        let down = try await serve.get("api/health")
        #expect(down.status == 503)
        #expect(String(decoding: down.body, as: UTF8.self).contains(#""status":"unreachable""#))
        #expect(serve.process.isRunning, "nothing crashed")
        // The gallery's page is served still (it says itself that the catalog cannot be
        // reached): it was the JSON error body, in place of the page, on a reload.
        let gallery = try await serve.get("")
        #expect(gallery.status == 200 && gallery.headers["Content-Type"] == "text/html; charset=utf-8"
                && gallery.headers["Content-Security-Policy"] != nil, "\(gallery.status) \(gallery.headers)")

        try postgres.start()
        let after = try await serve.waitFor(page) { $0.status == 200 }
        #expect(after.body == before.body, "the same page, byte for byte")
        #expect(try await serve.get("api/health").status == 200)
        let log = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        #expect(log.contains("cannot reach the catalog's database at \(library.catalogPath)"), "\(log)")
        #expect(log.contains("the catalog's database answers again"), "\(log)")
    }

    /// An outage that only health checks see (a server behind a load balancer that sends it
    /// nothing else meanwhile) is logged as one that requests see: a line when the database
    /// goes, one when it is back. Health checks answered 503 and 200 and logged nothing.
    @Test func anOutageSeenOnlyByHealthChecksIsLogged() async throws {
        let (postgres, library, serve, stderr) = try Self.served(["a.jpg": "baseline.jpg"])
        defer { serve.stop(); unlink(stderr) }
        func log() -> String { (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "" }
        #expect(try await serve.get("api/page?width=375&cols=2&offset=0").status == 200)
        try postgres.stop()
        _ = try await serve.waitFor("api/health") { $0.status == 503 }
        try waitFor { log().contains("cannot reach the catalog's database at \(library.catalogPath)") }
        #expect(!log().contains("answers again"), "\(log())")
        try postgres.start()
        _ = try await serve.waitFor("api/health") { $0.status == 200 }
        try waitFor { log().contains("the catalog's database answers again") }
    }

    /// A login refused once the server has run (here its database dropped under it: SQLSTATE
    /// 3D000; a role's password changed is 28P01): 503 with `Retry-After`, and `/api/health` says
    /// the database cannot be reached, as when it is down, with the cause in the log. It was a
    /// 500 "internal error" on every route, health's too.
    @Test func aServerWhoseDatabaseRefusesItsLoginAnswers503() async throws {
        let (postgres, library, serve, stderr) = try Self.served(["a.jpg": "baseline.jpg"])
        defer { serve.stop(); unlink(stderr) }
        let page = "api/page?width=375&cols=2&offset=0"
        #expect(try await serve.get(page).status == 200)
        let database = try #require(URLComponents(string: library.catalogPath)?.path.dropFirst())
        try postgres.psql("postgres", "DROP DATABASE \(database) WITH (FORCE)")
        let refused = try await serve.waitFor(page) { $0.status != 200 }
        #expect(refused.status == 503 && refused.headers["Retry-After"] == "2", "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
        let health = try await serve.get("api/health")
        #expect(health.status == 503 && String(decoding: health.body, as: UTF8.self).contains(#""status":"unreachable""#))
        let log = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        #expect(log.contains("does not exist (SQLSTATE 3D000)"), "\(log)")
    }

    /// A database that stops answering without closing its connections (every process of it
    /// stopped, as on a frozen machine or behind a network that drops packets without a word):
    /// a request waiting on a connection it had, and a new one, get 503 within seconds, not
    /// when TCP gives up a quarter of an hour later; the server serves again once it answers.
    @Test func aDatabaseThatStopsAnswering_gets503WithinSeconds_andIsServedAgain() async throws {
        let postgres = try TestPostgresServer.launch()
        let library = try Library(.postgres, on: postgres)
        _ = try library.catalog().importItems(PagerTests.importRows(50))
        let stderr = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-serve-\(UUID().uuidString)").path
        defer { unlink(stderr) }
        let serve = try ServeProcess(["--db", library.catalogPath, "--quiet"], stderrPath: stderr)
        defer { serve.stop() }
        for offset in 0..<6 { #expect(try await serve.get("api/items?limit=2&offset=\(offset)").status == 200) }

        try postgres.signalEveryProcess(SIGSTOP)
        var frozen = true
        defer { if frozen { try? postgres.signalEveryProcess(SIGCONT) } }
        let start = ContinuousClock.now
        let itemsURL = serve.address + "api/items?limit=2&offset=20"
        async let waiting = ServeProcess.get(itemsURL, timeout: 300)
        let health = try await serve.get("api/health", timeout: 300)
        let items = try await waiting
        let took = ContinuousClock.now - start
        #expect(items.status == 503 && health.status == 503, "\(items.status) \(health.status)")
        #expect(String(decoding: health.body, as: UTF8.self).contains(#""status":"unreachable""#))
        // The heartbeat unanswered (10 s), then a new connection (10 s): the waiting reads are
        // given up on (22 s here), within the README's 30 s. A read given up on was tried again
        // on a new connection, which took 10 s more to time out (32 s).
        #expect(took < .seconds(30), "answered after \(took)")
        #expect(serve.process.isRunning, "nothing crashed")

        try postgres.signalEveryProcess(SIGCONT)
        frozen = false
        _ = try await serve.waitFor("api/items?limit=2") { $0.status == 200 }
        #expect(try await serve.get("api/health").status == 200)
    }

    /// A scan whose database stops under it exits non-zero saying why; the next scan finishes
    /// the work, with every file once and the ids of the items that were there kept. The scan
    /// is held at a known point by a trigger that waits for an advisory lock this test holds.
    @Test func aScanWhoseDatabaseStops_exitsNonZero_andTheNextScanFinishesTheWork() throws {
        let postgres = try TestPostgresServer.launch()
        let library = try Library(.postgres, on: postgres)
        let database = try #require(URLComponents(string: library.catalogPath)?.path.dropFirst()).description
        try library.write("a/one.jpg", Library.fixture("baseline.jpg"))
        try library.write("a/two.png", Library.fixture("rgb.png"))
        #expect(try BuiltTool.run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        let idsBefore = try library.items().mapValues(\.id)
        try library.write("b/three.jpg", Library.fixture("progressive.jpg"))
        try library.write("b/four.png", Library.fixture("interlaced.png"))

        let holder = try holdInsertsUnderB(postgres, database)
        let errors = Pipe()
        let scan = try BuiltTool.start(["scan", "--db", library.catalogPath, library.root.path], stderr: errors)
        try waitFor { try postgres.psql(database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted") == "1\n" }

        try postgres.stop()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        scan.waitUntilExit()
        #expect(scan.terminationStatus == 1)
        #expect(message.contains("cannot reach the catalog's database at \(library.catalogPath)"), "\(message)")
        holder.input.closeFile()
        holder.process.waitUntilExit()

        try postgres.start()
        try postgres.psql(database, "DROP TRIGGER hold_b ON items")
        let again = try BuiltTool.run(["scan", "--db", library.catalogPath, library.root.path])
        #expect(again.status == 0, "\(again.stderr)")
        let items = try library.items()
        #expect(items.keys.sorted() == ["a/one.jpg", "a/two.png", "b/four.png", "b/three.jpg"].map(library.path).sorted())
        for (path, id) in idsBefore { #expect(items[path]?.id == id, "\(path) keeps its id") }
        #expect(try postgres.psql(database, "SELECT count(*) FROM files") == "4\n", "every file once")
    }
}

/// A network that drops a connection's packets without a word (a partition, a firewall or NAT
/// that forgot it, the database's machine gone): the connection's keepalive probes and user
/// timeout end it, instead of the scan waiting for an answer for ever. Dropped for real, with
/// iptables on the loopback port of a server that listens on TCP.
@Suite(.serialized) struct PostgresNetworkTests {
    static let canDropPackets: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/iptables") else { return false }
        return (try? iptables(["-L", "INPUT", "-n"])) == 0
    }()

    @discardableResult
    static func iptables(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/iptables")
        process.arguments = ["-w"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(.enabled(if: canDropPackets, "dropping a port's packets takes root and iptables"))
    func aScanCutOffByTheNetwork_exitsNonZeroWithinSeconds_andTheNextScanFinishesTheWork() throws {
        let postgres = try TestPostgresServer.launch(tcp: true)
        let library = try Library(.postgres, on: postgres)
        let database = try #require(URLComponents(string: library.catalogPath)?.path.dropFirst()).description
        try library.write("a/one.jpg", Library.fixture("baseline.jpg"))
        #expect(try BuiltTool.run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        let idsBefore = try library.items().mapValues(\.id)
        try library.write("b/three.jpg", Library.fixture("progressive.jpg"))
        try library.write("b/four.png", Library.fixture("interlaced.png"))

        // The scan's batch waits inside its transaction (a lock another session holds) when the
        // network goes: its connection is silent, waiting for an answer, as a long statement's is.
        let holder = try holdInsertsUnderB(postgres, database) // on the Unix socket: not cut off
        let url = postgres.tcpURL(database: database) + "?keepalives_idle=1&keepalives_interval=1&keepalives_count=2&tcp_user_timeout=3000"
        let errors = Pipe()
        let scan = try BuiltTool.start(["scan", "--db", url, library.root.path], stderr: errors)
        defer { if scan.isRunning { scan.terminate() } }
        try waitFor { try postgres.psql(database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted") == "1\n" }

        let rules = [["INPUT", "-p", "tcp", "--dport", String(postgres.port), "-j", "DROP"],
                     ["INPUT", "-p", "tcp", "--sport", String(postgres.port), "-j", "DROP"]]
        for rule in rules { #expect(try Self.iptables(["-I"] + rule) == 0) }
        var dropping = true
        func letThrough() throws {
            guard dropping else { return }
            for rule in rules { try Self.iptables(["-D"] + rule) }
            dropping = false
        }
        defer { try? letThrough() }
        // Without the probes the scan would wait for ever: a few seconds of them and it is out.
        try waitFor { !scan.isRunning }
        if scan.isRunning {
            scan.terminate()
            scan.waitUntilExit()
            Issue.record("the scan still waited for an answer 30 s after the network went")
            return
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(scan.terminationStatus == 1)
        #expect(message.contains("cannot reach the catalog's database at \(url) (the server stopped answering, and the connection timed out"),
                "\(message)")

        // The server's ends of the scan's connections had the same probes: with the network
        // still cut, it ends those sessions, with their transaction and the root's lock (held by
        // a connection that waits in silence, which would otherwise keep it for the server's
        // two hours; the batch's own, once its statement has its lock and answers).
        holder.input.closeFile()
        holder.process.waitUntilExit()
        try waitFor { try postgres.psql(database, "SELECT count(*) FROM pg_stat_activity WHERE client_port > 0") == "0\n" }
        try letThrough()
        try postgres.psql(database, "DROP TRIGGER hold_b ON items")
        let again = try BuiltTool.run(["scan", "--db", url, library.root.path])
        #expect(again.status == 0, "\(again.stderr)")
        let items = try library.items()
        #expect(items.keys.sorted() == ["a/one.jpg", "b/four.png", "b/three.jpg"].map(library.path).sorted())
        for (path, id) in idsBefore { #expect(items[path]?.id == id, "\(path) keeps its id") }
        #expect(try postgres.psql(database, "SELECT count(*) FROM files") == "3\n", "every file once")
    }
}

/// `catalog serve` on a free port, its address read from its first line; stopped with SIGTERM.
final class ServeProcess {
    let process: Process
    let address: String

    init(_ arguments: [String], stderrPath: String) throws {
        let out = Pipe()
        process = Process()
        process.executableURL = BuiltTool.catalog
        process.arguments = ["serve", "--port", "0"] + arguments
        process.standardOutput = out
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        var lines = LineReader(out.fileHandleForReading)
        let first = lines.next() ?? ""
        let prefix = "listening on "
        guard first.hasPrefix(prefix) else { throw ServeFailed(description: "first line: \(first)") }
        address = String(first.dropFirst(prefix.count))
    }

    struct ServeFailed: Error, CustomStringConvertible {
        let description: String
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    func get(_ path: String, timeout: TimeInterval = 60) async throws -> (status: Int, body: Data, headers: [String: String]) {
        try await Self.get(address + path, timeout: timeout)
    }

    static func get(_ url: String, timeout: TimeInterval = 60) async throws -> (status: Int, body: Data, headers: [String: String]) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.timeoutInterval = timeout
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        return (http.statusCode, data, headers)
    }

    /// GETs `path` until `done` holds for the answer (30 seconds at most); returns that answer.
    func waitFor(_ path: String, until done: ((status: Int, body: Data, headers: [String: String])) -> Bool) async throws
        -> (status: Int, body: Data, headers: [String: String]) {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let answer = try await get(path)
            if done(answer) { return answer }
            guard ContinuousClock.now < deadline else {
                Issue.record("GET \(path) never answered as awaited; last: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                return answer
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Makes an insert of an item under a folder `b` wait, inside its transaction, for a lock that
/// a `psql` session holds until its input is closed (the session, returned): a scan is then
/// caught half-way, its batch sent and unanswered, for as long as a test needs.
func holdInsertsUnderB(_ postgres: TestPostgresServer, _ database: String) throws -> (process: Process, input: FileHandle) {
    try postgres.psql(database, """
        CREATE FUNCTION hold_b() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF convert_from(NEW.key, 'UTF8') LIKE '%/b/%' THEN PERFORM pg_advisory_xact_lock_shared(4242); END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER hold_b BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION hold_b();
        """)
    let holder = try postgres.session(database)
    holder.input.write(Data("SELECT pg_advisory_lock(4242);\n".utf8))
    try waitFor { try postgres.psql(database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted") == "1\n" }
    return holder
}

/// Polls `condition` until it holds (30 seconds at most: then the test fails).
func waitFor(_ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the awaited condition never held")
            return
        }
        usleep(20_000)
    }
}
