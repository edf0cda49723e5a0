import CatalogModel

/// What `GET /api/items/{id}/thumbnail` takes: `size` (one of the cache's sizes, 256 when not
/// said) and `v`, the file version a page item carries (optional; when it is the file's current
/// version the response may be cached for good, since the URL changes when the file does).
public struct ThumbnailRequest: Sendable, Hashable {
    public var size = 256
    public var version: String?

    public init(size: Int = 256, version: String? = nil) {
        self.size = size
        self.version = version
    }

    /// Parses `size` and `v`. Errors name the parameter.
    public init(parameters: some Sequence<(name: String, value: String)>) throws(LayoutParameterError) {
        for (name, value) in try LayoutParameterError.once(parameters) {
            switch name {
            case "size":
                // Spaces around it (a `+` in a query string is one) as the layout parameters allow them.
                guard let size = Int(value.trimmed), ThumbnailCache.sizes.contains(size) else {
                    throw LayoutParameterError(parameter: name, value: value,
                                               allowed: "one of \(ThumbnailCache.sizes.map(String.init).joined(separator: ", "))")
                }
                self.size = size
            case "v":
                guard value.count == 16, value.allSatisfy(\.isHexDigit) else {
                    throw LayoutParameterError(parameter: name, value: value, allowed: "16 hex digits, as page items carry")
                }
                version = value.lowercased()
            default:
                throw LayoutParameterError(parameter: name, value: value, allowed: "thumbnail parameters are size, v", problem: .unknown)
            }
        }
    }
}
