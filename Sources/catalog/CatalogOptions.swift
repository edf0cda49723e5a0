import ArgumentParser
import CatalogKit
import Foundation

/// The options every catalog command shares.
struct CatalogOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The catalog file.",
        discussion: "Default: $CATALOG_DB, else $XDG_DATA_HOME/catalog/catalog.sqlite, else ~/.local/share/catalog/catalog.sqlite.",
        valueName: "path"))
    var db: String?

    var path: String { CatalogLocation.resolve(explicit: db, environment: ProcessInfo.processInfo.environment) }

    func open() throws -> Catalog {
        try Catalog.open(at: path)
    }
}
