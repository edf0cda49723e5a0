import ArgumentParser
import CatalogKit

struct PageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "page",
        abstract: "Print the items a viewport shows at a scroll offset, with their frames.",
        discussion: """
            The first request for a configuration (style, parameters, sort) computes the layout \
            and stores its placements and pagination windows in the catalog; later pages read \
            only the windows and item rows they need. After a scan or import the next page \
            recomputes the layout, or extends it in place when items were only added at the end \
            of the order. Pages read a consistent snapshot, so they never wait for a running scan.
            """)

    @OptionGroup var catalog: CatalogOptions
    @OptionGroup var layout: LayoutOptions

    @Option(parsing: .unconditional, help: LayoutOptions.help(.offset, "Scroll offset of the viewport's top, in points."))
    var offset: String?

    @Option(parsing: .unconditional, help: LayoutOptions.help(.height, "Viewport height in points (one phone screen)."))
    var height: String?

    @Option(parsing: .unconditional, help: LayoutOptions.help(.item, "Scroll to this item: the viewport starts at its top, clamped to the content (instead of --offset)."))
    var item: String?

    @Option(parsing: .unconditional, help: LayoutOptions.help(.rect, "The items whose frames meet this rectangle, instead of a band at --offset.",
                                     valueName: "x,y,w,h"))
    var rect: String?

    @Option(parsing: .unconditional, help: LayoutOptions.help(.anchorY, "With --item: the item's top this far below the viewport's top (a zoom's anchor)."))
    var anchorY: String?

    @Option(parsing: .unconditional, help: LayoutOptions.help(.falloff, "Carousel: the distance from the viewport's centre where items reach --min-scale and --min-alpha."))
    var falloff: String?

    @Option(parsing: .unconditional, help: LayoutOptions.help(.minScale, "Carousel: the scale of items at --falloff and beyond."))
    var minScale: String?

    @Option(parsing: .unconditional, help: LayoutOptions.help(.minAlpha, "Carousel: the opacity of items at --falloff and beyond."))
    var minAlpha: String?

    @Flag(help: "With --sections: the header of the section the viewport starts in is held at its top.")
    var pinHeaders = false

    @Flag(help: "Print one JSON object (with \"source\": whether the layout was stored, computed or extended).")
    var json = false

    func validate() throws {
        _ = try request()
    }

    func request() throws -> PageRequest {
        let page: [(LayoutParameter, String?)] = [(.offset, offset), (.height, height), (.item, item), (.rect, rect),
                                                  (.pinHeaders, pinHeaders ? "true" : nil), (.anchorY, anchorY), (.falloff, falloff),
                                                  (.minScale, minScale), (.minAlpha, minAlpha)]
        let parameters = layout.parameters + page.compactMap { parameter, value in value.map { (parameter.rawValue, $0) } }
        return try LayoutOptions.parse { () throws(LayoutParameterError) in try PageRequest(parameters: parameters) }
    }

    func run() throws {
        let request = try request()
        let page = try catalog.openExisting().page(request)
        if page.itemCount == 0 { printError("the catalog is empty: run `catalog scan FOLDER` or `catalog import FILE` first") }
        if pinHeaders, request.configuration.sections == .none, request.configuration.spanEvery == 0 {
            printError("hint: --pin-headers pins section headers, and this layout has none: give --sections year, month or folder")
        }
        print(json ? PageText.json(page, withSource: true) : PageText.table(page, configuration: request.configuration))
    }
}
