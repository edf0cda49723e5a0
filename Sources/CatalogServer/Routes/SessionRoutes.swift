import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `POST /api/session` signs a browser in with a token (the session cookie), `DELETE` signs it
/// out, `GET` says whether the request is signed in (behind the access check like any route).
struct SessionRoutes {
    static let path = "/api/session"
    /// nil: access control is off.
    let access: AccessControl?

    func add(to router: Router<CatalogRequestContext>) {
        router.get(RouterPath(Self.path)) { request, _ -> Response in
            try APIError.refuseParameters(request)
            return Self.json(#"{"accessControl":\#(access != nil),"signedIn":true}"#)
        }

        router.post(RouterPath(Self.path)) { request, context -> Response in
            try APIError.refuseParameters(request)
            guard let access else {
                throw APIError(status: 409, message: "access control is off on this server: there is nothing to sign in to")
            }
            guard access.isSameOrigin(request) else {
                throw APIError(status: 403, message: "a sign-in must come from this server's own gallery (its Origin header)")
            }
            let client = access.client(request, context: context)
            if let wait = access.limiter.retryAfter(client) { throw APIError.tooManyFailures(retryAfter: wait) }
            let token = try await Self.token(in: request, context: context)
            guard let matched = access.tokens.match(token) else {
                access.limiter.recordFailure(client)
                throw APIError.unauthorized("that token is not valid (revoked, or mistyped)", error: "invalid_token")
            }
            var response = Self.json(#"{"accessControl":true,"signedIn":true,"expiresIn":\#(access.cookie.lifetime.components.seconds)}"#)
            response.headers[.setCookie] = access.cookie.make(for: matched)
            return response
        }

        router.delete(RouterPath(Self.path)) { request, _ -> Response in
            try APIError.refuseParameters(request)
            guard let access else { return Self.json(#"{"accessControl":false,"signedIn":false}"#) }
            if request.headers[.origin] != nil, !access.isSameOrigin(request) {
                throw APIError(status: 403, message: "a sign-out must come from this server's own gallery (its Origin header)")
            }
            var response = Self.json(#"{"accessControl":true,"signedIn":false}"#)
            response.headers[.setCookie] = access.cookie.cleared
            return response
        }
    }

    /// The token of a sign-in's body: JSON `{"token": "..."}` or a form's `token=...`.
    static func token(in request: Request, context: CatalogRequestContext) async throws -> String {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw APIError(status: 413, message: "a sign-in's body is at most \(context.maxUploadSize) bytes")
        }
        let text = String(buffer: body)
        var token: String?
        if type.hasPrefix("application/json") {
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            token = object?["token"] as? String
        } else if type.hasPrefix("application/x-www-form-urlencoded") {
            token = URLComponents(string: "?" + text.replacingOccurrences(of: "+", with: "%20"))?.queryItems?.first { $0.name == "token" }?.value
        } else {
            throw APIError(status: 415, message: "sign in with a JSON body {\"token\": \"...\"} (Content-Type: application/json)")
        }
        guard let token, !token.isEmpty else {
            throw APIError(status: 400, message: "the body has no token: send {\"token\": \"...\"}", parameter: "token")
        }
        return token.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func json(_ body: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
