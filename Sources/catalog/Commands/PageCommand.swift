import ArgumentParser
import CatalogKit
import Foundation

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

    @Option(help: "Scroll offset of the viewport's top, in points.")
    var offset = 0.0

    @Option(help: "Viewport height in points (one phone screen: 812).")
    var height = 812.0

    @Option(help: "Scroll to this item: the viewport starts at its top, clamped to the content.")
    var item: Int64?

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard offset.isFinite, offset >= 0 else { throw ValidationError("--offset must be zero or more, got \(offset)") }
        guard height.isFinite, height >= 0 else { throw ValidationError("--height must be zero or more, got \(height)") }
    }

    func run() throws {
        let store = try catalog.openStore()
        let page = try Pager.page(store: store, configuration: try layout.configuration(),
                                  position: item.map(Pager.Position.item) ?? .offset(offset), height: height)
        if page.itemCount == 0 { printError("the catalog is empty: run `catalog scan FOLDER` or `catalog import FILE` first") }
        print(json ? PageText.json(page) : PageText.table(page))
    }
}

/// How a page prints.
enum PageText {
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func json(_ page: Page) -> String {
        func frame(_ r: Rect) -> String {
            #"{"x":\#(number(r.x)),"y":\#(number(r.y)),"width":\#(number(r.width)),"height":\#(number(r.height))}"#
        }
        let items = page.items.map {
            #"{"index":\#($0.index),"id":\#($0.id),"path":\#(PathText.jsonString($0.path)),"column":\#($0.column),"frame":\#(frame($0.frame))}"#
        }
        return #"{"contentHeight":\#(number(page.contentHeight)),"generation":\#(page.generation),"viewport":\#(frame(page.viewport)),"#
            + #""items":[\#(items.joined(separator: ","))],"next":\#(page.next.map(number) ?? "null"),"previous":\#(page.previous.map(number) ?? "null")}"#
    }

    static func table(_ page: Page) -> String {
        var lines = ["content height \(number(page.contentHeight)), viewport y \(number(page.viewport.y)) height \(number(page.viewport.height)) "
            + "width \(number(page.viewport.width)), next \(page.next.map(number) ?? "-"), previous \(page.previous.map(number) ?? "-")"]
        lines.append(["index", "id", "column", "x", "y", "width", "height", "path"].joined(separator: "\t"))
        for item in page.items {
            let f = item.frame
            lines.append(["\(item.index)", "\(item.id)", "\(item.column)", number(f.x), number(f.y), number(f.width), number(f.height),
                          PathText.display(item.path)].joined(separator: "\t"))
        }
        return lines.joined(separator: "\n")
    }
}
