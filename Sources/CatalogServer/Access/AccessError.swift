import CatalogKit
import Foundation

/// What can go wrong with a token file, in words a user can act on.
public enum AccessError: Error, Sendable, CustomStringConvertible {
    case missing(String)
    case unreadable(String)
    /// The path is a folder's.
    case folder(String)
    case unwritable(String, String)
    case noSuchToken(String, String)
    /// The selector names several tokens: their fingerprints.
    case ambiguous(String, String, [String])

    public var description: String {
        switch self {
        case .missing(let path):
            "there is no token file at \(path): make a token with `catalog token new --token-file \(PathText.shellWord(path))`"
        case .unreadable(let path):
            "cannot read the token file \(path): check its owner and mode (it should be 0600, the server's user's)"
        case .folder(let path):
            "the token file \(path) is a folder: give the path of a file, such as \((path as NSString).appendingPathComponent("catalog.tokens"))"
        case .unwritable(let path, let reason):
            "cannot write the token file \(path): \(reason)"
        case .noSuchToken(let selector, let path):
            "no token in \(path) has the fingerprint or label \"\(selector)\" (see `catalog token list`)"
                + (selector.count < 6 && selector.allSatisfy(\.isHexDigit) ? "; a fingerprint is 6 characters or more" : "")
        case .ambiguous(let selector, let path, let fingerprints):
            "\"\(selector)\" names \(fingerprints.count) tokens in \(path) (\(fingerprints.joined(separator: ", "))): "
                + "revoke each by its fingerprint; nothing was revoked"
        }
    }
}
