import HTTPTypes
import Hummingbird

/// Refuses (400) a request whose Host headers name no one host: none, two, an empty one, or a
/// list in one (RFC 9112 §3.2), or whose target is no path or http(s) URL; and (431) a pipelined
/// one whose head is over the limits. Before the loopback and access checks, which would judge a host of several.
struct HostHeaderMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let problem = request.headers[Self.refusedHead] {
            // The connection's last, as the guard's 431 is (after the responses before it:
            // closed by ``HTTP1Conformance`` at this one's end).
            var error = APIError(status: 431, message: problem)
            error.headers[.connection] = "close"
            throw error
        }
        if let problem = request.headers[Self.refusedHost] {
            throw APIError(status: 400, message: problem)
        }
        return try await next(request, context)
    }

    /// Set by the connection (``HTTP1Conformance``) on a request whose Host headers are refused.
    static var refusedHost: HTTPField.Name { HTTPField.Name(HTTP1Conformance.refusedHost)! }
    /// Set on a pipelined request whose request line or head is over the limits (431).
    static var refusedHead: HTTPField.Name { HTTPField.Name(HTTP1Conformance.refusedHead)! }
}
