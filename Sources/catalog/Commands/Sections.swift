import ArgumentParser
import CatalogKit

struct Sections: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sections of a layout: what a date scrubber needs to jump to one.",
        discussion: """
            Takes the layout options of `catalog page` (with --sections year, month or folder, or --span-every). \
            For each section: its index, first item, item count, header y and height, where its items end and its \
            title (the year, the month as YYYY-MM, or the folder). Computes and stores the layout if needed.
            """)

    @OptionGroup var catalog: CatalogOptions
    @OptionGroup var layout: LayoutOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let configuration = try layout.configuration()
        let list = try catalog.openExisting().sections(configuration)
        print(json ? SectionText.json(list) : SectionText.table(list, horizontal: configuration.isHorizontal))
        if configuration.sections == .none && configuration.spanEvery == 0 {
            printError("hint: a layout has sections only with --sections year, month or folder, or --span-every")
        }
    }
}
