/// Parts of a path given as text, without Foundation's `NSString.deletingLastPathComponent`,
/// which stops the process on a one-character path ("g": `--db g`) in swift-corelibs-foundation.
package enum FilePath {
    /// The folder that holds `path`: "" for a bare name ("g", "a.sqlite"), "/" for one in the
    /// root, else everything before the last "/" (trailing slashes left out first), as
    /// `deletingLastPathComponent` answers where it does not crash.
    package static func folder(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }
}
