import CatalogModel

/// How path bytes are shown. Paths are bytes, not strings: a name that is not valid UTF-8 must
/// still print, and two different paths must never print the same.
public enum PathText {
    /// For terminals and tab-separated lines: valid UTF-8 as is but for a backslash (`\\`), a
    /// tab, a line break or another control character (`\t`, `\n`, `\r`, `\xNN`), and other bytes
    /// as `\xNN`. Every backslash printed starts an escape, so no two paths print the same, and a
    /// path never splits a line or a column.
    public static func display(_ bytes: some Collection<UInt8>) -> String {
        contiguous(bytes) { text($0, json: false) }
    }

    /// For JSON, a string literal with its quotes: valid UTF-8 is escaped as JSON requires, and
    /// every byte that is not part of valid UTF-8 becomes `\udcNN` (U+DC80 to U+DCFF, the
    /// "surrogateescape" convention of Python's os.fsdecode): no valid UTF-8 text produces those
    /// escapes, so different paths never print the same, and `os.fsencode` turns them back.
    public static func jsonString(_ bytes: some Collection<UInt8>) -> String {
        contiguous(bytes) { text($0, json: true) }
    }

    /// `text` as one word of a POSIX shell command a user pastes: as it is when every character
    /// is one no shell treats specially, else in single quotes (a `'` as `'\''`). A URL's `&`
    /// put the command in the background, and dropped what followed it.
    public static func shellWord(_ text: String) -> String {
        FilePath.shellWord(text)
    }

    /// JSON string literal for text that is already valid Unicode.
    public static func jsonString(_ text: String) -> String {
        var text = text
        return text.withUTF8 { self.text($0, json: true) }
    }

    private static func contiguous(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> String) -> String {
        bytes.withContiguousStorageIfAvailable(body) ?? Array(bytes).withUnsafeBufferPointer(body)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The bytes as text, written into one buffer: runs of valid UTF-8 copied as they are (with
    /// `json`, between quotes and with the escapes JSON requires; without, with backslashes and
    /// control characters escaped), every other byte as `\xNN`, or `\udcNN` with `json`.
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, json: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        func escape(_ prefix: String, _ byte: UInt8) {
            out.append(contentsOf: prefix.utf8)
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 15)])
        }
        if json { out.append(UInt8(ascii: "\"")) }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                // JSON escapes its quote; a terminal line escapes DEL. Both escape backslashes and controls.
                if byte < 0x20 || byte == UInt8(ascii: "\\") || byte == (json ? UInt8(ascii: "\"") : 0x7F) {
                    switch byte {
                    case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                    case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                    case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
                    case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
                    case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
                    default: escape(json ? #"\u00"# : #"\x"#, byte)
                    }
                } else {
                    out.append(byte)
                }
                index += 1
                continue
            }
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                escape(json ? #"\udc"# : #"\x"#, byte)
                index += 1
            } else if let scalar = unprintable(bytes, at: index, length: length) {
                // C1 controls, line and paragraph separators, bidirectional overrides: they
                // split a line or turn the text around it on a terminal. JSON names the scalar;
                // a terminal line shows its bytes, as for any other byte it must not print.
                if json {
                    out.append(contentsOf: #"\u"#.utf8)
                    for shift in [12, 8, 4, 0] { out.append(hexDigits[Int(scalar >> UInt32(shift)) & 15]) }
                } else {
                    for offset in 0..<length { escape(#"\x"#, bytes[index + offset]) }
                }
                index += length
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
                index += length
            }
        }
        if json { out.append(UInt8(ascii: "\"")) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The scalar of the valid `length`-byte sequence at `index` if it is one that must not print
    /// as it is: a C1 control (U+0080 to U+009F), U+2028 or U+2029 (line and paragraph
    /// separators), or a bidirectional embedding, override or isolate (U+202A to U+202E,
    /// U+2066 to U+2069); else nil.
    private static func unprintable(_ b: UnsafeBufferPointer<UInt8>, at i: Int, length: Int) -> UInt32? {
        if length == 2, b[i] == 0xC2, b[i + 1] <= 0x9F { return UInt32(b[i + 1]) }
        guard length == 3, b[i] == 0xE2 else { return nil }
        let scalar = 0x2000 | UInt32(b[i + 1] & 0x3F) << 6 | UInt32(b[i + 2] & 0x3F)
        return (0x2028...0x202E).contains(scalar) || (0x2066...0x2069).contains(scalar) ? scalar : nil
    }

    /// Length of the valid UTF-8 sequence starting at `index`, or 0 (RFC 3629: no overlongs,
    /// no surrogates, nothing above U+10FFFF).
    private static func validSequenceLength(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let first = b[i]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            i + offset < b.count && range.contains(b[i + offset])
        }
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }
}
