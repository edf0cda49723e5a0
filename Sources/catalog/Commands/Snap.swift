import ArgumentParser
import CatalogKit

struct Snap: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Where a carousel fling should stop so that one item is centred.",
        discussion: """
            Takes the layout options of `catalog page`; --style is carousel, the one style that snaps, and need not be given \
            here (--width is the viewport's width). Without \
            --velocity (or 0): the item whose centre is nearest to --proposed + width / 2 (ties: the lower index); with one, \
            the nearest whose centre is at or beyond that point in the velocity's direction. Prints that item's centre less \
            half the viewport, clamped to the content (UICollectionViewLayout's targetContentOffset).

            A carousel uses --width, --item-height, --spacing (or --column-spacing), --inset and --sort of the options \
            below. It refuses --sections other than none and --span-every other than 0 (a carousel is one row), and \
            checks, then ignores, the others.
            """)

    @OptionGroup var catalog: CatalogOptions
    @OptionGroup var layout: LayoutOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("The offset along x where the fling would stop (within ±10^12 points).", valueName: "x"))
    var proposed: String

    @Option(parsing: .unconditional, help: ArgumentHelp("The fling's velocity in points a millisecond, within ±10^9: positive to the right, negative to the left; only its direction counts. Default: 0.", valueName: "v"))
    var velocity: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        _ = try request()
    }

    func request() throws -> SnapRequest {
        // A carousel unless another style is asked for (and refused): the one style that snaps.
        let style: [(name: String, value: String)] = layout.style == nil ? [("style", "carousel")] : []
        let parameters = style + layout.parameters + [("proposed", proposed)] + (velocity.map { [("velocity", $0)] } ?? [])
        return try LayoutOptions.parse { () throws(LayoutParameterError) in try SnapRequest(parameters: parameters) }
    }

    func run() throws {
        let request = try request()
        let target = try catalog.openExisting().snap(request.configuration, proposed: request.proposed, velocity: request.velocity)
        if json {
            print(PageText.json(target))
        } else if let target {
            // At the row's ends the offset is clamped to the content: the item is as near the centre as it can be.
            let centre = target.item.frame.x + target.item.frame.width / 2
            let placed = abs(centre - (target.offset + request.configuration.width / 2)) < 0.5 ? "centred" : "as near the centre as the row's end lets it"
            print("offset \(PageText.number(target.offset)): item \(target.item.index) (id \(target.item.id)) \(placed), \(PathText.display(target.item.path))")
        } else {
            printError("the catalog is empty: nothing to snap to")
        }
    }
}
