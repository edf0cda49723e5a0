import CatalogKit
import Foundation
import HTTPTypes
import Hummingbird
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every error a client can meet, as its HTTP status and JSON body
/// `{"error": {"message": ..., "parameter": ...}}`. The one place errors become responses.
struct APIError: Error, Sendable {
    var status: Int
    var message: String
    var parameter: String?
    /// Headers the error carries: `Allow` on a 405, `Content-Range` on a 416,
    /// `WWW-Authenticate` on a 401, `Retry-After` on a 429, `Set-Cookie`...
    var headers: HTTPFields = [:]

    init(status: Int, message: String, parameter: String? = nil, allow: String? = nil) {
        self.status = status
        self.message = message
        self.parameter = parameter
        if let allow { headers[.allow] = allow }
    }

    /// Maps any error a route throws; what is not the client's fault is a 500 whose body says
    /// only that, never a path or a stack.
    init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as LayoutParameterError:
            self.init(status: 400, message: error.description, parameter: error.parameter)
        case let error as PageError:
            switch error {
            case .noSuchItem: self.init(status: 404, message: error.description, parameter: "item")
            case .layout(.tooManyWindows), .tooManyItems: self.init(status: 422, message: error.description)
            case .layout: self.init(status: 500, message: "internal error") // the parser refused bad configurations already
            }
        case let error as OriginalFile.Problem:
            switch error {
            case .cannotOpen(_, let code):
                // The server's user may not read it (403), or the disk failed (500): not gone.
                self.init(status: code == EACCES || code == EPERM ? 403 : 500, message: error.description)
            case .noSuchItem: self.init(status: 404, message: error.description, parameter: "id")
            default: self.init(status: 404, message: error.description)
            }
        case let problem as ThumbnailProblem:
            switch problem {
            case .noSuchItem: self.init(status: 404, message: problem.description, parameter: "id") // as /api/items/{id}
            case .imported, .gone: self.init(status: 404, message: problem.description)
            case .unusable: self.init(status: 422, message: problem.description)
            case .unsupportedSize: self.init(status: 400, message: problem.description, parameter: "size")
            case .cacheUnwritable: self.init(status: 500, message: "internal error") // not thrown by a route: the thumbnail is sent uncached
            }
        case StoreError.busy:
            self.init(status: 503, message: "the catalog is being written; try again")
        case StoreError.layoutsBusy:
            self.init(status: 503, message: "the catalog's stored layouts are busy; try again")
            headers[.retryAfter] = "1"
        case StoreError.layoutDropped, StoreError.layoutStoredByAnother:
            self.init(status: 503, message: "the layout was dropped or stored again while it was being stored; try again")
            headers[.retryAfter] = "1"
        case StoreError.full:
            // The places stay in the server's log.
            self.init(status: 503, message: "the catalog's disk is full; try again later")
            headers[.retryAfter] = "30"
        case let error as StoreError where error.isFileReplaced:
            // Not "try again": the server keeps the file it opened until it is restarted.
            self.init(status: 503, message: Self.fileReplaced)
        case StoreError.unreachable:
            // The URL and the driver's words stay in the server's log, not in a client's body.
            self.init(status: 503, message: "the catalog's database cannot be reached; try again")
            headers[.retryAfter] = "2"
        default:
            self.init(status: 500, message: "internal error")
        }
    }

    /// What a client hears while the catalog's SQLite file is not the one the server opened.
    static let fileReplaced = "the catalog's file was replaced or removed since the server opened it; the server must be restarted"

    var json: String {
        #"{"error":{"message":\#(PathText.jsonString(message)),"parameter":\#(parameter.map { PathText.jsonString($0) } ?? "null")}}"#
    }

    static func notFound(_ what: String) -> APIError { APIError(status: 404, message: what) }

    /// A route that takes no parameters refuses a query string, as the routes that take some
    /// refuse one they do not know: a typo is said, not ignored.
    static func refuseParameters(_ request: Request) throws {
        // Empty pieces ("?", "?&") are no parameter, as the routes that take some skip them.
        if let first = request.uri.query?.split(separator: "&").first {
            // The error names the first parameter given, as the routes that take some name the one they refuse.
            let name = String(first.prefix { $0 != "=" })
            throw APIError(status: 400, message: "\(request.uri.path) takes no parameters", parameter: name.removingPercentEncoding ?? name)
        }
    }

    var response: Response {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        headers.append(contentsOf: self.headers)
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }
}
