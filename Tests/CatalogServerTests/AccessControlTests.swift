import CatalogKit
import Foundation
import Testing

/// Access control and the limits of `catalog serve`, on the real binary listening on every
/// interface (`--host 0.0.0.0 --port 0`), reached through 127.0.0.1 over real HTTP.
@Suite(.serialized) struct AccessControlTests {
    typealias Server = ServeBinaryTests.Server

    /// Runs the binary to its end: exit status, stdout, stderr.
    static func catalog(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = ServeBinaryTests.binary
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    /// A catalog with two scanned images and a token made by `catalog token new`.
    static func catalogWithToken(label: String = "tests") throws -> (served: ServedCatalog, token: String) {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog()
        let made = try catalog(["token", "new", "--db", served.path, "--label", label])
        #expect(made.status == 0, "\(made.err)")
        let token = made.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("catalog_") && token.count >= 8 + 43, "256 bits, base64url: \(token.count) characters")
        return (served, token)
    }

    static func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    @Test func onANetworkAddressTheServerRefusesToStartWithoutTokens_andNoAuthWarns() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog()
        let refused = try Self.catalog(["serve", "--db", served.path, "--host", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 2)
        #expect(refused.err.contains("needs access control") && refused.err.contains("catalog token new"), "says how: \(refused.err)")
        #expect(refused.out.isEmpty, "it never listened")

        let missing = served.folder.appendingPathComponent("nowhere.tokens").path
        let named = try Self.catalog(["serve", "--db", served.path, "--port", "0", "--token-file", missing])
        #expect(named.status == 2, "a token file named but missing, even on loopback")
        #expect(named.err.contains("catalog token new --token-file \(missing)"))

        let open = try Server(["--db", served.path, "--host", "0.0.0.0", "--no-auth"])
        #expect(try RawConnection.request(port: open.port, "/api/items").status == 200)
        #expect(open.errorOutput.contains("warning: access control is off (--no-auth)"))
        #expect(open.stop() == 0)

        let loopback = try Server(["--db", served.path])
        #expect(try RawConnection.request(port: loopback.port, "/api/items").status == 200, "loopback stays open")
        #expect(!loopback.errorOutput.contains("warning"))
        #expect(loopback.stop() == 0)
    }

    /// `catalog token` refuses a PostgreSQL URL every other command refuses, and makes no file:
    /// it named the token file after part of such a URL (its host and database), which another
    /// server's could share, and took a password in it.
    @Test func tokenCommandsRefuseTheURLsTheOtherCommandsRefuse() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-config-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config) }
        for url in ["postgres://postgres@/photos?host=/tmp/pg&port=5433&connect_timeout=5", "postgres://me:secret@/photos?host=/tmp/pg"] {
            for command in [["new"], ["list"], ["revoke", "abcdef"]] {
                let refused = try Self.catalog(["token"] + command + ["--db", url], environment: ["XDG_CONFIG_HOME": config.path])
                #expect(refused.status == 1 && refused.out.isEmpty, "\(command) \(url): \(refused)")
                #expect(refused.err.contains("unknown URL parameter \"connect_timeout\"") || refused.err.contains("the URL holds a password"), "\(refused.err)")
                #expect(!refused.err.contains("secret"))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: config.path), "no token file, nor its folder")
    }

    @Test func tokensLetProgramsIn_andARevokedTokenIsRefusedWithoutARestart() throws {
        let (served, token) = try Self.catalogWithToken()
        let tokenFile = served.folder.appendingPathComponent("catalog.tokens").path
        let attributes = try FileManager.default.attributesOfItem(atPath: tokenFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = try Self.catalog(["token", "new", "--db", served.path, "--label", "phone"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try Server(["--db", served.path, "--host", "0.0.0.0", "--keep-alive-seconds", "1"], quiet: false)

        for path in ["/api/items", "/api/page?width=375", "/api/items/1/original", "/api/items/1/thumbnail?size=256", "/api/stats",
                     "/api/openapi.yaml", "/api/session", "/api/no-such-route"] {
            let refused = try RawConnection.request(port: server.port, path)
            #expect(refused.status == 401, "\(path)")
            #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(path)")
            #expect(refused.body.hasPrefix(#"{"error":{"message":"#), "the JSON error body: \(refused.body)" as Comment)
        }
        let wrong = try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer("catalog_" + String(repeating: "A", count: 43)))
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Authorization": "Basic dXNlcjpwYXNz"]).status == 401)

        #expect(try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer(token)).status == 200)
        #expect(try RawConnection.request(port: server.port, "/api/items/1/original", headers: Self.bearer(second)).status == 200)
        for open in ["/api/health", "/", "/gallery/any/main.js"] {
            #expect(try RawConnection.request(port: server.port, open).status == 200, "\(open) needs no token")
        }

        let stream = try RawConnection(port: server.port)
        stream.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n")
        #expect(stream.waitFor { $0.contains("event: generation") }, "the stream opens with the token")

        let fingerprint = try #require(try Self.catalog(["token", "list", "--db", served.path]).out
            .split(separator: "\n").first { $0.contains("tests") }?.split(separator: " ").first)
        let revoked = try Self.catalog(["token", "revoke", "--db", served.path, String(fingerprint)])
        #expect(revoked.status == 0 && revoked.out.contains("revoked \(fingerprint)"))
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer(token)).status == 401, "the file was read again")
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer(second)).status == 200, "the other token stays")
        #expect(stream.waitFor(.seconds(10)) { $0.hasSuffix("\r\n0\r\n\r\n") }, "the open event stream ends too: \(stream.text.suffix(60))")
        // Its connection is an ordinary one again: a request followed by the client closing its
        // side is answered (the stream's close-with-the-client stayed and dropped it unanswered).
        let ended = stream.text.count
        stream.send("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(second)\r\n\r\n")
        stream.closeWriting()
        #expect(stream.waitFor(.seconds(10)) { $0.dropFirst(ended).contains("\"status\":\"ok\"") }, "\(stream.text.suffix(200))")

        // `catalog token revoke` given a folder says so, as new and list do.
        let folder = try Self.catalog(["token", "revoke", "--db", served.path, "--token-file", served.folder.path, "x"])
        #expect(folder.status != 0 && folder.err.contains("the token file \(served.folder.path) is a folder"), "\(folder.err)")

        #expect(server.stop() == 0)
        let log = server.errorOutput
        #expect(log.contains("GET /api/items 200"), "the access log ran: \(log.suffix(300))")
        #expect(!log.contains(token) && !log.contains(second), "no token in the server's output")
        #expect(!log.lowercased().contains("authorization"))
    }

    @Test func theGallerySignsInWithASessionCookie_thatIsSignedHttpOnlyAndStrict() throws {
        let (served, token) = try Self.catalogWithToken()
        let server = try Server(["--db", served.path, "--host", "0.0.0.0", "--session-days", "7"])
        let origin = "http://127.0.0.1:\(server.port)"
        let body = #"{"token":"\#(token)"}"#
        let json = ["Content-Type": "application/json"]

        let foreign = try RawConnection.request(port: server.port, "/api/session", method: "POST", headers: json.merging(["Origin": "https://evil.example"]) { $1 }, body: body)
        #expect(foreign.status == 403, "a sign-in from another site's page")
        #expect(foreign.header("Set-Cookie") == nil)
        #expect(try RawConnection.request(port: server.port, "/api/session", method: "POST", headers: json, body: body).status == 403, "no Origin")

        let signedIn = try RawConnection.request(port: server.port, "/api/session", method: "POST", headers: json.merging(["Origin": origin]) { $1 }, body: body)
        #expect(signedIn.status == 200)
        let setCookie = try #require(signedIn.header("Set-Cookie"))
        let attributes = Set(setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(attributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=\(7 * 86_400)"]), "\(setCookie)")
        #expect(!attributes.contains("Secure"), "plain http: a Secure cookie would never come back")
        #expect(!setCookie.contains(token), "the cookie is not the token")
        let cookie = String(setCookie.split(separator: ";")[0])

        #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Cookie": "theme=dark; " + cookie]).status == 200)
        #expect(try RawConnection.request(port: server.port, "/api/session", headers: ["Cookie": cookie]).body.contains(#""signedIn":true"#))
        var forged = Array(cookie)
        forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Cookie": String(forged)]).status == 401, "a changed signature")
        // The same signature written otherwise (the last character's unused bits flipped, or
        // padded): one cookie string per session, as this server writes it (these passed).
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let lastCharacter = try #require(cookie.last)
        let last = try #require(alphabet.firstIndex(of: lastCharacter))
        for respelled in [String(cookie.dropLast()) + String(alphabet[last ^ 1]), cookie + "="] {
            #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Cookie": respelled]).status == 401, "\(respelled)")
        }
        // Two cookies of its name (another path's): the valid one signs in, wherever it stands.
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Cookie": "catalog_session=v1.x.1.y; " + cookie]).status == 200)
        let longer = cookie.replacingOccurrences(of: #"\.(\d+)\."#, with: ".9999999999.", options: .regularExpression)
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Cookie": longer]).status == 401, "a longer expiry, unsigned")

        let signedOut = try RawConnection.request(port: server.port, "/api/session", method: "DELETE", headers: ["Cookie": cookie, "Origin": origin])
        #expect(signedOut.status == 200)
        #expect(signedOut.header("Set-Cookie")?.contains("Max-Age=0") == true, "the browser drops the cookie")
        #expect(server.stop() == 0)

        // Behind an https address, the cookie is Secure; a sign-in from that address is the server's own.
        let public_ = try Server(["--db", served.path, "--host", "0.0.0.0", "--public-url", "https://photos.example.com/"])
        let secure = try RawConnection.request(port: public_.port, "/api/session", method: "POST",
                                               headers: json.merging(["Origin": "https://photos.example.com"]) { $1 }, body: body)
        #expect(secure.status == 200)
        #expect(secure.header("Set-Cookie")?.contains("; Secure") == true)
        #expect(public_.stop() == 0)
    }

    @Test func repeatedFailuresFromOneAddressGet429_andATokenWorksAgainOnceTheWindowHasPassed() throws {
        let (served, token) = try Self.catalogWithToken()
        let server = try Server(["--db", served.path, "--host", "0.0.0.0", "--failures-per-minute", "5", "--failure-window-seconds", "10"])
        let wrong = Self.bearer("catalog_" + String(repeating: "x", count: 43))
        for attempt in 1...5 {
            #expect(try RawConnection.request(port: server.port, "/api/items", headers: wrong).status == 401, "attempt \(attempt)")
        }
        let blocked = try RawConnection.request(port: server.port, "/api/items", headers: wrong)
        #expect(blocked.status == 429)
        let retryAfter = try #require(blocked.header("Retry-After").flatMap { Int($0) })
        #expect((1...10).contains(retryAfter))
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer(token)).status == 429, "even a right token")
        #expect(try RawConnection.request(port: server.port, "/api/health").status == 200, "health stays open")

        let deadline = ContinuousClock.now + .seconds(60)
        var status = 0
        while ContinuousClock.now < deadline {
            status = try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer(token)).status
            if status != 429 { break }
            Thread.sleep(forTimeInterval: 0.2) // polling for the window to pass
        }
        #expect(status == 200, "a success once the window has passed")
        #expect(server.stop() == 0)
    }

    @Test func originalsThumbnailsAndTheGalleryCarryTheirSafetyHeaders() throws {
        let (served, token) = try Self.catalogWithToken()
        try FileManager.default.moveItem(at: served.photo("baseline.jpg"), to: served.photo("we\"ird é;.jpg"))
        _ = try served.catalog.scan([served.folder.appendingPathComponent("photos").path])
        let csv = served.folder.appendingPathComponent("pins.csv")
        try "key,width,height,url\npin,300,400,https://i.pinimg.com/736x/a.jpg\n".write(to: csv, atomically: true, encoding: .utf8)
        #expect(try Self.catalog(["import", "--db", served.path, csv.path]).status == 0)
        let id = try #require(try served.catalog.list(ListRequest()).items.first { String(decoding: $0.key, as: UTF8.self).hasSuffix(";.jpg") }?.id)
        let server = try Server(["--db", served.path, "--host", "0.0.0.0", "--cors-origin", "https://app.example.com"])

        let original = try RawConnection.request(port: server.port, "/api/items/\(id)/original", headers: Self.bearer(token))
        #expect(original.status == 200)
        #expect(original.header("Content-Type") == "image/jpeg")
        #expect(original.header("X-Content-Type-Options") == "nosniff")
        #expect(original.header("Content-Disposition") == #"inline; filename="we_ird _;.jpg"; filename*=UTF-8''we%22ird%20%C3%A9%3B.jpg"#)
        let thumbnail = try RawConnection.request(port: server.port, "/api/items/\(id)/thumbnail?size=256", headers: Self.bearer(token))
        #expect(thumbnail.status == 200)
        #expect(thumbnail.header("Content-Type") == "image/jpeg")
        #expect(thumbnail.header("X-Content-Type-Options") == "nosniff")
        #expect(thumbnail.header("Content-Disposition")?.hasPrefix(#"inline; filename="\#(id)-256.jpg""#) == true)
        let listed = try RawConnection.request(port: server.port, "/api/page?width=375&height=100000", headers: Self.bearer(token))
        let version = try #require(listed.body.components(separatedBy: #""id":\#(id),"#).dropFirst().first?
            .components(separatedBy: #""version":""#).dropFirst().first?.prefix { $0 != "\"" })
        let immutable = try RawConnection.request(port: server.port, "/api/items/\(id)/thumbnail?size=256&v=\(version)", headers: Self.bearer(token))
        #expect(immutable.header("Cache-Control") == "private, max-age=31536000, immutable", "no shared cache keeps a private thumbnail")

        let stranger = try RawConnection.request(port: server.port, "/")
        #expect(stranger.header("Content-Security-Policy")?.contains("img-src 'self';") == true,
                "the sign-in page names no image origin: \(stranger.header("Content-Security-Policy") ?? "")" as Comment)
        let page = try RawConnection.request(port: server.port, "/", headers: Self.bearer(token))
        let policy = try #require(page.header("Content-Security-Policy"))
        let directives = Dictionary(uniqueKeysWithValues: policy.split(separator: ";").map { directive -> (String, String) in
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        })
        #expect(directives["default-src"] == "'none'")
        #expect(directives["script-src"] == "'self'")
        #expect(directives["style-src"] == "'self'")
        #expect(directives["img-src"] == "'self' https://i.pinimg.com", "the server and the imported items' origin")
        #expect(directives["frame-ancestors"] == "'none'")
        #expect(page.header("Referrer-Policy") == "no-referrer")
        #expect(page.header("X-Content-Type-Options") == "nosniff")

        // Cross-origin: only the origin named by --cors-origin.
        let allowed = try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer(token).merging(["Origin": "https://app.example.com"]) { $1 })
        #expect(allowed.header("Access-Control-Allow-Origin") == "https://app.example.com")
        let other = try RawConnection.request(port: server.port, "/api/items", headers: Self.bearer(token).merging(["Origin": "https://evil.example"]) { $1 })
        #expect(other.status == 200 && other.header("Access-Control-Allow-Origin") == nil)
        let preflight = try RawConnection.request(port: server.port, "/api/items", method: "OPTIONS",
                                                  headers: ["Origin": "https://app.example.com", "Access-Control-Request-Method": "GET",
                                                            "Access-Control-Request-Headers": "authorization"])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
        #expect(server.stop() == 0)

        let plain = try Server(["--db", served.path, "--host", "0.0.0.0"])
        let noCORS = try RawConnection.request(port: plain.port, "/api/items", headers: Self.bearer(token).merging(["Origin": "https://app.example.com"]) { $1 })
        #expect(noCORS.header("Access-Control-Allow-Origin") == nil, "no cross-origin access unless asked for")
        #expect(noCORS.header("Cross-Origin-Resource-Policy") == "same-origin", "nor embedding by another site's page")
        #expect(plain.stop() == 0)
    }

    @Test func oversizedHeadsGet431_slowClientsGet408_andNeitherStopsANormalClient() throws {
        let (served, token) = try Self.catalogWithToken()
        let server = try Server(["--db", served.path, "--host", "0.0.0.0", "--request-timeout", "2", "--max-connections", "60"])
        let port = server.port

        let huge = try RawConnection.request(port: port, "/api/items", headers: Self.bearer(token).merging(["X-Padding": String(repeating: "a", count: 40_000)]) { $1 })
        #expect(huge.status == 431)
        #expect(huge.body.contains("headers are longer than 32768 bytes"))
        let longLine = try RawConnection.request(port: port, "/api/items?" + String(repeating: "q", count: 9000), headers: Self.bearer(token))
        #expect(longLine.status == 431)
        // Many short fields, well within the bytes: a 431 that says so (the HTTP decoder closed with a bare 400).
        var fields = Self.bearer(token)
        for index in 0..<998 { fields["X-\(index)"] = "1" } // with Host, Connection and Authorization, 1,001 fields
        let many = try RawConnection.request(port: port, "/api/items", headers: fields)
        #expect(many.status == 431 && many.body.contains("more than 1000 header fields"), "\(many.status) \(many.body)")
        fields["X-997"] = nil // 1,000
        #expect(try RawConnection.request(port: port, "/api/items", headers: fields).status == 200)

        // One client opens 200 idle connections, past the limit of 60; another sends its head a byte at a time.
        var idle: [RawConnection] = []
        for _ in 0..<200 { idle.append(try RawConnection(port: port)) }
        let slow = try RawConnection(port: port)
        let head = Array("GET /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "s", count: 200))
        let trickle = Thread {
            for character in head {
                guard slow.send(String(character)) else { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        trickle.start()

        let started = ContinuousClock.now
        for _ in 0..<5 {
            let page = try RawConnection.request(port: port, "/api/page?width=375", headers: Self.bearer(token))
            #expect(page.status == 200, "the normal client is served")
        }
        #expect(ContinuousClock.now - started < .seconds(10), "and without waiting for the slow or idle ones") // the slow head takes 11.5 s

        #expect(slow.waitFor(.seconds(10)) { $0.hasPrefix("HTTP/1.1 408") }, "the slow client is cut off: \(slow.text.prefix(80))")
        let closed = idle.filter(\.isClosedByServer).count
        #expect(closed >= 140, "idle connections past the limit were closed to make room (\(closed) of 200)")
        #expect(server.stop() == 0)
    }

    /// Every connection the server takes holding a half-sent request head (what anyone could
    /// open, without a token): a new client still gets its page, in the place of the one that
    /// has been sending its head longest (it got 503 until the heads timed out, and the
    /// attacker only had to open them again).
    @Test func connectionsThatHoldHalfAHeadDoNotKeepOthersOut() throws {
        let (served, token) = try Self.catalogWithToken()
        let server = try Server(["--db", served.path, "--host", "0.0.0.0", "--max-connections", "20"])
        var halves: [RawConnection] = []
        for _ in 0..<20 {
            let connection = try RawConnection(port: server.port)
            connection.send("GET /api/stats HTTP/1.1\r\n")
            halves.append(connection)
        }
        // Each half-head reached the server: one more connection is answered (it takes an idle
        // one's place while any is still idle, a half-head's after).
        for _ in 0..<5 {
            let page = try RawConnection.request(port: server.port, "/api/page?width=375", headers: Self.bearer(token))
            #expect(page.status == 200, "a client is served whatever the half-heads hold")
        }
        #expect(halves.contains { $0.waitFor(.seconds(5)) { _ in false } == false && $0.closedByServer }, "half-heads were closed to make room")
        #expect(server.stop() == 0)
    }

    @Test func aResponseThatEndsBeforeItsRequestsBody_leavesTheConnectionToTheIdleTimeout() throws {
        let (served, _) = try Self.catalogWithToken()
        let server = try Server(["--db", served.path, "--host", "0.0.0.0", "--idle-timeout", "2", "--request-timeout", "30"])
        let connection = try RawConnection(port: server.port)
        connection.send("GET /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\n")
        #expect(try connection.response().status == 401, "answered before the body")
        connection.send("hello")
        let started = ContinuousClock.now
        #expect(connection.waitFor(.seconds(15)) { _ in false } == false)
        #expect(connection.closedByServer, "the body arrived, the connection went idle, and the idle timeout closed it")
        #expect(ContinuousClock.now - started < .seconds(14)) // the idle timeout (2 s), not the request's (30 s)

        let keptAlive = try RawConnection(port: server.port)
        keptAlive.send("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try keptAlive.response().status == 200)
        keptAlive.send("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try keptAlive.response().status == 200, "a kept-alive connection serves its next request")
        #expect(server.stop() == 0)
    }

    @Test func anOpenLoopbackServerAnswersOnlyRequestsAddressedToLoopback() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog()
        let server = try Server(["--db", served.path, "--public-url", "http://photos.lan:8080/", "--no-auth"])
        for host in ["localhost:\(server.port)", "127.0.0.1:\(server.port)", "[::1]:\(server.port)", "photos.lan:8080"] {
            #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Host": host]).status == 200, "\(host)")
        }
        for host in ["attacker.example", "127.evil.example", "127.0.0.1.rebind.attacker.example", "127.0.0.1evil", "127..", "[::1].evil"] {
            let rebound = try RawConnection.request(port: server.port, "/api/items", headers: ["Host": "\(host):\(server.port)"])
            #expect(rebound.status == 403, "\(host): a name made to resolve to 127.0.0.1 (DNS rebinding)")
        }
        #expect(try RawConnection.request(port: server.port, "/api/items", headers: ["Host": "127.1.2.3:\(server.port)"]).status == 200)
        #expect(server.stop() == 0)
    }
}
