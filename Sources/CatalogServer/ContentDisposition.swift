import Foundation

/// `Content-Disposition: inline` with a file name no client can misread (RFC 6266): a quoted
/// ASCII fallback in which quotes, backslashes, `%` (some clients decode `%XX` there, which
/// Appendix D advises against), control and non-ASCII characters are `_`, and the name in
/// `filename*`, UTF-8 and percent-encoded, with its control characters and the invisible ones
/// that reorder text (bidirectional overrides and marks, line separators) as `_`: a browser's
/// "Save as" showed `photo\u{202E}gpj.exe` as `photoexe.jpg`, as the command line never does.
enum ContentDisposition {
    static func inline(fileName: String) -> String {
        let fileName = String(String.UnicodeScalarView(fileName.unicodeScalars.map { misleads($0) ? "_" : $0 }))
        let fallback = String(fileName.unicodeScalars.map { scalar -> Character in
            (0x20..<0x7F).contains(scalar.value) && scalar != "\"" && scalar != "\\" && scalar != "%" ? Character(scalar) : "_"
        })
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")
        let encoded = fileName.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return #"inline; filename="\#(fallback)"; filename*=UTF-8''\#(encoded)"#
    }

    /// C0 and C1 controls, DEL, the bidirectional marks, embeddings, overrides and isolates,
    /// and the line and paragraph separators.
    private static func misleads(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
