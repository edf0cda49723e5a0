import Crypto
import Foundation
import Synchronization
#if canImport(Glibc)
import CDispatch // `struct stat`'s members, as in TokenFile.swift
#endif

/// The tokens the server accepts now: the token file's, hashed, read again whenever the file
/// changes (its inode, size or modification time), so that a line deleted revokes a token
/// without a restart. While the file cannot be read (gone, or its mode changed) no token is
/// accepted, and the reason is said once.
final class AccessTokens: Sendable {
    let file: TokenFile
    private let report: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var tokens: [AccessToken] = []
        var identity: [Int] = []
        var reported = ""
    }

    /// `report` gets the warnings a reading gives (never a token).
    init(file: TokenFile, report: @escaping @Sendable (String) -> Void) {
        self.file = file
        self.report = report
        _ = current()
    }

    /// How many tokens the file holds now.
    var count: Int { current().count }

    /// The token a client presented, if the file holds it. Every token is compared, each in
    /// constant time, whatever matches: the time taken says nothing of which byte differed.
    func match(_ presented: String) -> AccessToken? {
        let digest = Array(SHA256.hash(data: Data(presented.utf8)))
        var found: AccessToken?
        for token in current() {
            var difference: UInt8 = 0
            for index in 0..<digest.count { difference |= digest[index] ^ token.verifier[index] }
            if difference == 0 { found = token }
        }
        return found
    }

    /// The token a session names by its fingerprint.
    func token(fingerprint: Substring) -> AccessToken? {
        current().first { $0.fingerprint == fingerprint }
    }

    private func current() -> [AccessToken] {
        var info = stat()
        let identity = stat(file.path, &info) == 0
            ? [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)] : []
        return state.withLock { state in
            guard identity != state.identity else { return state.tokens }
            state.identity = identity
            do {
                let (tokens, warnings) = try file.read()
                state.tokens = tokens
                state.reported = ""
                for warning in warnings { report("warning: \(warning)") }
            } catch {
                state.tokens = [] // a file that cannot be read may be one a token was revoked from: nobody is let in
                let message = "warning: \(error); no token is accepted until it can be read again"
                if message != state.reported { report(message) }
                state.reported = message
            }
            return state.tokens
        }
    }
}
