import Foundation

/// `Content-Disposition: inline` with a file name no client can misread (RFC 6266): a quoted
/// ASCII fallback in which quotes, backslashes, `%` (some clients decode `%XX` there, which
/// Appendix D advises against), control and non-ASCII characters are `_`, and the exact name in
/// `filename*`, UTF-8 and percent-encoded.
enum ContentDisposition {
    static func inline(fileName: String) -> String {
        let fallback = String(fileName.unicodeScalars.map { scalar -> Character in
            (0x20..<0x7F).contains(scalar.value) && scalar != "\"" && scalar != "\\" && scalar != "%" ? Character(scalar) : "_"
        })
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")
        let encoded = fileName.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return #"inline; filename="\#(fallback)"; filename*=UTF-8''\#(encoded)"#
    }
}
