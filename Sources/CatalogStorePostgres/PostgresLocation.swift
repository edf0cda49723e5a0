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

    package var endpoint: Endpoint
    package var user: String
    package var database: String
    package var password: String?
    /// The URL as the user gave it (it holds no password): what messages name.
    package var display: String
    /// A password file that was not read because others may read it (libpq ignores it too):
    /// a refusal for want of a password names it.
    package var unreadPasswordFile: String?

    /// Whether `location` names a PostgreSQL catalog rather than a file.
    package static func isURL(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    package init(url location: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreError) {
        // A message never shows a password given in the URL, which it refuses.
        var shown = location
        if var masked = URLComponents(string: location), masked.percentEncodedPassword != nil {
            masked.percentEncodedPassword = "***"
            shown = masked.string ?? "postgres://..."
        }
        func refuse(_ reason: String) -> StoreError { .cannotOpen(path: shown, reason: reason) }
        guard Self.isURL(location), let components = URLComponents(string: location) else {
            throw refuse("not a PostgreSQL URL; write postgres://USER@HOST:PORT/DATABASE")
        }
        if components.password != nil {
            throw refuse("the URL holds a password; put it in PGPASSWORD or ~/.pgpass instead (a command line is visible to every user)")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        for name in query.keys where !["host", "port", "user", "dbname"].contains(name) {
            throw refuse("unknown URL parameter \"\(name)\" (host, port, user and dbname are understood)")
        }
        var port = components.port ?? 5432
        if let text = query["port"] {
            guard let value = Int(text) else { throw refuse("port \"\(text)\" is not a number") }
            port = value
        }
        guard (1...65535).contains(port) else { throw refuse("port \(port) is out of range") }
        let host = query["host"] ?? components.percentEncodedHost.flatMap { $0.removingPercentEncoding } ?? ""
        let user = query["user"] ?? components.user.flatMap { $0.removingPercentEncoding }
            ?? environment["PGUSER"] ?? ProcessInfo.processInfo.userName
        var database = query["dbname"] ?? String(components.path.drop { $0 == "/" })
        if database.isEmpty { database = user }
        endpoint = host.isEmpty || host.hasPrefix("/")
            ? .socket(path: (host.isEmpty ? "/var/run/postgresql" : host) + "/.s.PGSQL.\(port)", port: port)
            : .tcp(host: host, port: port)
        self.user = user
        self.database = database
        display = location
        if let password = environment["PGPASSWORD"], !password.isEmpty {
            self.password = password
        } else {
            let (file, othersMayRead) = Self.passwordFile(environment: environment)
            password = othersMayRead ? nil : file.flatMap {
                Self.password(inPassFile: $0, host: host.isEmpty || host.hasPrefix("/") ? "localhost" : host, port: port,
                              database: database, user: user)
            }
            if othersMayRead { unreadPasswordFile = file }
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
        return "the server asks for a password, and none was given: set PGPASSWORD or put it in ~/.pgpass (mode 600)"
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
