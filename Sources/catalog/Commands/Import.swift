import ArgumentParser
import CatalogKit
import Synchronization

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add or update items whose images are not local files.",
        discussion: """
            Reads CSV (with a header row) or NDJSON (one JSON object per line). Fields: key \
            (required, unique), width and height (required, whole numbers from 1 to 16777216), orientation \
            (1-8, default 1), date (ISO 8601), url, title; other columns (or NDJSON fields, \
            matched as written) are ignored, with a warning naming them. Items are upserted by key, a row replacing its item: a field \
            it does not give (no such column, or an empty one) is left empty, the date \
            included (the item then sorts by when it was first imported). A row that leaves its \
            item as it was counts as unchanged, and an \
            import that adds and updates nothing leaves the catalog's generation (and its \
            stored layouts) as they were. The first bad line stops the import with its line \
            number, and the catalog is left as it was.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Argument(help: ArgumentHelp("The file to import, or - for standard input.", valueName: "file"))
    var file: String

    @Option(help: "csv or ndjson (default: from the file name, else from the content).")
    var format: String?

    func validate() throws {
        if let format, ImportParser.Format(rawValue: format) == nil {
            throw ValidationError("--format must be one of \(ImportParser.Format.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(format)\"")
        }
    }

    @Flag(help: "Print the summary as one JSON object on stdout.")
    var json = false

    /// How many ignored columns (or fields) the warning names; it counts the rest.
    static let ignoredNamesShown = 10

    func run() throws {
        let committed = StopFlag() // set at the commit: from then on the import is kept
        let removal = Mutex<(@Sendable () -> Bool)?>(nil) // an import that makes the catalog: what removes it
        Interruption.announce {
            if committed.isStopped { return "the import was written (its transaction had committed); it is kept" }
            if let remove = removal.withLock({ $0 }), remove() {
                return "nothing of this import was written (an import is one transaction), and the catalog it was making is removed"
            }
            return "nothing of this import was written (an import is one transaction); the catalog is as it was"
        }
        let summary = try Catalog.importItems(from: file, format: format.flatMap(ImportParser.Format.init(rawValue:)), into: catalog.path,
                                              removal: { remove in removal.withLock { $0 = remove } }) { committed.stop() }
        Output.written = "the import itself was written (its transaction had committed)"
        if !summary.ignoredColumns.isEmpty {
            // At most the first ten names, each escaped as paths are: a header is the file's own
            // text, and 20,000 columns once made a 189 KB line of warning.
            let shown = summary.ignoredColumns.prefix(Self.ignoredNamesShown)
            var names = shown.map { "\"\(PathText.display(Array($0.utf8)))\"" }.joined(separator: ", ")
            if summary.ignoredColumns.count > shown.count { names += " and \(summary.ignoredColumns.count - shown.count) more" }
            let kind = summary.ignoredAreFields ? "field" : "column"
            printError("warning: ignored \(kind)\(summary.ignoredColumns.count == 1 ? "" : "s") \(names): the \(kind)s read are "
                + "key, width, height, orientation, date, url and title\(summary.ignoredAreFields ? ", as written (small letters)" : ""), "
                + "and a field a row does not give is left empty")
        }
        if json {
            print(#"{"added":\#(summary.added),"updated":\#(summary.updated),"unchanged":\#(summary.unchanged),"generation":\#(summary.generation)}"#)
        } else {
            print("added \(summary.added), updated \(summary.updated), unchanged \(summary.unchanged)")
        }
    }
}

