import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import Hummingbird

/// Who may use a served catalog: the tokens of a token file, as `Authorization: Bearer` or as
/// the gallery's session cookie, with failures counted per client address.
struct AccessControl: Sendable {
    let tokens: AccessTokens
    let cookie: SessionCookie
    let limiter: FailureLimiter
    /// Peers whose `X-Forwarded-For` names the client (a reverse proxy on the same machine).
    let trustedProxies: Set<String>
    /// The public address's origin (`https://photos.example.com`), when one was given.
    let publicOrigin: String?

    /// The client a request counts against: the peer, or the last address a trusted proxy added.
    func client(_ request: Request, context: CatalogRequestContext) -> String {
        let peer = context.remoteAddress?.ipAddress ?? "unknown"
        guard trustedProxies.contains(peer), let forwarded = request.headers[.xForwardedFor] else { return peer }
        return forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? peer
    }

    enum Outcome {
        case allowed
        case refused(APIError)
    }

    /// What a request presents: a token (valid or not), a malformed Authorization header, a
    /// session cookie (by its verdict), or nothing. Read once, counted by the callers.
    enum Credentials {
        case validToken
        case wrongToken
        case malformedAuthorization
        case session(SessionCookie.Verdict)
        case none
    }

    func credentials(_ request: Request) -> Credentials {
        if let authorization = request.headers[.authorization] {
            guard let token = Self.bearer(authorization) else { return .malformedAuthorization }
            return tokens.match(token) != nil ? .validToken : .wrongToken
        }
        return cookie.verify(cookieHeader: request.headers[.cookie], tokens: tokens).map(Credentials.session) ?? .none
    }

    /// Checks a request's bearer token or session cookie; a wrong token or a forged cookie counts
    /// as a failure of the client.
    func check(_ request: Request, context: CatalogRequestContext) -> Outcome {
        let client = client(request, context: context)
        if let wait = limiter.retryAfter(client) { return .refused(.tooManyFailures(retryAfter: wait)) }
        var refused: APIError
        switch credentials(request) {
        case .validToken, .session(.valid):
            return .allowed
        case .wrongToken:
            limiter.recordFailure(client)
            return .refused(.unauthorized("that token is not valid (revoked, or mistyped)", error: "invalid_token"))
        case .malformedAuthorization:
            return .refused(.unauthorized("the Authorization header must be `Bearer TOKEN`", error: "invalid_request"))
        case .session(.stale):
            refused = .unauthorized("the session has ended: sign in again")
        case .session(.forged):
            limiter.recordFailure(client)
            refused = .unauthorized("the session cookie is not valid: sign in again")
        case .none:
            return .refused(.unauthorized("sign in: send `Authorization: Bearer TOKEN` (make one with `catalog token new`), or sign in in the gallery"))
        }
        refused.headers[.setCookie] = cookie.cleared
        return .refused(refused)
    }

    /// Whether the request carries a valid token or session; nothing is counted (for what an
    /// open route shows a signed-in client only).
    func authenticates(_ request: Request) -> Bool {
        switch credentials(request) {
        case .validToken, .session(.valid): true
        default: false
        }
    }

    /// Whether a browser's request comes from the server's own pages: its `Origin` is the
    /// public address's, or this Host's (over http or https).
    func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin]?.lowercased() else { return false }
        if let publicOrigin, origin == publicOrigin { return true }
        guard let host = request.head.authority?.lowercased() else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    static func bearer(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

extension APIError {
    /// 401 with `WWW-Authenticate: Bearer` (RFC 6750; `error` says what was wrong with a token sent).
    static func unauthorized(_ message: String, error: String? = nil) -> APIError {
        var refused = APIError(status: 401, message: message)
        refused.headers[.wwwAuthenticate] = #"Bearer realm="catalog""# + (error.map { #", error="\#($0)""# } ?? "")
        return refused
    }

    /// 429 with `Retry-After` in whole seconds, rounded up.
    static func tooManyFailures(retryAfter wait: Duration) -> APIError {
        let seconds = max(1, wait.components.seconds + (wait.components.attoseconds > 0 ? 1 : 0))
        var refused = APIError(status: 429, message: "too many failed sign-ins from this address: try again in \(seconds) s")
        refused.headers[.retryAfter] = String(seconds)
        return refused
    }
}

/// What `catalog serve` needs to decide on access control before the server starts.
public enum ServeAccess {
    /// `https://host[:port]` of an http(s) URL, lowercased; nil for anything else.
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else { return nil }
        // A browser's Origin leaves out the scheme's own port: so does this.
        let port = components.port.flatMap { ($0 == 443 && scheme == "https") || ($0 == 80 && scheme == "http") ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(host.lowercased())\(port)"
    }

    /// Whether listening on `host` reaches only this machine: `localhost` and its subdomains
    /// (which browsers resolve themselves, never asking DNS), and the loopback addresses as
    /// addresses (127.0.0.0/8, ::1), never a name that only starts like one: `127.evil.example`
    /// is a name its owner can make resolve to 127.0.0.1 (DNS rebinding).
    public static func isLoopback(host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        var v4 = [UInt8](repeating: 0, count: 4) // in network order: the first octet first
        if inet_pton(AF_INET, name, &v4) == 1 { return v4[0] == 127 }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, name, &bytes) == 1 else { return false }
        return bytes == [UInt8](repeating: 0, count: 15) + [1] // ::1
            || (bytes[..<12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF][...] && bytes[12] == 127) // ::ffff:127.x.x.x
    }

    /// Whether a server listening on `host` listens on loopback only: a loopback address, or a
    /// name that resolves to loopback addresses alone. A name is looked up as the listener
    /// will look it up: `photos.localhost` written into /etc/hosts as 0.0.0.0 listens on every
    /// interface, whatever its name says.
    public static func listensOnLoopbackOnly(host: String) -> Bool {
        let name = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        var v4 = [UInt8](repeating: 0, count: 4), v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1 { return isLoopback(host: name) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 {
                addresses.append(String(cString: text))
            }
            entry = current.pointee.ai_next
        }
        return !addresses.isEmpty && addresses.allSatisfy { isLoopback(host: $0) }
    }

    /// Whether a public URL names this machine only.
    public static func isLoopback(url: String) -> Bool {
        URLComponents(string: url)?.host.map { isLoopback(host: $0) } ?? false
    }
}
