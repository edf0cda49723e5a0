import Foundation
import Testing

/// HTTP/1.0 clients and `Connection` (RFC 9112 §6.1, §9.3, §9.6), on the real binary over raw
/// sockets: an HTTP/1.0 request without keep-alive is the connection's last and the server
/// closes it, not the idle timeout; an HTTP/1.0 response is never chunked; a response on a
/// connection that closes after it says so.
@Suite(.serialized) struct HTTPFramingTests {
    @Test func http10ClientsGetHTTP10Answers_andTheConnectionEndsWhenTheyAskedNothingElse() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 20)
        let server = try ServeBinaryTests.Server(["--db", served.path])

        // No keep-alive: answered as HTTP/1.0, then closed (it stayed open until the idle timeout).
        let plain = try RawConnection(port: server.port)
        plain.send("GET /api/health HTTP/1.0\r\n\r\n")
        let health = try plain.response()
        #expect(plain.text.isEmpty && health.status == 200 && health.header("Connection")?.lowercased() == "close")
        #expect(plain.waitFor(.seconds(10)) { _ in plain.isClosedByServer }, "still open after the response")

        // Keep-alive asked for and a length to frame the body: the connection serves the next one.
        let kept = try RawConnection(port: server.port)
        kept.send("GET /api/health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = try kept.response()
        #expect(first.status == 200 && first.header("Connection")?.lowercased() == "keep-alive")
        #expect(!kept.isClosedByServer)
        kept.send("GET /api/stats HTTP/1.0\r\n\r\n")
        let second = try kept.response()
        #expect(second.status == 200 && second.body.contains("\"items\""), "\(second.body)")

        // The event stream, whose length is unknown: not chunked, but unframed to the close.
        let events = try RawConnection(port: server.port)
        events.send("GET /api/events HTTP/1.0\r\nAccept: text/event-stream\r\n\r\n")
        #expect(events.waitFor { $0.contains("event: generation\n") }, "\(events.text.prefix(600))")
        let head = events.text.components(separatedBy: "\r\n\r\n")[0].lowercased()
        #expect(head.hasPrefix("http/1.0 200") && !head.contains("transfer-encoding") && head.contains("connection: close"), "\(head)")
        let body = events.text.components(separatedBy: "\r\n\r\n").dropFirst().joined()
        #expect(body.hasPrefix("retry:") || body.hasPrefix(":") || body.hasPrefix("event:"), "a chunk size before the stream: \(body.prefix(40))")

        // HTTP/1.1: kept open by default, and a `Connection: close` is answered with one.
        let closing = try RawConnection.request(port: server.port, "/api/health")
        #expect(closing.status == 200 && closing.header("Connection")?.lowercased() == "close")
        let open = try RawConnection(port: server.port)
        open.send("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        let answer = try open.response()
        #expect(answer.status == 200 && answer.header("Connection") == nil && !open.isClosedByServer)

        // A request the server cannot parse: its 400 still says that the connection closes.
        let garbage = try RawConnection(port: server.port)
        garbage.send("GARBAGE\r\n\r\n")
        let refused = try garbage.response()
        #expect(refused.status == 400 && refused.header("Connection")?.lowercased() == "close", "\(refused.headers)")
        #expect(garbage.waitFor(.seconds(10)) { _ in garbage.isClosedByServer })
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request without Host, with two, or with a list in one is a 400
    /// with the API's JSON error (the first of two was used, and judged alone by the loopback
    /// check). A client cannot forge the connection's mark to have a good request refused.
    @Test func hostHeadersThatNameNoOneHostAreRefused() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 1)
        let server = try ServeBinaryTests.Server(["--db", served.path])
        let host = "127.0.0.1:\(server.port)"
        for (headers, problem) in [("", "must have a Host header"), ("Host: \(host)\r\nHost: evil.example\r\n", "2 Host headers"),
                                   ("Host: \(host), evil.example\r\n", "more than one host"),
                                   // The loopback check judged these (a 403 for a host not its own).
                                   ("Host: evil.example\r\nHost: \(host)\r\n", "2 Host headers"), ("Host: localhost, \(host)\r\n", "more than one host"),
                                   ("Host:  \t \r\n", "the Host header is empty")] {
            let connection = try RawConnection(port: server.port)
            connection.send("GET /api/health HTTP/1.1\r\n\(headers)Connection: close\r\n\r\n")
            let response = try connection.response()
            #expect(response.status == 400 && response.body.contains(problem), "\(headers): \(response.status) \(response.body)")
            #expect(response.header("Content-Type") == "application/json")
        }
        // Spaces and tabs around one host are not part of it (RFC 9110 §5.5).
        for padded in ["Host: \(host) \r\n", "Host: \(host)\t\r\n", "Host:  \t\(host)\r\n"] {
            let connection = try RawConnection(port: server.port)
            connection.send("GET /api/health HTTP/1.1\r\n\(padded)Connection: close\r\n\r\n")
            let response = try connection.response()
            #expect(response.status == 200, "\(padded): \(response.status) \(response.body)")
        }
        let forged = try RawConnection.request(port: server.port, "/api/health", headers: ["catalog-refused-host": "forged"])
        #expect(forged.status == 200, "\(forged.body)")
        // A target in absolute form names its host, which replaces Host (RFC 9112 §3.2.2): another
        // host's is refused by the loopback check as its Host would be; this server's goes through.
        // A target of another scheme, or no path, is refused (it was routed by its path, its host never judged).
        for (target, status) in [("http://evil.example/api/stats", 403), ("http://user@evil.example:80/api/stats", 403),
                                 ("http://\(host)/api/stats", 200), ("ftp://evil.example/api/stats", 400), ("api/stats", 400)] {
            let connection = try RawConnection(port: server.port)
            connection.send("GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            let response = try connection.response()
            #expect(response.status == status, "\(target): \(response.status) \(response.body)")
        }
    }

    /// A request pipelined behind another (in the same packet) is held to the request line's and
    /// the head's limits as one sent alone: a 431, and the connection closed after it (the guard
    /// in front of the parser counts only the first head, and the second went through whole).
    @Test func aPipelinedRequestOverTheHeadLimitsGets431() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 1)
        let server = try ServeBinaryTests.Server(["--db", served.path])
        let host = "Host: 127.0.0.1:\(server.port)\r\n"
        for (second, said) in [("GET /api/health?" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\(host)\r\n", "request line is longer than 8192 bytes"),
                               ("GET /api/health HTTP/1.1\r\n\(host)X-Padding: \(String(repeating: "p", count: 33_000))\r\n\r\n", "headers are longer than 32768 bytes")] {
            let connection = try RawConnection(port: server.port)
            connection.send("GET /api/health HTTP/1.1\r\n\(host)\r\n" + second + "GET /api/health HTTP/1.1\r\n\(host)\r\n")
            #expect(connection.waitFor(.seconds(10)) { _ in connection.isClosedByServer }, "still open: \(connection.text.prefix(200))")
            // Each status line (a body ends without a line end: the next response follows it).
            let statuses = connection.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
            #expect(statuses == ["200", "431"], "\(statuses)")
            #expect(connection.text.contains(said), "\(connection.text.suffix(300))")
        }
        // A request refused before its body came (a 405), the rest of its body and a long line
        // sent after it in one write: the line is a pipelined head the guard did not count.
        let early = try RawConnection(port: server.port)
        early.send("POST /api/stats HTTP/1.1\r\n\(host)Content-Length: 10\r\n\r\n")
        #expect(early.waitFor(.seconds(10)) { $0.contains("HTTP/1.1 405") }, "\(early.text.prefix(100))")
        early.send("0123456789GET /api/health?" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\(host)\r\n")
        #expect(early.waitFor(.seconds(10)) { $0.contains("HTTP/1.1 431") }, "\(early.text.suffix(200))")
        // Within the limits, pipelined requests are all answered.
        let connection = try RawConnection(port: server.port)
        connection.send(String(repeating: "GET /api/health HTTP/1.1\r\n\(host)X-Padding: \(String(repeating: "p", count: 1000))\r\n\r\n", count: 3))
        let all = connection.waitFor(.seconds(10)) { $0.components(separatedBy: "HTTP/1.1 200").count == 4 }
        #expect(all, "\(connection.text.prefix(300))")
        // Just within them, alone and pipelined (written tight, `Name:value`, which the count of
        // a pipelined head took for longer: a 431 for a head the guard let through).
        let line = "GET /api/health?" + String(repeating: "a", count: 8192 - 16 - 10) + " HTTP/1.1\r" // 8,192 bytes with its CR
        // A head of 32,768 bytes exactly, its blank line's CRLF counted.
        let start = "GET /api/health HTTP/1.1\r\n\(host)"
        var fields = (0..<31).map { "X\($0):" + String(repeating: "v", count: 900) + "\r\n" }.joined()
        fields += "X99:" + String(repeating: "v", count: 32_768 - start.utf8.count - fields.utf8.count - 4 - 2 - 2) + "\r\n"
        try #require((start + fields + "\r\n").utf8.count == 32_768)
        for (name, request) in [("line", line + "\n\(host)\r\n"), ("head", start + fields + "\r\n")] {
            let alone = try RawConnection(port: server.port)
            alone.send(request + "GET /api/health HTTP/1.1\r\n\(host)\r\n" + request)
            // (The long line's route takes no parameters: a 400 that says so, not a 431.)
            let want = name == "line" ? ["400", "200", "400"] : ["200", "200", "200"]
            #expect(alone.waitFor(.seconds(10)) { $0.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) } == want },
                    "\(name): \(alone.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) })")
        }
    }

    /// A request answered before its body arrived (a 400 for a parameter, a 413) is answered
    /// once: the connection closes at the request timeout without a second response (a 408 came
    /// ten seconds after the 413).
    @Test func aRequestAnsweredBeforeItsBodyArrived_getsNo408Later() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 1)
        let server = try ServeBinaryTests.Server(["--db", served.path, "--request-timeout", "1"])
        let connection = try RawConnection(port: server.port)
        connection.send("GET /api/stats?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 10\r\n\r\nabcde")
        #expect(connection.waitFor(.seconds(10)) { _ in connection.isClosedByServer }, "still open: \(connection.text)")
        let statuses = connection.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(statuses == ["400"], "\(statuses)")
    }

    /// A request that says `Expect: 100-continue` gets its 100 before it sends its body (curl
    /// sends one past 1 KiB of body and waited a second for it at every sign-in), then its
    /// response; one whose body the server will not read gets its final status instead.
    @Test func aRequestExpecting100Continue_getsIt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 1)
        let server = try ServeBinaryTests.Server(["--db", served.path])
        let body = #"{"token":"x"}"#
        let connection = try RawConnection(port: server.port)
        connection.send("POST /api/session HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        #expect(connection.waitFor(.seconds(10)) { $0.hasPrefix("HTTP/1.1 100 Continue\r\n\r\n") }, "\(connection.text)")
        connection.send(body)
        #expect(connection.waitFor(.seconds(10)) { $0.contains("HTTP/1.1 409") }, "\(connection.text)") // access control is off
        #expect(connection.text.components(separatedBy: "HTTP/1.1 ").count == 3, "one 100, one response: \(connection.text)")
        // A body the server will not read (past a sign-in's 4 KiB, or on a route that takes
        // none): no 100, the final status at once, before the client sends it.
        for head in ["POST /api/session HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n",
                     "POST /api/session?x=1 HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 13\r\n",
                     "POST /api/stats HTTP/1.1\r\nContent-Length: 10\r\n"] {
            let refused = try RawConnection(port: server.port)
            refused.send(head + "Host: 127.0.0.1:\(server.port)\r\nExpect: 100-continue\r\n\r\n")
            #expect(refused.waitFor(.seconds(10)) { $0.hasPrefix("HTTP/1.1 4") }, "\(head): \(refused.text.prefix(100))")
        }
    }

    /// A CONNECT (this server is no proxy) is refused with a 405 and the connection closed: the
    /// parser takes what follows it for a tunnel's bytes, and a request pipelined behind it, or
    /// sent later, was never answered until the idle timeout.
    @Test func aCONNECTIsRefused_andItsConnectionClosed() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServeBinaryTests.binary.path), "build the catalog binary first (swift build)")
        let served = try ServedCatalog(imported: 1)
        let server = try ServeBinaryTests.Server(["--db", served.path])
        let connection = try RawConnection(port: server.port)
        connection.send("CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n"
            + "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        #expect(connection.waitFor(.seconds(10)) { _ in connection.isClosedByServer }, "still open: \(connection.text)")
        let head = connection.text.components(separatedBy: "\r\n\r\n")[0].lowercased()
        #expect(head.hasPrefix("http/1.1 405") && head.contains("allow: get, head") && head.contains("connection: close"), "\(head)")
    }
}
