import CatalogStorePostgres
import Foundation

/// Where the catalog is: `--db`, else `$CATALOG_DB`, else the default file.
public enum CatalogLocation {
    /// Whether `location` names a PostgreSQL catalog (`postgres://`, `postgresql://`) rather than a file.
    public static func isPostgres(_ location: String) -> Bool {
        PostgresLocation.isURL(location)
    }

    /// A PostgreSQL catalog's server and database, as libpq reads the URL: `server` is the TCP
    /// host or the socket's folder (nil for the default folder), `port` and `database` as
    /// resolved (the database defaults to the user's name). Nil for a file, or a URL that
    /// cannot be read.
    public static func postgresServer(_ location: String) -> (server: String?, port: Int, database: String)? {
        guard isPostgres(location), let parsed = try? PostgresLocation(url: location) else { return nil }
        switch parsed.endpoint {
        case .tcp(let host, let port):
            return (host, port, parsed.database)
        case .socket(let path, let port):
            let folder = String(path.dropLast("/.s.PGSQL.\(port)".count))
            return (folder == PostgresLocation.defaultSocketFolder ? nil : folder, port, parsed.database)
        }
    }

    /// Refuses a PostgreSQL URL every command refuses (a password in it, a parameter it does
    /// not know), in their words; any other location passes.
    public static func checkURL(_ location: String) throws(StoreError) {
        if isPostgres(location) { _ = try PostgresLocation(url: location) }
    }

    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["CATALOG_DB"], !path.isEmpty { return path }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/catalog/catalog.sqlite" }
        return (home(environment: environment) ?? "") + "/.local/share/catalog/catalog.sqlite"
    }

    /// `$HOME`, else (unset or empty, as under some service managers and `env -i`) the user's
    /// home folder in the password database; nil when there is neither.
    static func home(environment: [String: String]) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        guard let entry = getpwuid(getuid()), let folder = entry.pointee.pw_dir else { return nil }
        let home = String(cString: folder)
        return home.hasPrefix("/") ? home : nil
    }

    /// Why `explicit` (or `$CATALOG_DB` without it) cannot name a catalog, or nil: an empty
    /// `--db` (an unset shell variable, which must not fall back to the default catalog), or a
    /// URL of a scheme other than PostgreSQL's, which would otherwise be taken for a relative
    /// path and made into folders and a new SQLite file.
    public static func problem(explicit: String?, environment: [String: String]) -> String? {
        if let explicit, explicit.isEmpty {
            return "--db is empty: give a catalog file or a postgres:// URL, or leave --db out for the default catalog"
        }
        if explicit == nil, environment["CATALOG_DB"]?.isEmpty ?? true, !(environment["XDG_DATA_HOME"]?.hasPrefix("/") ?? false),
           home(environment: environment) == nil {
            return "no home folder for the default catalog ($HOME is not set, and this user has none): give --db or set CATALOG_DB"
        }
        let location = resolve(explicit: explicit, environment: environment)
        let source = explicit != nil ? "--db" : "$CATALOG_DB"
        guard let schemeEnd = location.range(of: "://"), !isPostgres(location) else { return nil }
        let scheme = location[..<schemeEnd.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { return nil }
        return "\(source) is a \(scheme):// URL; a catalog is an SQLite file (a path) or a PostgreSQL database "
            + "(postgres:// or postgresql://). A file whose path starts so is ./\(scheme)://..."
    }
}
