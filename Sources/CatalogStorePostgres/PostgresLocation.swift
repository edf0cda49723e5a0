package import CatalogModel
import Foundation

/// Where a PostgreSQL catalog is: `postgres://USER@HOST:PORT/DB` (or `postgresql://`), read as
/// libpq reads it. A host that is a folder (`%2Fvar%2Frun%2Fpostgresql`, or `?host=/folder`)
/// means the server's Unix socket in it; no host means `/var/run/postgresql`. The user defaults
/// to `$PGUSER`, else the login name; the database to the user's name; the port to 5432. The
/// password comes from `$PGPASSWORD` or `~/.pgpass` (`$PGPASSFILE`), never from the URL, which
/// a process list and a shell history would show.
package struct PostgresLocation: Sendable, Hashable {
    package enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The socket file itself: `<folder>/.s.PGSQL.<port>`.
        case socket(path: String, port: Int)
    }

    /// How a TCP connection notices a server that a network cut off without a word (a
    /// partition, a NAT or firewall that forgot the connection, a machine gone): libpq's URL
    /// parameters of the same names. A connection silent for `idle` seconds is probed every
    /// `interval` seconds, and one whose data or probes go unanswered for `userTimeout`
    /// milliseconds is dropped, which fails what waits on it: a scan exits with "cannot reach",
    /// a server answers 503 and connects again. About a minute by default (libpq's default is
    /// the system's: two hours before the first probe). A server that is slow, or stopped with
    /// SIGSTOP, still answers the probes from its kernel and is waited for.
    package struct Keepalive: Sendable, Hashable {
        /// `keepalives=0` turns the probes off (and `tcp_user_timeout` still applies).
        package var enabled = true
        package var idle = 30
        package var interval = 10
        package var count = 3
        /// 0: the system's (retransmissions give up after about a quarter of an hour).
        package var userTimeout = 60_000
    }

    package var endpoint: Endpoint
    package var keepalive = Keepalive()
    package var user: String
    package var database: String
    package var password: String?
    /// The URL as the user gave it (it holds no password): what messages name.
    package var display: String
    /// A password file that was not read because others may read it (libpq ignores it too):
    /// a refusal for want of a password names it.
    package var unreadPasswordFile: String?
    /// A password file that was read and had no line for this connection, and the line's first
    /// four fields it would need: what a refusal for want of a password says.
    package var unmatchedPasswordFile: String?

    /// libpq's DEFAULT_PGSOCKET_DIR as Debian builds it.
    package static let defaultSocketFolder = "/var/run/postgresql"

    /// Whether `location` names a PostgreSQL catalog rather than a file.
    package static func isURL(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    package init(url location: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreError) {
        // A message never shows a password given in the URL (before the host or as
        // ?password=), which it refuses.
        var shown = location
        let isPassword = { (item: URLQueryItem) in item.name.lowercased() == "password" }
        if var masked = URLComponents(string: location) {
            let inQuery = masked.queryItems?.contains(where: isPassword) == true
            if masked.percentEncodedPassword != nil || inQuery {
                if masked.percentEncodedPassword != nil { masked.percentEncodedPassword = "***" }
                if inQuery { masked.queryItems = masked.queryItems?.map { isPassword($0) ? URLQueryItem(name: $0.name, value: "***") : $0 } }
                shown = masked.string ?? "postgres://..."
            }
        }
        func refuse(_ reason: String) -> StoreError { .cannotOpen(path: shown, reason: reason) }
        guard Self.isURL(location), let components = URLComponents(string: location) else {
            throw refuse("not a PostgreSQL URL; write postgres://USER@HOST:PORT/DATABASE")
        }
        if components.password != nil || components.queryItems?.contains(where: isPassword) == true {
            throw refuse("the URL holds a password; put it in PGPASSWORD or ~/.pgpass instead (a URL is printed in messages and logs, and a command line is visible to every user)")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let understood = ["host", "port", "user", "dbname", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout"]
        for name in query.keys.sorted() where !understood.contains(name) {
            throw refuse("unknown URL parameter \"\(name)\" (\(understood.dropLast().joined(separator: ", ")) and \(understood.last!) are understood)")
        }
        func number(_ name: String, least: Int, unit: String) throws(StoreError) -> Int? {
            guard let text = query[name] else { return nil }
            guard let value = Int(text), value >= least, value <= Int(Int32.max) else {
                throw refuse("\(name) \"\(text)\" must be a whole number of \(unit), \(least) or more")
            }
            return value
        }
        if let text = query["keepalives"] {
            guard text == "0" || text == "1" else { throw refuse("keepalives \"\(text)\" must be 1 (on) or 0 (off)") }
            keepalive.enabled = text == "1"
        }
        if let value = try number("keepalives_idle", least: 1, unit: "seconds") { keepalive.idle = value }
        if let value = try number("keepalives_interval", least: 1, unit: "seconds") { keepalive.interval = value }
        if let value = try number("keepalives_count", least: 1, unit: "probes") { keepalive.count = value }
        if let value = try number("tcp_user_timeout", least: 0, unit: "milliseconds") { keepalive.userTimeout = value }
        var port = components.port ?? 5432
        if let text = query["port"] {
            guard let value = Int(text) else { throw refuse("port \"\(text)\" is not a number") }
            port = value
        }
        guard (1...65535).contains(port) else { throw refuse("port \(port) is out of range") }
        var host = query["host"] ?? components.percentEncodedHost.flatMap { $0.removingPercentEncoding } ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) } // [::1]: an IPv6 address
        let user = query["user"] ?? components.user.flatMap { $0.removingPercentEncoding }
            ?? environment["PGUSER"] ?? ProcessInfo.processInfo.userName
        var database = query["dbname"] ?? String(components.path.drop { $0 == "/" })
        if database.isEmpty { database = user }
        endpoint = host.isEmpty || host.hasPrefix("/")
            ? .socket(path: (host.isEmpty ? Self.defaultSocketFolder : host) + "/.s.PGSQL.\(port)", port: port)
            : .tcp(host: host, port: port)
        self.user = user
        self.database = database
        display = location
        if let password = environment["PGPASSWORD"], !password.isEmpty {
            self.password = password
        } else {
            let (file, othersMayRead) = Self.passwordFile(environment: environment)
            // As libpq: a socket in the default folder is "localhost" to the file; one in
            // another folder is that folder.
            let fileHost = host.isEmpty || host == Self.defaultSocketFolder ? "localhost" : host
            password = othersMayRead ? nil : file.flatMap {
                Self.password(inPassFile: $0, host: fileHost, port: port, database: database, user: user)
            }
            if othersMayRead {
                unreadPasswordFile = file
            } else if let file, password == nil {
                unmatchedPasswordFile = "\(file) has no line for \(Self.escaped(fileHost)):\(port):\(Self.escaped(database)):\(Self.escaped(user))"
            }
        }
    }

    /// `$PGPASSFILE`, else `~/.pgpass`, if it is there; and whether others than its owner may
    /// read it (libpq ignores such a file, and so does this).
    private static func passwordFile(environment: [String: String]) -> (path: String?, othersMayRead: Bool) {
        let path = environment["PGPASSFILE"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return (nil, false) }
        return (path, permissions & 0o077 != 0)
    }

    /// Why the server's request for a password went unanswered, and what to do.
    package var noPasswordReason: String {
        if let unreadPasswordFile {
            return "the server asks for a password, and \(unreadPasswordFile) was not read because others may read it "
                + "(as libpq, which ignores it too): chmod 600 \(unreadPasswordFile)"
        }
        if let unmatchedPasswordFile {
            return "the server asks for a password, and none was given: \(unmatchedPasswordFile); set PGPASSWORD or add that line"
        }
        return "the server asks for a password, and none was given: set PGPASSWORD or put it in ~/.pgpass (mode 600)"
    }

    /// A field of a password file's line: a colon and a backslash escaped.
    private static func escaped(_ field: String) -> String {
        field.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
    }

    /// The password of the first `host:port:database:user:password` line that matches (`*`
    /// matches anything; `\:` and `\\` are a colon and a backslash), as libpq reads it.
    static func password(inPassFile path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            var fields: [String] = [""]
            var escaped = false
            for character in line {
                if escaped {
                    fields[fields.count - 1].append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":" && fields.count < 5 {
                    fields.append("")
                } else {
                    fields[fields.count - 1].append(character)
                }
            }
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields, wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }
}
