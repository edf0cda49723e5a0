import Crypto
import Foundation

/// The gallery's session: a cookie `catalog_session=v1.FINGERPRINT.EXPIRES.MAC`, where the MAC is
/// an HMAC-SHA256 of the rest under a key derived from the token that signed in. Nothing is kept
/// on the server: a restart keeps sessions, and revoking the token ends its sessions at once.
struct SessionCookie: Sendable {
    static let name = "catalog_session"

    /// How long a session lasts.
    var lifetime: Duration
    /// Adds `Secure` (when the public address is https).
    var secure: Bool

    /// The `Set-Cookie` value that signs `token` in until now + lifetime.
    func make(for token: AccessToken, now: Date = Date()) -> String {
        let expires = Int64(now.timeIntervalSince1970) + lifetime.components.seconds
        let payload = "v1.\(token.fingerprint).\(expires)"
        let mac = Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: token.sessionKey)))
        return "\(Self.name)=\(payload).\(mac); \(attributes(maxAge: lifetime.components.seconds))"
    }

    /// The `Set-Cookie` value that ends the session in the browser.
    var cleared: String { "\(Self.name)=; \(attributes(maxAge: 0))" }

    private func attributes(maxAge: Int64) -> String {
        "Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    enum Verdict {
        case valid(AccessToken)
        /// Expired, or its token was revoked: the browser should sign in again.
        case stale
        /// A signature that does not match a token's key: a forgery (counted as a failure).
        case forged
    }

    /// Checks the session in a `Cookie` header, if it has one. A session that would outlast
    /// this server's lifetime from now (made while `--session-days` was longer) is stale: a
    /// shorter lifetime holds for the sessions that exist too.
    /// A browser may send two cookies of that name (another path's or domain's): the session is
    /// the first valid one, else forged if any is (counted a failure: a stale one beside each
    /// guess would hide the guesses), else stale (a valid session was refused, and counted a
    /// failure, behind another's).
    func verify(cookieHeader: String?, tokens: AccessTokens, now: Date = Date()) -> Verdict? {
        let verdicts = Self.values(in: cookieHeader).map { verify(value: $0, tokens: tokens, now: now) }
        guard !verdicts.isEmpty else { return nil }
        for verdict in verdicts { if case .valid = verdict { return verdict } }
        return verdicts.contains { if case .forged = $0 { true } else { false } } ? .forged : .stale
    }

    private func verify(value: Substring, tokens: AccessTokens, now: Date) -> Verdict {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        // The MAC as this server writes it, byte for byte: base64url's decoder ignores the
        // unused bits of the last character, so that several strings passed for one signature.
        guard parts.count == 4, parts[0] == "v1", let expires = Int64(parts[2]), let mac = Base64URL.decode(parts[3]),
              Base64URL.encode(mac) == parts[3] else { return .forged }
        guard let token = tokens.token(fingerprint: parts[1]) else { return .stale }
        let payload = Data(parts[0...2].joined(separator: ".").utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: token.sessionKey) else { return .forged }
        let seconds = Int64(now.timeIntervalSince1970)
        return expires > seconds && expires <= seconds + lifetime.components.seconds ? .valid(token) : .stale
    }

    /// Every value of the session cookie among a `Cookie` header's pairs, in order.
    static func values(in header: String?) -> [Substring] {
        guard let header else { return [] }
        return header.split(separator: ";").compactMap { pair in
            let trimmed = pair.drop { $0 == " " }
            return trimmed.hasPrefix(name + "=") ? trimmed.dropFirst(name.count + 1) : nil
        }
    }
}
