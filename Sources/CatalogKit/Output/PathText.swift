/// How path bytes are shown. Paths are bytes, not strings: a name that is not valid UTF-8 must
/// still print, and two different paths must never print the same.
public enum PathText {
    /// For terminals: valid UTF-8 as is, other bytes as `\xNN`.
    public static func display(_ bytes: some Collection<UInt8>) -> String {
        decode(bytes) { "\\x" + hex($0) }
    }

    /// For JSON (without the quotes): valid UTF-8 is escaped as JSON requires, and every byte
    /// that is not part of valid UTF-8 becomes `\udcNN` (U+DC80 to U+DCFF, the "surrogateescape"
    /// convention of Python's os.fsdecode): no valid UTF-8 text produces those escapes, so
    /// different paths never print the same, and `os.fsencode` turns them back into bytes.
    public static func jsonString(_ bytes: some Collection<UInt8>) -> String {
        var out = "\""
        out += decode(bytes, escaping: true) { "\\udc" + hex($0) }
        return out + "\""
    }

    /// JSON string literal for text that is already valid Unicode.
    public static func jsonString(_ text: String) -> String { jsonString(Array(text.utf8)) }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func decode(_ bytes: some Collection<UInt8>, escaping: Bool = false, invalid: (UInt8) -> String) -> String {
        let bytes = Array(bytes)
        var out = ""
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                out += invalid(bytes[index])
                index += 1
                continue
            }
            let scalarText = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            out += escaping ? jsonEscape(scalarText) : scalarText
            index += length
        }
        return out
    }

    private static func jsonEscape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += "\\u00" + hex(UInt8(scalar.value))
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Length of the valid UTF-8 sequence starting at `index`, or 0 (RFC 3629: no overlongs,
    /// no surrogates, nothing above U+10FFFF).
    private static func validSequenceLength(_ b: [UInt8], at i: Int) -> Int {
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
