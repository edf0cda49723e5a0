import Foundation
import HTTPTypes
import Hummingbird

/// A JSON response that depends on the catalog: its generation in `X-Catalog-Generation`, and
/// an `ETag` from the generation, when the catalog was made (`made`) and what was asked;
/// `If-None-Match` with that tag gives 304.
enum JSONResponse {
    static let generationHeader = HTTPField.Name("X-Catalog-Generation")!

    static func make(_ body: String, request: Request, generation: Int64?, made: String, tagging what: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let generation {
            headers[generationHeader] = String(generation)
            headers[.cacheControl] = "no-cache" // revalidate: the catalog may change
            // No tag while the catalog's identity is not known yet (a database that was away at
            // the start): one without it would differ from every other server's for the same
            // response, and could not tell this catalog from another made at its place.
            if !made.isEmpty {
                let tag = "\"g\(generation)-\(hash(made + "\n" + (what ?? request.uri.description)))\""
                headers[.eTag] = tag
                if matches(request.headers[.ifNoneMatch], tag) {
                    return Response(status: .notModified, headers: headers)
                }
            }
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// Whether an If-None-Match (or, `strong`, an If-Match) header names `tag` or is `*`; weak
    /// tags compare by value unless `strong` (RFC 9110 §8.8.3.2). The list's separators may
    /// have spaces and tabs around them.
    static func matches(_ header: String?, _ tag: String, strong: Bool = false) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { candidate in
            let value = candidate.trimmingCharacters(in: [" ", "\t"])
            return value == "*" || value == tag || (!strong && value == "W/" + tag)
        }
    }

    /// FNV-1a of the text, in hex: stable across runs (Swift's Hasher is seeded per process).
    static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return String(hash, radix: 16)
    }
}
