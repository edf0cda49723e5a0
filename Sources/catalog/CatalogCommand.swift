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
            them in a catalog (an SQLite file, or a PostgreSQL database given as --db postgres://...), and lays images \
            out in Pinterest-style waterfall columns.
            """,
        version: "catalog \(Catalog.version)",
        subcommands: [Scan.self, Import.self, List.self, PageCommand.self, Sections.self, Snap.self, Changes.self, LayoutCommand.self, Layouts.self, Cluster.self, Thumbnails.self, Errors.self, Stats.self, Probe.self, Serve.self, Token.self]
    )

    /// Usage errors (bad options, failed validation) exit with 2, other errors with 1; both
    /// print one message on stderr.
    static func main() async {
        reserveStandardDescriptors()
        if let (position, shown) = nonUTF8Argument() {
            // The way round it is the scan's: `probe` reads the files it is given, by name.
            let around = CommandLine.arguments.dropFirst().first == "probe"
                ? "to read a file so named, scan its folder: the names met in a scan may be any bytes, and `catalog list` shows them"
                : "to scan a folder so named, give a folder above it: the names met in a scan may be any bytes"
            printError("Error: argument \(position), \"\(shown)\", is not UTF-8 text, which catalog's arguments must be (\(around))")
            Foundation.exit(2)
        }
        let arguments = CommandLine.arguments.dropFirst()
        // `catalog help NAME` takes a command too (the parser printed the general help, exit 0).
        if let unknown = unknownCommand(arguments.first == "help" ? arguments.dropFirst().first : arguments.first) {
            printError("Error: \(unknown)\nSee 'catalog --help' for the commands.")
            Foundation.exit(2)
        }
        if let unknown = unknownShortOption(arguments) {
            printError("Error: \(unknown)")
            Foundation.exit(2)
        }
        let files = FileLimit.raise()
        guard files >= FileLimit.least else {
            printError("Error: catalog needs at least \(FileLimit.least) open files, and this process may open \(files) (ulimit -n)")
            Foundation.exit(1)
        }
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            finishOutput()
        } catch {
            if exitCode(for: error) == .validationFailure {
                // A mistyped required option (`--widht`) is the option the user must hear of, not
                // the one it leaves missing (the parser names only `--width`).
                let text = fullMessage(for: error)
                if text.hasPrefix("Error: Missing expected argument"), let unknown = unknownLongOption(arguments) {
                    printError((["Error: \(unknown)"] + text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()).joined(separator: "\n"))
                } else {
                    printError(text)
                }
                Foundation.exit(2)
            }
            // --help and --version: printed here rather than by the parser, whose exit skips the
            // check that stdout took them (`catalog --help > /dev/full` exited 0).
            if exitCode(for: error) == .success {
                let text = fullMessage(for: error)
                if !text.isEmpty { print(text) }
                finishOutput()
                Foundation.exit(0)
            }
            // The parser's own exit, but through printError: the message may quote the input.
            // A failure is one line: a line break in what it quotes (a --db path) is written
            // as \n, as paths are elsewhere (it split the line).
            var text = fullMessage(for: error)
            while text.last == "\n" { text.removeLast() }
            if !text.isEmpty { printError(text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")) }
            Foundation.exit(exitCode(for: error).rawValue)
        }
    }
}

extension CatalogCommand {
    /// What is wrong with `first`, the first argument, when it should name a command and names
    /// none (the parser would say "unexpected arguments"); nil for a command, an option, `help`
    /// or nothing.
    static func unknownCommand(_ first: String?) -> String? {
        guard let first, !first.hasPrefix("-"), first != "help" else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(first) else { return nil }
        let guess = nearest(first, among: names).map { "; did you mean '\($0)'?" } ?? ""
        return "unknown command '\(first)'\(guess) (the commands: \(names.joined(separator: ", ")))"
    }

    /// What is wrong with the first argument that looks like letters after one dash and is no
    /// option, before `--`. catalog's only one-dash options are -h and -help; the parser reads
    /// `-dash` as -d -a -s -h and printed help with exit 0, and `-x` made it ask for a root it
    /// had: a path that starts with '-' is the usual way to meet this.
    static func unknownShortOption(_ arguments: ArraySlice<String>) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument != "-h", argument != "-help",
                  let letter = argument.dropFirst().first, letter.isLetter,
                  Double(argument) == nil else { continue } // -inf, -nan: a value, refused by its option
            return "unknown option '\(argument)': catalog's options are long, as --db, but -h; a path that starts with '-' is written ./\(argument), or after --"
        }
        return nil
    }

    /// The first `--option` in `arguments` (before `--`) that the command named first does not
    /// take, with the nearest one it does; nil when there is none.
    static func unknownLongOption(_ arguments: ArraySlice<String>) -> String? {
        guard let name = arguments.first, let command = configuration.subcommands.first(where: { $0._commandName == name }) else { return nil }
        let help = helpMessage(for: command, includeHidden: true, columns: 10_000)
        let known = Set(help.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).filter { $0.hasPrefix("--") }.map(String.init))
        for argument in arguments.dropFirst() {
            if argument == "--" { return nil }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let option = String(argument.prefix { $0 != "=" })
            if known.contains(option) { continue }
            let guess = nearest(option, among: known).map { " Did you mean '\($0)'?" } ?? ""
            return "Unknown option '\(option)'.\(guess)"
        }
        return nil
    }

    /// The first argument that is not valid UTF-8, by its position and with its bytes escaped.
    /// `CommandLine.arguments` repairs such bytes to U+FFFD, so `scan` would look for a folder
    /// that is not there and say it does not exist.
    static func nonUTF8Argument() -> (Int, String)? {
        for position in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[position] else { continue }
            let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument)).bindMemory(to: UInt8.self)
            if String(validating: bytes, as: UTF8.self) == nil { return (position, PathText.display(bytes)) }
        }
        return nil
    }

    /// The name in `names` nearest to `word`, if it is at most two edits away (the first by name
    /// of those as near): what a mistyped command or option most likely meant.
    static func nearest(_ word: String, among names: some Sequence<String>) -> String? {
        let best = names.map { (name: $0, distance: editDistance($0, word)) }.min { ($0.distance, $0.name) < ($1.distance, $1.name) }
        return best.flatMap { $0.distance <= 2 ? $0.name : nil }
    }

    /// Levenshtein distance, by characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
