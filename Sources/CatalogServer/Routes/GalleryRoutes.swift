import CatalogKit
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /`: the web gallery (Assets/gallery/, compiled into the binary), and
/// `GET /gallery/{version}/{file}`: its scripts, styles and icons.
///
/// The page itself is revalidated on every visit (`no-cache`, an ETag); the files it loads sit
/// under a path that names this build's assets (`version`, a hash of all of them), so they are
/// cached for good and a new build's page asks for new URLs. A file asked for under another
/// version is still served, but revalidated.
struct GalleryRoutes {
    let service: CatalogService
    /// With access control on, the page a stranger gets (the sign-in form) names no image origin.
    let access: AccessControl?

    /// The files under Assets/gallery/, by name.
    static let files: [String: String] = EmbeddedAssets.files.reduce(into: [:]) { files, entry in
        if entry.key.hasPrefix("gallery/") { files[String(entry.key.dropFirst("gallery/".count))] = entry.value }
    }

    /// A hash of every gallery file: the path segment that changes when any of them does.
    static let version: String = JSONResponse.hash(files.keys.sorted().map { "\($0)\u{0}\(files[$0]!)" }.joined(separator: "\u{0}"))

    /// index.html with the asset version and what the gallery needs to know of this server
    /// (the layout styles `/api/page` takes, the thumbnail sizes) filled in.
    static let page: String = {
        let styles = LayoutConfiguration.Style.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        let sizes = ThumbnailCache.sizes.map(String.init).joined(separator: ",")
        let configuration = #"{"version":"\#(version)","styles":[\#(styles)],"thumbnailSizes":[\#(sizes)]}"#
        return (files["index.html"] ?? "")
            .replacingOccurrences(of: "{{version}}", with: version)
            .replacingOccurrences(of: "{{configuration}}", with: configuration)
    }()

    static let pageTag = "\"\(JSONResponse.hash(page))\""

    func add(to router: Router<CatalogRequestContext>) {
        router.get("/") { request, _ -> Response in
            let signedIn = access?.authenticates(request) ?? true
            let origins = signedIn ? try await service.webOrigins() : []
            // The tag follows the policy too: a revalidation after new image origins is a 200 that
            // carries the new policy, not a 304 whose headers a cache may not pass on.
            let policy = Self.policy(imageOrigins: origins)
            let tag = "\"\(JSONResponse.hash(Self.pageTag + "\n" + policy))\""
            var response = Self.response(Self.page, type: "text/html; charset=utf-8", tag: tag, cache: "no-cache", request: request)
            response.headers[.contentSecurityPolicy] = policy
            response.headers[.xFrameOptions] = "DENY"
            return response
        }

        router.get("/gallery/{version}/{file}") { request, context -> Response in
            let file = context.parameters.get("file") ?? ""
            guard file != "index.html", let text = Self.files[file], let type = Self.contentType(of: file) else {
                throw APIError(status: 404, message: "no such gallery file: \(file)")
            }
            let current = context.parameters.get("version") == Self.version
            return Self.response(text, type: type, tag: "\"\(JSONResponse.hash(text))\"",
                                 cache: current ? "public, max-age=31536000, immutable" : "no-cache", request: request)
        }
    }

    /// The page's Content-Security-Policy: scripts, styles and requests only to this server;
    /// images from it and from the origins of imported items' web addresses (every http(s)
    /// origin when there are more than the list holds, or when they are not known: nil); no
    /// frames around it, no base, no plugins.
    static func policy(imageOrigins: [String]?) -> String {
        var seen = Set<String>()
        let listed = (imageOrigins ?? []).compactMap(hostSource).filter { seen.insert($0).inserted } // "bücher" and "xn--bcher-kva": once
        let images = (imageOrigins?.count ?? .max) >= CatalogService.webOriginLimit ? ["https:", "http:"] : listed
        return (["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src " + (["'self'"] + images).joined(separator: " "),
                 "connect-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"]).joined(separator: "; ")
    }

    /// An origin as it can stand in a policy: `http(s)://host[:port]`, a host beyond ASCII as
    /// the browser sends it (Punycode), nothing that could end the directive or add another;
    /// nil when it cannot. An IPv6 address (`http://[::1]:8080`) cannot: a host source has no
    /// brackets, and Chromium said the policy held an invalid source at every load.
    static func hostSource(_ origin: String) -> String? {
        guard let scheme = origin.hasPrefix("https://") ? "https://" : origin.hasPrefix("http://") ? "http://" : nil else { return nil }
        let rest = origin.dropFirst(scheme.count)
        guard !rest.isEmpty, let ascii = Punycode.asciiHost(String(rest)) else { return nil }
        let allowed = ascii.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || ".-:".unicodeScalars.contains(scalar))
        }
        // A port is digits; an empty one (kept by catalogs imported before) is the default.
        let parts = ascii.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard allowed, !parts[0].isEmpty, parts.count == 1 || parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return scheme + (parts.count == 2 && parts[1].isEmpty ? String(parts[0]) : ascii)
    }

    static func contentType(of file: String) -> String? {
        switch file.split(separator: ".").last {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "html": "text/html; charset=utf-8"
        default: nil
        }
    }

    static func response(_ text: String, type: String, tag: String, cache: String, request: Request) -> Response {
        let headers: HTTPFields = [.contentType: type, .eTag: tag, .cacheControl: cache, .xContentTypeOptions: "nosniff"]
        if JSONResponse.matches(request.headers[.ifNoneMatch], tag) { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
