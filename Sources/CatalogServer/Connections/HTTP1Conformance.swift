import NIOCore
import NIOHTTP1

/// Before the HTTP types codec, which drops the request's version and all Hosts but the first:
/// answers an HTTP/1.0 request as HTTP/1.0, says in `Connection` whether the connection stays
/// open, and has requests whose Host names no one host refused.
///
/// - An HTTP/1.0 response is never chunked (RFC 9112 §6.1): its version goes down to 1.0, so
///   NIO's encoder sends a body of unknown length (the event stream) unframed, and the
///   connection is closed after it.
/// - An HTTP/1.0 request without `Connection: keep-alive` is the connection's last (§9.3): the
///   server closed only at the idle timeout, and a client reading to the end waited for it.
///   The request is handed on with `Connection: close`, which ends the server's loop.
/// - Every response on a connection that closes after it says `Connection: close` (§9.6), and
///   one kept open for an HTTP/1.0 client says `Connection: keep-alive`.
/// - A request with no Host (HTTP/1.1), several, or a list in one is marked for a 400 (§3.2).
/// - A CONNECT is the connection's last: the parser reads no request after it.
/// - A sign-in (`POST /api/session`, a Content-Length within its limit) that expects `100
///   Continue` (RFC 9110 §10.1.1) gets it, before its body comes; any other request its final
///   status without one.
/// - An absolute-form target's host replaces Host (§3.2.2), for the loopback check to judge; one
///   of another scheme than http(s) is marked for a 400.
/// - A request whose head is over the limits ``ConnectionGuard`` holds heads to is marked for
///   the 431 the guard gives (whose response closes): one the guard did not count, pipelined.
final class HTTP1Conformance: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What each request waiting for its response asked for, oldest first (requests pipelined).
    private var waiting: [(version: HTTPVersion, keepAlive: Bool)] = []
    /// Set by a response head whose connection closes after its end.
    private var closeAfterEnd = false
    /// Requests whose response has not ended: no `100 Continue` may cut into that response.
    private var unfinished = 0
    let limits: ConnectionLimits

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let pipelined = unfinished > 0
        unfinished += 1
        // Every head, as the parser read it: ``ConnectionGuard`` counts a head's bytes as they
        // come, but not one that came while it took them for an earlier request's (pipelined
        // behind it, or split across reads after it). Counted at the fewest bytes it can have
        // been sent in, it never refuses one the guard let through.
        let oversized = Self.oversizedHeadProblem(head, limits)
        // After a CONNECT the parser takes what follows for the tunnel's bytes, not requests:
        // it is the connection's last (refused with a 405 and closed, not left hanging).
        let keepAlive = head.isKeepAlive && head.method != .CONNECT
        waiting.append((head.version, keepAlive))
        // One Host, as RFC 9112 §3.2 requires of HTTP/1.1, with nothing in it a host cannot
        // have; the types codec keeps only the first of several, which the loopback check would
        // then judge alone. The refusal is the router's (HostHeaderMiddleware), in order with
        // the connection's other responses; a marker the client sent is dropped first. Spaces
        // and tabs around the one Host are not part of its value (RFC 9110 §5.5): taken away.
        head.headers.remove(name: Self.refusedHost)
        head.headers.remove(name: Self.refusedHead)
        if let oversized { head.headers.add(name: Self.refusedHead, value: oversized) }
        // A request target in absolute form (`GET http://evil.example/api/stats`) names the host
        // itself, which then replaces Host (RFC 9112 §3.2.2): the loopback check judges it.
        if let authority = Self.authority(ofAbsoluteTarget: head.uri) {
            head.headers.replaceOrAdd(name: "host", value: authority)
        }
        let hosts = head.headers["host"]
        if hosts.count == 1 {
            var host = Substring(hosts[0])
            while host.first == " " || host.first == "\t" { host = host.dropFirst() }
            while host.last == " " || host.last == "\t" { host = host.dropLast() }
            if host.count != hosts[0].count { head.headers.replaceOrAdd(name: "host", value: String(host)) }
        }
        if let problem = Self.targetProblem(head) ?? Self.hostProblem(head) { head.headers.add(name: Self.refusedHost, value: problem) }
        if !keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        // `Expect: 100-continue` (curl's for a body past 1 KiB, and others'): the client waits
        // for a 100 before it sends the body, and without one waited its own timeout (a second
        // with curl) on every sign-in. Only for a body the server will read (a sign-in within
        // its limit, not refused already): a final status comes at once for the rest, before
        // the body is sent. Not behind a response still under way, which it would cut.
        if !pipelined, head.version == .http1_1, head.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }),
           head.method == .POST, head.uri == "/api/session",
           let length = head.headers["content-length"].first.flatMap({ Int($0) }), length <= Self.signInBodyLimit,
           !head.headers.contains(name: Self.refusedHost), !head.headers.contains(name: Self.refusedHead) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The authority (host and port, without user info) of an absolute-form target, or nil.
    static func authority(ofAbsoluteTarget target: String) -> String? {
        let lower = target.prefix(8).lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return nil }
        let rest = target.dropFirst(scheme.count)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String(authority)
    }

    /// The header that carries a Host problem to the router.
    static let refusedHost = "catalog-refused-host"
    /// The header that carries an oversized head's 431 to the router.
    static let refusedHead = "catalog-refused-head"

    /// A target that is neither a path, `*`, nor an http(s) URL (`GET ftp://evil.example/api/stats`
    /// was routed by its path, its host judged by Host). CONNECT's authority form is refused as a method.
    static func targetProblem(_ head: HTTPRequestHead) -> String? {
        guard head.method != .CONNECT, !head.uri.hasPrefix("/"), head.uri != "*", authority(ofAbsoluteTarget: head.uri) == nil else { return nil }
        return "the request target must be a path or an http(s) URL, not \(head.uri.prefix(64))"
    }

    /// The limits ``ConnectionGuard`` holds a head to, for one it may not have counted: its
    /// request line (with its CR, as the guard counts it) and its head, at the fewest bytes they
    /// can have been sent in (`Name:value`, one space in the line), the last LF not counted (the
    /// guard sees the head end before it counts that byte): never more than the guard's.
    static func oversizedHeadProblem(_ head: HTTPRequestHead, _ limits: ConnectionLimits) -> String? {
        let line = head.method.rawValue.utf8.count + head.uri.utf8.count + 10 // two spaces, HTTP/1.1
        if line + 1 > limits.maxRequestLineBytes { return "the request line is longer than \(limits.maxRequestLineBytes) bytes" }
        let bytes = head.headers.reduce(line + 2 + 1) { $0 + $1.name.utf8.count + $1.value.utf8.count + 3 }
        if bytes > limits.maxHeadBytes { return "the request's headers are longer than \(limits.maxHeadBytes) bytes" }
        return nil
    }

    /// The largest sign-in body the server reads (a `POST /api/session` past it is a 413).
    static var signInBodyLimit: Int { CatalogRequestContext.uploadLimit }

    /// What is wrong with the request's Host headers, or nil.
    static func hostProblem(_ head: HTTPRequestHead) -> String? {
        let hosts = head.headers["host"]
        if hosts.count > 1 { return "the request has \(hosts.count) Host headers, and HTTP/1.1 allows one" }
        guard let host = hosts.first else {
            return head.version.major == 1 && head.version.minor >= 1 ? "an HTTP/1.1 request must have a Host header" : nil
        }
        if host.isEmpty { return "the Host header is empty" } // spaces around it taken away first
        if host.contains(where: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "/" || $0 == "@" }) {
            return "the Host header holds more than one host (\(host.prefix(64)))"
        }
        return nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .end = part { unfinished = max(0, unfinished - 1) }
        switch part {
        case .head(var head) where head.status.code >= 200:
            let request = waiting.isEmpty ? (version: HTTPVersion.http1_1, keepAlive: true) : waiting.removeFirst()
            // A close the response asks for itself (the server's answer to a request it could
            // not parse, its shutdown) stays one, and is carried out after the response.
            var keepAlive = request.keepAlive && !head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            if request.version.major == 1 && request.version.minor == 0 {
                head.version = .http1_0
                // Without a length the body ends where the connection does.
                if !head.headers.contains(name: "content-length") { keepAlive = false }
            }
            head.headers.remove(name: "connection")
            if !keepAlive {
                head.headers.add(name: "connection", value: "close")
            } else if head.version == .http1_0 {
                head.headers.add(name: "connection", value: "keep-alive")
            }
            closeAfterEnd = !keepAlive
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAfterEnd:
            closeAfterEnd = false
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(data, promise: written)
            written.futureResult.whenComplete { _ in context.close(promise: nil) }
            written.futureResult.cascade(to: promise)
        default:
            context.write(data, promise: promise)
        }
    }
}
