import CatalogKit
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
// `struct stat`'s members (st_ino, st_uid...) are defined, for MemberImportVisibility, by
// Dispatch's C module on Linux: without it the build fails or not depending on how files batch.
import CDispatch
#endif

/// The file of access tokens `catalog serve` accepts: one token per line, optionally followed by
/// `# a note`; blank lines and lines that start with `#` are skipped. `catalog token new` appends
/// to it (creating it with mode 0600); deleting a line revokes its token.
///
/// What the server keeps of a token is an ``AccessToken``: its hashes, never the token itself.
public struct TokenFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Beside the catalog: `photos.sqlite` → `photos.tokens`. A PostgreSQL catalog has no folder:
    /// `$XDG_CONFIG_HOME/catalog/SERVER-PORT-DATABASE.tokens` (else under `~/.config`), the
    /// server and database as libpq reads the URL (`?host=`, `?port=`, `?dbname=` too), the
    /// server left out for the default socket folder and the port (`_p5433`) for 5432. The
    /// server and database keep their small ASCII letters, digits and dots, and write any other byte
    /// as `_` and two hex digits (`-` is `_2d`, `/` is `_2f`): two databases, or two servers,
    /// never share a file, so a token made for one does not open another.
    public static func defaultPath(forCatalog catalogPath: String, environment: [String: String]? = nil) -> String {
        let environment = environment ?? ProcessInfo.processInfo.environment
        guard CatalogLocation.isPostgres(catalogPath) else {
            return URL(fileURLWithPath: catalogPath).deletingPathExtension().appendingPathExtension("tokens").path
        }
        let parts: [String]
        if let (server, port, database) = CatalogLocation.postgresServer(catalogPath) {
            // The port as `_p5433`: no escaped part starts so (`p` is not a hex digit).
            parts = [escapedPart(server ?? ""), port == 5432 ? "" : "_p\(port)", escapedPart(database)]
        } else { // refused when the catalog is opened
            let url = URLComponents(string: catalogPath)
            parts = [escapedPart(url?.host ?? ""), escapedPart(String(url?.path.drop { $0 == "/" } ?? ""))]
        }
        var name = parts.filter { !$0.isEmpty }.joined(separator: "-")
        if name.utf8.count > 200 { // a file name has 255 bytes at most: the start, and a digest of the whole
            let digest = SHA256.hash(data: Data(name.utf8)).prefix(12).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
            name = String(name.prefix(150)) + "-_h" + digest
        }
        return configFolder(environment) + (name.isEmpty ? "postgres" : name) + ".tokens"
    }

    /// Where catalog before 2026-12-01 put a PostgreSQL catalog's token file: after the URL's
    /// host and path alone (so two databases could share one). A hint when the file is missing.
    public static func formerDefaultPath(forCatalog catalogPath: String, environment: [String: String]? = nil) -> String? {
        guard CatalogLocation.isPostgres(catalogPath) else { return nil }
        let url = URLComponents(string: catalogPath)
        let name = [url?.host ?? "", String(url?.path.drop { $0 == "/" } ?? "")].filter { !$0.isEmpty }.joined(separator: "-")
        let safe = String(name.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
        let path = configFolder(environment ?? ProcessInfo.processInfo.environment) + (safe.isEmpty ? "postgres" : safe) + ".tokens"
        return path == defaultPath(forCatalog: catalogPath, environment: environment) ? nil : path
    }

    private static func escapedPart(_ part: String) -> String {
        var out = ""
        for byte in part.utf8 {
            let character = Character(Unicode.Scalar(byte))
            // Not capitals: `Photos` and `photos` are two databases, and one file where the
            // file system ignores case (APFS, NTFS).
            if byte < 0x80, character.isLowercase || character.isNumber || character == "." {
                out.append(character)
            } else {
                out += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return out
    }

    private static func configFolder(_ environment: [String: String]) -> String {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/catalog/"
    }

    /// A new token: `catalog_` and 256 bits from the system's secure random source, base64url.
    public static func newToken() -> String {
        let key = SymmetricKey(size: .bits256) // BoringSSL's RAND_bytes: getrandom(2)
        return "catalog_" + key.withUnsafeBytes { Base64URL.encode(Data($0)) }
    }

    /// A token shorter than this is refused where it is read (a typo, or a password picked by hand).
    public static let minimumLength = 32

    /// Appends a new token with `note`, creating the file (0600) and its folder if missing;
    /// returns the token (the caller prints it once).
    public func appendNewToken(note: String?) throws(AccessError) -> (token: String, entry: AccessToken) {
        let token = Self.newToken()
        let made = ISO8601DateFormatter().string(from: Date())
        let cleanNote = (note ?? "").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        let line = "\(token) # \(cleanNote.isEmpty ? "" : cleanNote + ", ")made \(made)\n"
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = try lockedDescriptor(O_WRONLY | O_CREAT | O_APPEND)
        defer { close(descriptor) } // unlocks
        let written = line.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        guard written == line.utf8.count, fsync(descriptor) == 0 else { throw .unwritable(path, String(cString: strerror(errno))) }
        return (token, AccessToken(token: token, note: String(line.split(separator: "#", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)))
    }

    /// What the file holds now, hashed, with a line of warning per line that was skipped.
    public func read() throws(AccessError) -> (tokens: [AccessToken], warnings: [String]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) { throw isFolder.boolValue ? .folder(path) : .unreadable(path) }
            throw .missing(path)
        }
        var tokens: [AccessToken] = []
        var warnings: [String] = []
        for (number, line) in Self.lines(of: data).enumerated() {
            guard let (token, note) = Self.parse(line) else { continue }
            guard token.utf8.count >= Self.minimumLength else {
                warnings.append("\(path):\(number + 1): a token must be at least \(Self.minimumLength) characters; this line is skipped")
                continue
            }
            tokens.append(AccessToken(token: token, note: note))
        }
        return (tokens, warnings)
    }

    /// Removes the token whose fingerprint starts with `selector` (at least 6 characters) or
    /// whose label is `selector`; a selector that names several tokens is refused, and nothing
    /// removed. The file is replaced in one rename, keeping its owner and mode. Returns the
    /// token removed.
    public func revoke(_ selector: String) throws(AccessError) -> [AccessToken] {
        guard !selector.trimmingCharacters(in: .whitespaces).isEmpty else { throw .noSuchToken(selector, path) }
        guard FileManager.default.fileExists(atPath: path) else { throw .missing(path) }
        let locked = try lockedDescriptor(O_RDONLY) // held until the new file is in place
        defer { close(locked) }
        guard let data = try? FileHandle(fileDescriptor: locked, closeOnDealloc: false).readToEnd() ?? Data() else { throw .unreadable(path) }
        let lines = Self.lines(of: data)
        let entries = lines.map { line in Self.parse(line).map { AccessToken(token: $0.token, note: $0.note) } }
        var tokens: [AccessToken] = [] // the tokens the selector names, each once
        for case let entry? in entries where (selector.count >= 6 && entry.fingerprint.hasPrefix(selector.lowercased())) || entry.label == selector {
            if !tokens.contains(where: { $0.verifier == entry.verifier }) { tokens.append(entry) }
        }
        guard !tokens.isEmpty else { throw .noSuchToken(selector, path) }
        // One token at a time: a label two tokens share, or a short fingerprint, names none. The
        // same token on several lines (two files joined, under other labels) is one token: every
        // line of it goes, or it would still sign in.
        guard tokens.count == 1 else { throw .ambiguous(selector, path, tokens.map(\.fingerprint)) }
        let kept = zip(lines, entries).filter { $0.1?.verifier != tokens[0].verifier }.map(\.0)
        // The new file takes the old one's owner and mode: a server that could read it still can.
        var original = stat()
        guard stat(path, &original) == 0 else { throw .unwritable(path, String(cString: strerror(errno))) }
        // A token file reached through a link is replaced where it is: a rename onto the link
        // would replace the link, and leave the file a server reads as it was.
        let target = realpath(path, nil).map { resolved in defer { free(resolved) }; return String(cString: resolved) } ?? path
        let temporary = target + ".revoking"
        unlink(temporary) // one left by a revoke that died
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unwritable(temporary, String(cString: strerror(errno))) }
        let text = kept.joined(separator: "\n")
        let written = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        let ownerKept = fchown(descriptor, original.st_uid, original.st_gid) == 0 || getuid() != 0
        let moded = fchmod(descriptor, original.st_mode & 0o777) == 0
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == text.utf8.count, ownerKept, moded, synced, rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .unwritable(path, reason)
        }
        return tokens
    }

    /// The file opened with `flags` and locked (flock): `token new` and `revoke` at the same time
    /// take turns, and an append never goes to a file a revoke has just replaced (the lock is
    /// taken again on the new file when the path's inode changed while waiting).
    private func lockedDescriptor(_ flags: Int32) throws(AccessError) -> Int32 {
        while true {
            let descriptor = open(path, flags | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                if errno == EISDIR { throw .folder(path) }
                throw flags & O_CREAT != 0 ? .unwritable(path, String(cString: strerror(errno))) : .unreadable(path)
            }
            var opened = stat()
            var current = stat()
            guard flock(descriptor, LOCK_EX) == 0, fstat(descriptor, &opened) == 0 else {
                close(descriptor)
                throw .unwritable(path, String(cString: strerror(errno)))
            }
            if opened.st_mode & S_IFMT == S_IFDIR { // opened for reading: a folder opens
                close(descriptor)
                throw .folder(path)
            }
            if stat(path, &current) == 0, Int(current.st_ino) == Int(opened.st_ino), Int(current.st_dev) == Int(opened.st_dev) { return descriptor }
            close(descriptor) // replaced while waiting: lock the new one
        }
    }

    /// Whether anyone but the owner may read the file (the server warns: ssh refuses such keys).
    public var isReadableByOthers: Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & 0o077 != 0
    }

    /// A line's token and note, or nil for a blank line or a comment.
    /// The file's lines, ended by LF or CRLF (a file saved on Windows). Not by splitting on "\n":
    /// to Swift, CR LF is one character, which a split on "\n" never meets, and a whole CRLF
    /// file was one line (its first token, with the others in its note, printed by `list`).
    static func lines(of data: Data) -> [Substring] {
        String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    static func parse(_ line: Substring) -> (token: String, note: String)? {
        // A file saved with CRLF too, and with a byte order mark (an editor's "UTF-8 with BOM").
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{FEFF}")))
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let parts = trimmed.split(separator: "#", maxSplits: 1)
        let token = parts[0].split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        return (token, parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
    }
}

/// One token as the server keeps it: its SHA-256 (to compare a presented token with), the key
/// its session cookies are signed with (another hash of it), a fingerprint to name it by, and
/// the note from its line.
public struct AccessToken: Sendable {
    /// The first 12 hex digits of the token's SHA-256: how `catalog token list` and `revoke` name it.
    public let fingerprint: String
    /// The note after `#` on its line.
    public let note: String
    let verifier: [UInt8]
    let sessionKey: SymmetricKey

    init(token: String, note: String) {
        let digest = Array(SHA256.hash(data: Data(token.utf8)))
        verifier = digest
        fingerprint = digest.prefix(6).map { String(format: "%02x", $0) }.joined()
        sessionKey = SymmetricKey(data: SHA256.hash(data: Data(("catalog session key\u{0}" + token).utf8)))
        self.note = note
    }

    /// The note's first part, before `, made ...`: what `revoke` also accepts.
    public var label: String {
        let parts = note.components(separatedBy: ", made ")
        return parts.count > 1 ? parts[0] : (note.hasPrefix("made ") ? "" : note)
    }
}

/// base64url without padding (RFC 4648 §5): tokens and cookie signatures travel in headers.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
