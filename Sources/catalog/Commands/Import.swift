public import ArgumentParser
import CatalogKit

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add or update items whose images are not local files.",
        discussion: """
            Reads CSV (with a header row) or NDJSON (one JSON object per line). Fields: key \
            (required, unique), width and height (required, whole numbers from 1 to 16777216), orientation \
            (1-8, default 1), date (ISO 8601), url, title; other fields are ignored. Items are \
            upserted by key: a row that leaves its item as it was counts as unchanged, and an \
            import that adds and updates nothing leaves the catalog's generation (and its \
            stored layouts) as they were. The first bad line stops the import with its line \
            number, and the catalog is left as it was.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Argument(help: ArgumentHelp("The file to import, or - for standard input.", valueName: "file"))
    var file: String

    @Option(help: "csv or ndjson (default: from the file name, else from the content).")
    var format: ImportParser.Format?

    @Flag(help: "Print the summary as one JSON object on stdout.")
    var json = false

    func run() throws {
        Interruption.announce("nothing of this import was written (an import is one transaction); the catalog is as it was")
        let summary = try Catalog.importItems(from: file, format: format, into: catalog.path)
        if json {
            print(#"{"added":\#(summary.added),"updated":\#(summary.updated),"unchanged":\#(summary.unchanged),"generation":\#(summary.generation)}"#)
        } else {
            print("added \(summary.added), updated \(summary.updated), unchanged \(summary.unchanged)")
        }
    }
}

extension ImportParser.Format: ExpressibleByArgument {}
