/// Paths given as text: their folder (without Foundation's `NSString.deletingLastPathComponent`,
/// which stops the process on a one-character path, "g": `--db g`), and as a word of a shell command.
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

    /// `text` as one word of a POSIX shell command a user pastes: as it is when every character
    /// is one no shell treats specially, else in single quotes (a `'` as `'\''`).
    package static func shellWord(_ text: String) -> String {
        let plain = !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || Array("@%+=:,./_-".utf8).contains(byte)
        }
        return plain ? text : "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
