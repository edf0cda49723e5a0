import CatalogKit
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Turns every error, thrown by a route or by the router itself (no such route), into its
/// status and the one JSON body; tells `outages` of a database that cannot be reached.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let outages: OutageLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            // Only a response that read the catalog (it carries the generation) says it is back.
            if response.headers[JSONResponse.generationHeader] != nil { outages.answered() }
            return response
        } catch let error as HTTPError {
            let message = error.status == .notFound ? "no such route: \(request.uri.path)" : (error.body ?? error.status.reasonPhrase)
            return APIError(status: error.status.code, message: message).response
        } catch {
            if case StoreError.unreachable = error { outages.failed(error) }
            let answer = APIError(error)
            // The client is told "internal error"; the operator, why (an unwritable thumbnail
            // cache, a bug): on stderr, once per 30 s for each reason.
            if answer.status == 500 { outages.internalError("\(request.method.rawValue) \(request.uri.path)", error) }
            return answer.response
        }
    }
}

/// One line on stderr when the catalog's database stops answering (then one every 30 seconds
/// while it stays away), and one when a request is answered again: not a line per request.
final class OutageLog: Sendable {
    private let logger: Logger
    /// When the outage was last written down (nanoseconds, monotonic), or nil while there is none.
    private let lastWritten = Mutex<UInt64?>(nil)
    private let inOutage = Atomic<Bool>(false)
    /// When each reason for a 500 was last written down.
    private let internalWritten = RepeatLimit()
    static let repeatEvery: UInt64 = 30_000_000_000

    init(logger: Logger) {
        self.logger = logger
    }

    func failed(_ error: any Error) {
        let now = DispatchTime.now().uptimeNanoseconds
        let write = lastWritten.withLock { last in
            guard last.map({ now - $0 >= Self.repeatEvery }) ?? true else { return false }
            last = now
            return true
        }
        inOutage.store(true, ordering: .relaxed)
        if write { logger.error("\(error) Answering 503 meanwhile.") }
    }

    /// Why a request was answered 500: one line per reason per 30 seconds (a cache that cannot be
    /// written fails every thumbnail, and one line says so).
    func internalError(_ request: String, _ error: any Error) {
        let reason = "\(error)"
        if internalWritten.allows(reason) { logger.error("\(request) answered 500: \(reason)") }
    }

    func answered() {
        guard inOutage.load(ordering: .relaxed), inOutage.exchange(false, ordering: .relaxed) else { return }
        lastWritten.withLock { $0 = nil }
        logger.error("the catalog's database answers again")
    }
}

/// Says whether a line about `reason` may be written now: once per 30 seconds for each reason,
/// so that what fails every request is one line, not a line per request.
final class RepeatLimit: Sendable {
    private let written = Mutex<[String: UInt64]>([:])

    func allows(_ reason: String) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return written.withLock { written in
            guard written[reason].map({ now - $0 >= OutageLog.repeatEvery }) ?? true else { return false }
            if written.count > 1_000 { written.removeAll() } // bounded, whatever the errors
            written[reason] = now
            return true
        }
    }
}

/// Refuses what no route takes: a body on GET (400), a method a route does not take (405, with
/// Allow). Every route takes GET and HEAD; `/api/session` also POST (with a body) and DELETE.
struct RequestShapeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if request.method == .connect { // its target is a host, not a path: no route's
            throw APIError(status: 405, message: "CONNECT is not allowed: this server is no proxy", allow: "GET, HEAD")
        }
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
