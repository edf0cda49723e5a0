import HTTPTypes
import Hummingbird

/// Refuses (400) a request whose Host headers name no one host: none, two, an empty one, or a
/// list in one (RFC 9112 §3.2). Before the loopback and access checks, which would judge a host of several.
struct HostHeaderMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let problem = request.headers[Self.refusedHost] {
            throw APIError(status: 400, message: problem)
        }
        return try await next(request, context)
    }

    /// Set by the connection (``HTTP1Conformance``) on a request whose Host headers are refused.
    static var refusedHost: HTTPField.Name { HTTPField.Name(HTTP1Conformance.refusedHost)! }
}
