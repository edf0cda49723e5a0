import CatalogKit
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /api/items`, `/api/items/{id}`, `/api/items/{id}/original` and `/api/items/{id}/thumbnail`.
struct ItemRoutes {
    let service: CatalogService
    /// Items a listing gives when `limit` is not said.
    static let defaultLimit = 100

    func add(to router: Router<CatalogRequestContext>) {
        router.get("/api/items") { httpRequest, _ -> Response in
            var list = try ListRequest(parameters: PageRequest.parameters(query: httpRequest.uri.query ?? ""),
                                       limitRange: 0...ListRequest.maximumLimit)
            list.limit = list.limit ?? Self.defaultLimit
            let catalog = service.catalog
            let request = list
            // One snapshot; and the identity its tag carries, read (a database made again at the
            // URL is another catalog, whose generations count from 1 again).
            let (listed, identity) = try await service.run { (try catalog.list(request), try catalog.identity()) }
            let body = #"{"items":[\#(listed.items.map(ItemText.json).joined(separator: ","))],"total":\#(listed.total),"#
                + #""offset":\#(list.offset),"limit":\#(list.limit ?? 0),"generation":\#(listed.generation)}"#
            return JSONResponse.make(body, request: httpRequest, generation: listed.generation, made: service.pages.tagged(identity))
        }

        router.get("/api/items/{id}") { request, context -> Response in
            try APIError.refuseParameters(request)
            let id = try Self.id(context)
            let catalog = service.catalog
            // The generation with the identity the tag carries, in one read.
            let (read, item) = try await service.run { (try catalog.generationAndIdentity(), try catalog.item(id: id)) }
            let (generation, identity) = (read.generation, read.identity)
            guard let item else { throw APIError(status: 404, message: "there is no item with id \(id)", parameter: "id") }
            return JSONResponse.make(ItemText.json(item), request: request, generation: generation, made: service.pages.tagged(identity))
        }

        router.get("/api/items/{id}/original") { request, context -> Response in
            try APIError.refuseParameters(request)
            let id = try Self.id(context)
            let catalog = service.catalog
            let file = try await service.run { try catalog.original(ofItem: id) }
            return try await Self.send(file, request: request, service: service)
        }

        router.get("/api/items/{id}/thumbnail") { request, context -> Response in
            let id = try Self.id(context)
            let asked = try ThumbnailRequest(parameters: PageRequest.parameters(query: request.uri.query ?? ""))
            let thumbnail = try await service.thumbnail(item: id, size: asked.size)
            // Cached for good only under a URL that names the file's current version: a changed
            // file gets another URL. Without it, or with an old one, revalidate by the ETag.
            let forever = asked.version == thumbnail.key.version
            let headers: HTTPFields = [.contentType: thumbnail.format.mediaType, .eTag: thumbnail.key.etag,
                                       .cacheControl: forever ? "public, max-age=31536000, immutable" : "no-cache",
                                       .contentLength: String(thumbnail.bytes.count),
                                       .contentDisposition: ContentDisposition.inline(fileName: "\(id)-\(asked.size).\(thumbnail.format.fileExtension)")]
            if let tags = request.headers[.ifNoneMatch], JSONResponse.matches(tags, thumbnail.key.etag) {
                return Response(status: .notModified, headers: headers)
            }
            if request.method == .head { return Response(status: .ok, headers: headers) }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: thumbnail.bytes)))
        }
    }

    static func id(_ context: CatalogRequestContext) throws -> Int64 {
        // Percent-decoded, as the query's values are: `%31` is the same URI as `1` (RFC 3986 §6.2.2.2).
        let raw = context.parameters.get("id") ?? ""
        let text = raw.removingPercentEncoding ?? raw
        guard let id = Int64(text) else {
            throw APIError(status: 400, message: "id must be an item id (a whole number), got \"\(text)\"", parameter: "id")
        }
        return id
    }

    /// The file, whole or one range, with its validators; 304 when the client's copy is current.
    static func send(_ file: OriginalFile, request: Request, service: CatalogService) async throws -> Response {
        var headers: HTTPFields = [.contentType: file.contentType, .eTag: file.etag, .acceptRanges: "bytes",
                                   .lastModified: httpDate(file.modified), .cacheControl: "no-cache",
                                   .contentDisposition: ContentDisposition.inline(fileName: file.fileName)]
        // The preconditions in RFC 9110's order (§13.2.2): If-Match, else If-Unmodified-Since
        // (412: a resumed download must not splice a changed file onto its first part); then
        // If-None-Match, else If-Modified-Since (304).
        if let tags = request.headers[.ifMatch] {
            if !JSONResponse.matches(tags, file.etag, strong: true) {
                throw APIError(status: 412, message: "the file is not the one the client has (If-Match): it changed, or the tag is another file's")
            }
        } else if let since = request.headers[.ifUnmodifiedSince].flatMap(parseHTTPDate), file.modified > since {
            throw APIError(status: 412, message: "the file changed after the client's copy (If-Unmodified-Since)")
        }
        let notModified = if let tags = request.headers[.ifNoneMatch] {
            JSONResponse.matches(tags, file.etag)
        } else if let since = request.headers[.ifModifiedSince].flatMap(parseHTTPDate),
                  since <= Int64(Date().timeIntervalSince1970) || since == file.modified {
            // A date later than now is no copy the client had (RFC 7232 §3.3): ignored, unless it
            // is the file's own Last-Modified, echoed back (a file dated in the future).
            file.modified <= since
        } else {
            false
        }
        if notModified { return Response(status: .notModified, headers: headers) }
        var range = 0..<file.size
        var status = HTTPResponse.Status.ok
        // If-Range: a range of the file the client has (by its tag, or its exact Last-Modified
        // date), or else the whole new file. A date counts only if it is strong (RFC 9110
        // §13.1.5): the file last changed at least a second ago, so no later change shares it.
        let current = request.headers[.ifRange].map { condition in
            condition.hasPrefix("\"") ? condition == file.etag
                : parseHTTPDate(condition) == file.modified && file.modified < Int64(Date().timeIntervalSince1970) - 1
        } ?? true
        let rangeHeader = current ? request.headers[.range] : nil
        let part: Range<Int64>?
        do {
            part = try ByteRange.parse(rangeHeader, size: file.size)
        } catch {
            var refused = error
            refused.headers[.contentRange] = "bytes */\(file.size)"
            throw refused
        }
        if let part {
            range = part
            status = .partialContent
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(file.size)"
        }
        let chosen = range
        headers[.contentLength] = String(chosen.count)
        if request.method == .head { return Response(status: status, headers: headers) } // nothing read
        // Streamed in chunks read on the blocking pool: memory stays bounded whatever the file's size.
        let body = ResponseBody(contentLength: Int(chosen.count)) { writer in
            var offset = chosen.lowerBound
            while offset < chosen.upperBound {
                let part = offset..<min(offset + Self.chunkSize, chosen.upperBound)
                let bytes = try await service.run { try file.read(part) }
                try await writer.write(ByteBuffer(bytes: bytes))
                offset = part.upperBound
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Bytes of an original read and sent at a time: the response writer takes about ten ahead of
    /// a client that reads nothing (at 256 KiB a stalled download held 2.5 MB; BENCHMARKS.md).
    static let chunkSize: Int64 = 64 * 1024

    static func httpDate(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// A date in any of the three forms HTTP recipients must accept (RFC 9110 §5.6.7):
    /// IMF-fixdate, the obsolete RFC 850 form and asctime's; nil for anything else.
    static func parseHTTPDate(_ text: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        // asctime pads a day under 10 with a space: "Sun Nov  6 08:49:37 1994".
        let words = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if format.contains("-yy ") {
                // A two-digit year more than 50 years ahead is in the past century (§5.6.7).
                formatter.twoDigitStartDate = Calendar(identifier: .gregorian).date(byAdding: .year, value: -50, to: Date())
            }
            if let date = formatter.date(from: words) { return Int64(date.timeIntervalSince1970) }
        }
        return nil
    }
}
