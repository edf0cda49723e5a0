import ArgumentParser
import CatalogKit

struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Precompute and store a layout (for example each zoom level a client pinches between).",
        discussion: "Takes the layout options of `catalog page`. A layout already fresh is reported, not recomputed.")

    @OptionGroup var catalog: CatalogOptions
    @OptionGroup var layout: LayoutOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let (stored, source) = try catalog.open().precompute(try layout.configuration())
        let perItem = stored.itemCount > 0 ? Double(stored.bytes) / Double(stored.itemCount) : 0
        if json {
            print(#"{"configuration":\#(PathText.jsonString(stored.configuration)),"items":\#(stored.itemCount),"#
                + #""contentHeight":\#(PageText.number(stored.contentHeight)),"seconds":\#(rounded(stored.computeSeconds, 4)),"#
                + #""bytes":\#(stored.bytes),"source":"\#(source.rawValue)","generation":\#(stored.generation)}"#)
        } else {
            print("\(stored.configuration)")
            print("\(stored.itemCount) items, content height \(PageText.number(stored.contentHeight)) points, "
                + "\(source == .stored ? "already stored" : "\(source.rawValue) in \(rounded(stored.computeSeconds, 3)) s"), "
                + "\(stored.bytes) bytes stored (\(rounded(perItem, 1)) per item)")
        }
    }
}

struct Layouts: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the stored layouts, or drop them.")

    @OptionGroup var catalog: CatalogOptions

    @Flag(help: "Remove every stored layout (they are recomputed on the next page).")
    var drop = false

    @Flag(help: "One JSON object per line.")
    var json = false

    func run() throws {
        let catalog = try catalog.open()
        if drop {
            let count = try catalog.dropLayouts()
            print(json ? #"{"dropped":\#(count)}"# : "dropped \(count) layouts")
            return
        }
        let current = try catalog.generation()
        for layout in try catalog.layouts() {
            print(json ? StatsText.json(layout, current: current) : StatsText.text(layout, current: current))
        }
    }
}
