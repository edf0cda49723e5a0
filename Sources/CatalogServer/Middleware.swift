import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Turns every error, thrown by a route or by the router itself (no such route), into its
/// status and the one JSON body.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let message = error.status == .notFound ? "no such route: \(request.uri.path)" : (error.body ?? error.status.reasonPhrase)
            return APIError(status: error.status.code, message: message).response
        } catch {
            return APIError(error).response
        }
    }
}

/// Refuses what no route takes: a body on GET (400), a method a route does not take (405, with
/// Allow). Every route takes GET and HEAD; `/api/session` also POST (with a body) and DELETE.
struct RequestShapeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == SessionRoutes.path {
            guard [.get, .head, .post, .delete].contains(request.method) else {
                throw APIError(status: 405, message: "\(request.method.rawValue) is not allowed here: sign in with POST, out with DELETE",
                               allow: "GET, HEAD, POST, DELETE")
            }
            if request.method == .post { return try await next(request, context) }
        } else if request.method != .get && request.method != .head && Self.isRoute(path) {
            throw APIError(status: 405, message: "\(request.method.rawValue) is not allowed: the API takes GET and HEAD", allow: "GET, HEAD")
        }
        let length = request.headers[.contentLength].flatMap { Int($0) } ?? 0
        if length > 0 || request.headers[.transferEncoding] != nil {
            throw APIError(status: 400, message: "a \(request.method.rawValue) request carries no body")
        }
        return try await next(request, context)
    }

    /// Whether the path is one of the API's routes (another method on it is a 405, on any
    /// other path a 404).
    static func isRoute(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if path == "/" { return true }
        switch parts.count {
        case 3: return parts[1] == "api" && ["page", "sections", "snap", "changes", "events", "items", "stats", "layouts", "health", "session", "openapi.yaml"].contains(parts[2])
        case 4: return (parts[1] == "api" && parts[2] == "items" && !parts[3].isEmpty) || (parts[1] == "gallery" && !parts[3].isEmpty)
        case 5: return parts[1] == "api" && parts[2] == "items" && !parts[3].isEmpty && ["original", "thumbnail"].contains(parts[4])
        default: return false
        }
    }
}

/// One line per request on stderr: client address, method, path (never the query, nor any
/// header: no token reaches the log), status, duration.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = CatalogRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let client = context.remoteAddress?.ipAddress ?? "-"
        logger.info("\(client) \(request.method.rawValue) \(request.uri.path) \(response.status.code) \(String(format: "%.2f", milliseconds)) ms")
        return response
    }
}
