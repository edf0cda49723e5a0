import ArgumentParser
import CatalogKit
import Foundation

/// The layout options `catalog page` and `catalog layout` share. Values are taken as text and
/// parsed by `LayoutConfiguration(parameters:)`, the parser the HTTP API uses too.
struct LayoutOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: help(.width, "Width of the layout in points (a phone: 375)."))
    var width: String

    @Option(parsing: .unconditional, help: help(.cols, "Number of columns (waterfall, grid; a list has one)."))
    var cols: String?

    @Option(parsing: .unconditional, help: help(.spacing, "Space between columns and between items in a column, in points."))
    var spacing: String?

    @Option(parsing: .unconditional, help: help(.columnSpacing, "Space between columns (overrides --spacing)."))
    var columnSpacing: String?

    @Option(parsing: .unconditional, help: help(.rowSpacing, "Space between items stacked in a column (overrides --spacing)."))
    var rowSpacing: String?

    @Option(parsing: .unconditional, help: help(.inset, "Insets: one value for all sides, or top,left,bottom,right.", valueName: "n|t,l,b,r"))
    var inset: String?

    @Option(parsing: .unconditional, help: help(.extraHeight, "Points added to every item's height (a caption under the image)."))
    var extraHeight: String?

    @Option(parsing: .unconditional, help: help(.direction, "Waterfall fill order: shortest (each item in the shortest column), ltr, or rtl."))
    var direction: String?

    @Option(parsing: .unconditional, help: help(.style, """
        waterfall, grid (square cells), list (one full-width column), mixed (square cells in 3 columns, every 4th item \
        across the width: defaults cols 3, column spacing 8, row spacing 20, inset 16,16,20,16, span every 4, span height 112), \
        justified (rows of about --row-height filling the width), or carousel (one row of --item-height scrolling sideways: \
        --width is then the viewport's width, and in `catalog page` --offset and --height its x and height).
        """, defaultText: "waterfall (in `catalog snap`: carousel, the one style it takes)"))
    var style: String?

    @Option(parsing: .unconditional, help: help(.rowHeight, "Justified rows' target height."))
    var rowHeight: String?

    @Option(parsing: .unconditional, help: help(.itemHeight, "The carousel's item height."))
    var itemHeight: String?

    @Option(parsing: .unconditional, help: help(.sort, "Item order: date (newest first, as `catalog list`) or path."))
    var sort: String?

    @Option(parsing: .unconditional, help: help(.sections, "Sections of consecutive items with the same year, month (YYYY-MM) or parent folder."))
    var sections: String?

    @Option(parsing: .unconditional, help: help(.headerHeight, "Height of each section's header (0: none); with --sections."))
    var headerHeight: String?

    @Option(parsing: .unconditional, help: help(.footerHeight, "Height of each section's footer (0: none); with --sections."))
    var footerHeight: String?

    @Option(parsing: .unconditional, help: help(.sectionSpacing, "Space between a section's end and the next one's top; with --sections."))
    var sectionSpacing: String?

    @Option(parsing: .unconditional, help: help(.spanEvery, "Items at 0, N, 2N... of each section span the full width (0: none)."))
    var spanEvery: String?

    @Option(parsing: .unconditional, help: help(.spanHeight, "A full-span item's height, or auto: from its aspect ratio at full width (plus --extra-height)."))
    var spanHeight: String?

    /// The options given, by parameter name.
    var parameters: [(name: String, value: String)] {
        let given: [(LayoutParameter, String?)] = [
            (.width, width), (.cols, cols), (.spacing, spacing), (.columnSpacing, columnSpacing), (.rowSpacing, rowSpacing),
            (.inset, inset), (.extraHeight, extraHeight), (.direction, direction), (.style, style), (.sort, sort),
            (.sections, sections), (.headerHeight, headerHeight), (.footerHeight, footerHeight), (.sectionSpacing, sectionSpacing),
            (.spanEvery, spanEvery), (.spanHeight, spanHeight), (.rowHeight, rowHeight), (.itemHeight, itemHeight),
        ]
        return given.compactMap { parameter, value in value.map { (parameter.rawValue, $0) } }
    }

    func validate() throws {
        _ = try configuration()
    }

    func configuration() throws -> LayoutConfiguration {
        try Self.parse { () throws(LayoutParameterError) in try LayoutConfiguration(parameters: parameters) }
    }

    /// Runs a parser; its error becomes a usage error (exit 2) naming the option. Options take
    /// any text as their value, so that a negative number reaches the parser and is refused with
    /// its range; an option given as the value means the value is missing.
    static func parse<T>(_ body: () throws(LayoutParameterError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            if error.value.hasPrefix("--"), error.value.dropFirst(2).first?.isLetter == true {
                throw ValidationError("Missing value for '--\(error.parameter)' (the next argument, \(error.value), is an option)")
            }
            throw ValidationError("--" + asOptions(error.description))
        }
    }

    static func help(_ parameter: LayoutParameter, _ text: String, valueName: String? = nil, defaultText: String? = nil) -> ArgumentHelp {
        let value = (defaultText ?? parameter.defaultValue).map { " Default: \($0)." } ?? ""
        return ArgumentHelp(text + value, discussion: "Takes \(asOptions(parameter.allowed)).", valueName: valueName)
    }

    /// The other parameters a text names, as this command line's options: "with item" is the
    /// API's words, "with --item" the command line's.
    static func asOptions(_ text: String) -> String {
        text.replacingOccurrences(of: "without offset, height or item", with: "without --offset, --height or --item")
            .replacingOccurrences(of: "given with item", with: "given with --item")
            .replacingOccurrences(of: ", with item", with: ", with --item")
            .replacingOccurrences(of: "given without offset:", with: "given without --offset:")
            .replacingOccurrences(of: "given without height:", with: "given without --height:")
            .replacingOccurrences(of: "given without item:", with: "given without --item:")
    }
}
