import ArgumentParser
import CatalogKit
import Foundation

/// An environment variable's value; nil when it is unset or empty (`CATALOG_TOKEN_FILE= catalog
/// serve` unsets it, as a shell user means).
func environmentValue(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

/// The options every catalog command shares.
struct CatalogOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The catalog: an SQLite file, or a PostgreSQL database as postgres://USER@HOST:PORT/DB.",
        discussion: """
            Default: $CATALOG_DB, else $XDG_DATA_HOME/catalog/catalog.sqlite, else ~/.local/share/catalog/catalog.sqlite. \
            A PostgreSQL password comes from $PGPASSWORD or ~/.pgpass, never from the URL; \
            ?host=/folder reaches a server by its Unix socket.
            """,
        valueName: "path|url"))
    var db: String?

    var path: String { CatalogLocation.resolve(explicit: db, environment: ProcessInfo.processInfo.environment) }

    func validate() throws {
        if let problem = CatalogLocation.problem(explicit: db, environment: ProcessInfo.processInfo.environment) {
            throw ValidationError(problem)
        }
    }

    /// The catalog, created with its folder if it does not exist: for the commands that write it.
    func open() throws -> Catalog {
        try Catalog.open(at: path)
    }

    /// The catalog, which must exist: for the commands that read it (a mistyped --db is an
    /// error, not a new catalog).
    func openExisting() throws -> Catalog {
        try Catalog.openExisting(at: path)
    }
}
