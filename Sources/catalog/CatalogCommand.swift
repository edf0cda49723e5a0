import ArgumentParser
import CatalogKit
import Foundation

@main
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Index image collections for waterfall galleries.",
        discussion: """
            catalog reads image sizes from JPEG, PNG, WebP, GIF, HEIC and AVIF headers (never decoding pixels), keeps \
            them in an SQLite catalog, and lays images out in Pinterest-style waterfall columns.
            """,
        version: "catalog \(Catalog.version)",
        subcommands: [Scan.self, Import.self, List.self, PageCommand.self, Sections.self, Snap.self, Changes.self, LayoutCommand.self, Layouts.self, Thumbnails.self, Errors.self, Stats.self, Probe.self, Serve.self, Token.self]
    )

    /// Usage errors (bad options, failed validation) exit with 2, other errors with 1; both
    /// print one message on stderr.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
