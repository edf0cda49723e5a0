import ArgumentParser
import CatalogKit
import CatalogServer
import Foundation

/// `catalog token new | list | revoke`: the tokens `catalog serve` accepts.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make, list and revoke the access tokens `catalog serve` accepts.",
        discussion: """
            Tokens live in a token file, one per line (`TOKEN # note`), created with mode 0600. Its default place \
            is beside the catalog (photos.sqlite → photos.tokens); --token-file or $CATALOG_TOKEN_FILE name \
            another. A running server reads the file again when it changes: `catalog token revoke` (or deleting \
            the line) shuts a token out at once, and ends the gallery sessions it signed in.
            """,
        subcommands: [New.self, ListTokens.self, Revoke.self])

    static let emptyTokenFile = "--token-file must name a file, got an empty path (an unset shell variable?)"

    struct Location: ParsableArguments {
        @OptionGroup var catalog: CatalogOptions

        @Option(help: ArgumentHelp("The token file (default: $CATALOG_TOKEN_FILE, else beside the catalog; for PostgreSQL, in ~/.config/catalog).", valueName: "path"))
        var tokenFile: String?

        func validate() throws {
            if tokenFile?.isEmpty == true { throw ValidationError(Token.emptyTokenFile) }
        }

        /// The token file; its default for a PostgreSQL URL the other commands refuse is refused
        /// too (it was named after part of the URL, one another server's could share).
        func file() throws -> TokenFile {
            if let path = tokenFile ?? environmentValue("CATALOG_TOKEN_FILE") { return TokenFile(path: path) }
            try CatalogLocation.checkURL(catalog.path)
            return TokenFile(path: TokenFile.defaultPath(forCatalog: catalog.path))
        }
    }

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token (256 random bits), append it to the token file and print it, once.",
            discussion: "The token is the only line on stdout; where it went is said on stderr. Keep it like a password.")

        @OptionGroup var location: Location

        @Option(help: ArgumentHelp("A note kept beside the token (who or what it is for), for `list` and `revoke`.", valueName: "text"))
        var label: String?

        func run() throws {
            let file = try location.file()
            let (token, entry) = try file.appendNewToken(note: label)
            print(token)
            printError("appended to \(file.path) (fingerprint \(entry.fingerprint)); it is not shown again")
            if file.isReadableByOthers { printError("warning: \(file.path) can be read by other users: `chmod 600 \(PathText.shellWord(file.path))`") }
        }
    }

    struct ListTokens: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the token file's tokens by fingerprint and note (never the tokens).")

        @OptionGroup var location: Location

        func run() throws {
            let file = try location.file()
            let (tokens, warnings) = try file.read()
            for warning in warnings { printError("warning: \(warning)") }
            for token in tokens { print("\(token.fingerprint)  \(token.note)") }
            if tokens.isEmpty { printError("no tokens in \(file.path)") }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a token from the token file; a running server refuses it from its next request.")

        @OptionGroup var location: Location

        @Argument(help: ArgumentHelp("The token's fingerprint (its first 6 characters or more) or its label, as `list` shows.",
                                     valueName: "fingerprint-or-label"))
        var selector: String

        func run() throws {
            for token in try location.file().revoke(selector) {
                print("revoked \(token.fingerprint)  \(token.note)")
            }
        }
    }
}
