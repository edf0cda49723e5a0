import Foundation
import HTTPTypes
import Hummingbird

/// With access control on, every request but the open ones (health, the gallery's page with
/// its sign-in form, its static files, signing in and out) needs a valid token or session;
/// unknown paths too, so that a stranger learns nothing of the routes.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = CatalogRequestContext
    let access: AccessControl

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.isOpen(request) { return try await next(request, context) }
        if case .refused(let error) = access.check(request, context: context) { throw error }
        return try await next(request, context)
    }

    static func isOpen(_ request: Request) -> Bool {
        let path = request.uri.path
        switch path {
        case "/", "/api/health": return true
        case SessionRoutes.path: return request.method == .post || request.method == .delete
        default: return path.hasPrefix("/gallery/")
        }
    }
}

/// Headers every response carries: `nosniff`, `no-referrer`, and a Content-Security-Policy that
/// allows nothing (the gallery's page sets its own); with `--cors-origin`, what lets those
/// origins read the API (and answers their preflights), else `Cross-Origin-Resource-Policy:
/// same-origin`.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = CatalogRequestContext
    let corsOrigins: Set<String>
    /// With access control on, what a response allows shared caches (a CDN, a proxy) becomes
    /// `private`: a thumbnail asked for with a token is nobody else's.
    let privateResponses: Bool

    static let lockedDown = "default-src 'none'; frame-ancestors 'none'; sandbox"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.headers[.origin].flatMap { corsOrigins.contains($0.lowercased()) ? $0 : nil }
        var response: Response
        if let origin, request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            response = Response(status: .noContent, headers: [
                .accessControlAllowMethods: "GET, HEAD",
                .accessControlAllowHeaders: "Authorization, If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since, If-Range, Range, Accept",
                .accessControlMaxAge: "600",
            ])
            response.headers[.accessControlAllowOrigin] = origin
        } else {
            response = try await next(request, context)
            if let origin {
                response.headers[.accessControlAllowOrigin] = origin
                response.headers[.accessControlExposeHeaders] = "ETag, X-Catalog-Generation, Content-Range, Retry-After, WWW-Authenticate"
            }
        }
        if !corsOrigins.isEmpty { response.headers[values: .vary].append("Origin") }
        if privateResponses, let cache = response.headers[.cacheControl], cache.contains("public") {
            response.headers[.cacheControl] = cache.replacingOccurrences(of: "public", with: "private")
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        // Without origins let in, no other site's page may embed an original or a thumbnail
        // (an open server on loopback: any page the browser opens could list the photos).
        if corsOrigins.isEmpty { response.headers[.crossOriginResourcePolicy] = "same-origin" }
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.lockedDown }
        return response
    }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let crossOriginResourcePolicy = HTTPField.Name("Cross-Origin-Resource-Policy")!
}

/// An open server on loopback answers only requests addressed to loopback (`Host: localhost`,
/// `127.0.0.1:8080`, `[::1]`) or to its public URL's host: a web page elsewhere that makes its
/// own name resolve to 127.0.0.1 (DNS rebinding) cannot read the catalog through the browser.
struct LoopbackHostMiddleware: RouterMiddleware {
    typealias Context = CatalogRequestContext
    let publicHost: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let authority = request.head.authority?.lowercased(), !Self.allows(authority, publicHost: publicHost) {
            throw APIError(status: 403, message: "this server answers on loopback only (Host: \(authority) is not); "
                + "to serve it under a name, pass --public-url, or serve on a network address with tokens")
        }
        return try await next(request, context)
    }

    static func allows(_ authority: String, publicHost: String?) -> Bool {
        var host = Substring(authority)
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            // After the bracket, a port or nothing: `[::1].evil` is no address.
            let rest = host[host.index(after: end)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return false }
            host = host[host.index(after: host.startIndex)..<end]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return ServeAccess.isLoopback(host: String(host)) || String(host) == publicHost?.lowercased()
    }
}
