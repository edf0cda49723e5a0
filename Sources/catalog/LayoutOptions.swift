import ArgumentParser
import CatalogKit

/// The layout options `catalog page` and `catalog layout` share. Values are taken as text and
/// parsed by `LayoutConfiguration(parameters:)`, the parser the HTTP API uses too.
struct LayoutOptions: ParsableArguments {
    @Option(help: help(.width, "Width of the layout in points (a phone: 375)."))
    var width: String

    @Option(help: help(.cols, "Number of columns (waterfall, grid; a list has one)."))
    var cols: String?

    @Option(help: help(.spacing, "Space between columns and between items in a column, in points."))
    var spacing: String?

    @Option(help: help(.columnSpacing, "Space between columns (overrides --spacing)."))
    var columnSpacing: String?

    @Option(help: help(.rowSpacing, "Space between items stacked in a column (overrides --spacing)."))
    var rowSpacing: String?

    @Option(help: help(.inset, "Insets: one value for all sides, or top,left,bottom,right.", valueName: "n|t,l,b,r"))
    var inset: String?

    @Option(help: help(.extraHeight, "Points added to every item's height (a caption under the image)."))
    var extraHeight: String?

    @Option(help: help(.direction, "Waterfall fill order: shortest (each item in the shortest column), ltr, or rtl."))
    var direction: String?

    @Option(help: help(.style, "waterfall, grid (square cells), or list (one full-width column)."))
    var style: String?

    @Option(help: help(.sort, "Item order: date (newest first, as `catalog list`) or path."))
    var sort: String?

    /// The options given, by parameter name.
    var parameters: [(name: String, value: String)] {
        let given: [(LayoutParameter, String?)] = [
            (.width, width), (.cols, cols), (.spacing, spacing), (.columnSpacing, columnSpacing), (.rowSpacing, rowSpacing),
            (.inset, inset), (.extraHeight, extraHeight), (.direction, direction), (.style, style), (.sort, sort),
        ]
        return given.compactMap { parameter, value in value.map { (parameter.rawValue, $0) } }
    }

    func validate() throws {
        _ = try configuration()
    }

    func configuration() throws -> LayoutConfiguration {
        try Self.parse { () throws(LayoutParameterError) in try LayoutConfiguration(parameters: parameters) }
    }

    /// Runs a parser; its error becomes a usage error (exit 2) naming the option.
    static func parse<T>(_ body: () throws(LayoutParameterError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ValidationError("--" + error.description)
        }
    }

    static func help(_ parameter: LayoutParameter, _ text: String, valueName: String? = nil) -> ArgumentHelp {
        let value = parameter.defaultValue.map { " Default: \($0)." } ?? ""
        return ArgumentHelp(text + value, discussion: "Takes \(parameter.allowed).", valueName: valueName)
    }
}
