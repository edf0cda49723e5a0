import ArgumentParser
import CatalogKit
import Foundation

struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Precompute and store a layout (for example each zoom level a client pinches between).",
        discussion: """
            Takes the layout options of `catalog page`. A layout already fresh is reported, not recomputed. A \
            waterfall, grid or list without sections never laid out before is stored while it is computed: "computed \
            in" then includes encoding its windows, and "stored in" is what the store took past the computation. On \
            Linux the layout's large arrays ask the kernel for transparent huge pages (fewer page faults: about a \
            fifth less compute at 10,000,000 items); CATALOG_HUGE_PAGES=0 in the environment turns that off.
            """)

    @OptionGroup var catalog: CatalogOptions
    @OptionGroup var layout: LayoutOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let configuration = try layout.configuration()
        let (stored, source, storeSeconds) = try catalog.openExisting().precompute(configuration)
        let perItem = stored.itemCount > 0 ? Double(stored.bytes) / Double(stored.itemCount) : 0
        if json {
            // The content's size as a page gives it: a carousel's length is its width.
            let size = configuration.contentSize(scrollLength: stored.contentHeight)
            print(#"{"configuration":\#(PathText.jsonString(stored.configuration)),"items":\#(stored.itemCount),"#
                + #""contentHeight":\#(PageText.number(size.height)),"contentWidth":\#(PageText.number(size.width)),"seconds":\#(rounded(stored.computeSeconds, 4)),"#
                + #""storeSeconds":\#(rounded(storeSeconds, 4)),"#
                + #""bytes":\#(stored.bytes),"source":"\#(source.rawValue)","generation":\#(stored.generation)}"#)
        } else {
            print("\(stored.configuration)")
            // A carousel's length runs along x.
            print("\(stored.itemCount) items, content \(configuration.isHorizontal ? "width" : "height") \(PageText.number(stored.contentHeight)) points, "
                + "\(source == .stored ? "already stored" : "\(source.rawValue) in \(rounded(stored.computeSeconds, 3)) s, stored in \(rounded(storeSeconds, 3)) s"), "
                + "\(stored.bytes) bytes stored (\(rounded(perItem, 1)) per item)")
        }
    }
}

struct Layouts: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the stored layouts, drop them, or set how many bytes of them the catalog keeps.",
        discussion: """
            Stored layouts are kept within a budget (1 GiB unless set): storing one past it removes the least \
            recently used others. A dropped layout is computed again on its next page.

              catalog layouts --drop                               every layout
              catalog layouts --drop "waterfall width=375 cols=2"  one (the rest: defaults)
              catalog layouts --budget 256M                        keep at most 256 MiB
            """)

    @OptionGroup var catalog: CatalogOptions

    @Flag(help: "Remove the layout of CONFIGURATION, or every stored layout without one.")
    var drop = false

    @Argument(help: ArgumentHelp("With --drop: the configuration as `catalog layouts` lists it.", valueName: "configuration"))
    var configuration: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Bytes of stored layouts to keep: a number with an optional K, M, G or T (powers of 1024).",
                               valueName: "size"))
    var budget: String?

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws {
        if configuration != nil && !drop { throw ValidationError("a configuration is given only with --drop") }
        if let budget, Self.bytes(budget) == nil {
            throw ValidationError("--budget: \"\(budget)\" is not a size; give bytes, or a number with K, M, G or T (256M)")
        }
        _ = try droppedConfiguration() // here, so that a bad one prints this command's usage
    }

    /// The configuration given to --drop, parsed.
    func droppedConfiguration() throws -> LayoutConfiguration? {
        guard let configuration else { return nil }
        do { return try LayoutConfiguration(key: configuration) } catch {
            throw ValidationError("--drop: \(error.description)")
        }
    }

    func run() throws {
        let catalog = try catalog.openExisting()
        if let budget, let bytes = Self.bytes(budget) {
            let before = try catalog.layouts().count
            try catalog.setLayoutBudget(bytes)
            let removed = before - (try catalog.layouts().count)
            print(json ? #"{"budget":\#(bytes),"dropped":\#(removed)}"# : "layout budget \(bytes) bytes; dropped \(removed) layouts")
        }
        if drop {
            if let parsed = try droppedConfiguration() {
                let dropped = try catalog.dropLayout(parsed)
                guard dropped else {
                    printError("Error: no stored layout of \(parsed.key)")
                    throw ExitCode(1)
                }
                print(json ? #"{"dropped":1,"configuration":\#(PathText.jsonString(parsed.key))}"# : "dropped \(parsed.key)")
            } else {
                let count = try catalog.dropLayouts()
                print(json ? #"{"dropped":\#(count)}"# : "dropped \(count) layouts")
            }
            return
        }
        guard budget == nil else { return }
        let current = try catalog.generation()
        let layouts = try catalog.layouts()
        for layout in layouts {
            print(json ? StatsText.json(layout, current: current) : StatsText.text(layout, current: current))
        }
        if !json {
            let total = layouts.reduce(0) { $0 + $1.bytes }
            print("\(layouts.count) layouts, \(total) bytes of a \(try catalog.layoutBudget()) byte budget")
        }
    }

    /// "1048576", "512K", "256M", "1G" (powers of 1024), or nil.
    static func bytes(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = text.uppercased()
        var scale: Int64 = 1
        if digits.hasSuffix("B") { digits.removeLast() }
        if let last = digits.last, let unit = units[last] { scale = unit; digits.removeLast() }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int64(digits), value >= 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }
}
