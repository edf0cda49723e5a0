/// The origin of a web address as the gallery's Content-Security-Policy names it: what both
/// stores keep in `web_origins` for imported items.
package enum WebOrigin {
    /// `http://` or `https://` (in any case) and what follows up to the first `/`, `?`, `#` or
    /// `\` (which browsers read as `/` in such an address), lowercased (ASCII letters only, as
    /// SQLite's lower() did), without the `:` of an empty port (the default one); nil for any
    /// other address, and for one whose host and port are longer than `longestAuthority` (no
    /// browser loads it).
    package static func origin(of url: String) -> [UInt8]? {
        var utf8 = Array(url.utf8)
        func hasPrefix(_ scheme: StaticString) -> Bool {
            let count = scheme.utf8CodeUnitCount
            guard utf8.count >= count else { return false }
            return (0..<count).allSatisfy { index in
                let byte = utf8[index]
                return (byte >= 65 && byte <= 90 ? byte + 32 : byte) == scheme.utf8Start[index]
            }
        }
        let start = hasPrefix("https://") ? 8 : hasPrefix("http://") ? 7 : nil
        guard let start else { return nil }
        var end = utf8[start...].firstIndex(where: endsAuthority) ?? utf8.count
        guard end - start <= longestAuthority else { return nil }
        while end > start && utf8[end - 1] == 58 { end -= 1 } // "host:", the default port
        utf8.removeSubrange(end...)
        for index in utf8.indices where utf8[index] >= 65 && utf8[index] <= 90 { utf8[index] += 32 }
        return utf8
    }

    /// A host name is at most 253 bytes; with a user and a port, 300 is ample. PostgreSQL's
    /// index on the origins refuses entries past 2,704 bytes.
    package static let longestAuthority = 300

    /// Whether `origin(of: url)` is `origin`, without making it: `url` starts with `origin`
    /// (lowercased as `origin(of:)` does) and the origin ends there.
    package static func `is`(_ url: String, from origin: [UInt8]) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            guard bytes.count >= origin.count else { return false }
            for index in origin.indices {
                let byte = bytes[index]
                if (byte >= 65 && byte <= 90 ? byte + 32 : byte) != origin[index] { return false }
            }
            // Past it, the colons of an empty port (which `origin(of:)` leaves out), then the end.
            let next = bytes[origin.count...].firstIndex { $0 != 58 } ?? bytes.count
            return next == bytes.count || endsAuthority(bytes[next])
        }
    }

    /// `/`, `?`, `#` or `\`: where an http(s) address's host and port end.
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == 47 || byte == 63 || byte == 35 || byte == 92
    }

    /// The origins of a stream of addresses, as the imports meet them: consecutive addresses
    /// mostly share one, and then comparing their first bytes with it is all they cost.
    package struct Runs {
        private var last: [UInt8] = []

        package init() {}

        /// The origin of `url` when it is not the previous address's; nil when it is, or when
        /// `url` has none.
        package mutating func next(_ url: String) -> [UInt8]? {
            if !last.isEmpty && WebOrigin.is(url, from: last) { return nil }
            guard let origin = WebOrigin.origin(of: url) else { return nil }
            last = origin
            return origin
        }
    }
}
