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

/// Refuses what no route takes: a body on GET (400), a method other than GET or HEAD on a
/// route (405, with Allow).
struct RequestShapeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head || !Self.isRoute(request.uri.path) else {
            throw APIError(status: 405, message: "\(request.method.rawValue) is not allowed: the API takes GET and HEAD", allow: "GET, HEAD")
        }
        let length = request.headers[.contentLength].flatMap { Int($0) } ?? 0
        if length > 0 || request.headers[.transferEncoding] != nil {
            throw APIError(status: 400, message: "a GET request carries no body")
        }
        return try await next(request, context)
    }

    /// Whether the path is one of the API's routes (another method on it is a 405, on any
    /// other path a 404).
    static func isRoute(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if path == "/" { return true }
        switch parts.count {
        case 3: return parts[1] == "api" && ["page", "sections", "snap", "changes", "events", "items", "stats", "layouts", "health", "openapi.yaml"].contains(parts[2])
        case 4: return (parts[1] == "api" && parts[2] == "items" && !parts[3].isEmpty) || (parts[1] == "gallery" && !parts[3].isEmpty)
        case 5: return parts[1] == "api" && parts[2] == "items" && !parts[3].isEmpty && ["original", "thumbnail"].contains(parts[4])
        default: return false
        }
    }
}

/// One line per request on stderr: method, path, status, duration.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method.rawValue) \(request.uri.path) \(response.status.code) \(String(format: "%.2f", milliseconds)) ms")
        return response
    }
}
