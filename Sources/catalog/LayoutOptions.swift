public import ArgumentParser
import CatalogKit
import Foundation

/// The layout options `catalog page` and `catalog layout` share.
struct LayoutOptions: ParsableArguments {
    @Option(help: "Width of the layout in points (a phone: 375).")
    var width: Double

    @Option(help: "Number of columns (waterfall, grid).")
    var cols = 2

    @Option(help: "Space between columns and between items in a column, in points.")
    var spacing = 8.0

    @Option(help: "Space between columns (overrides --spacing).")
    var columnSpacing: Double?

    @Option(help: "Space between items stacked in a column (overrides --spacing).")
    var rowSpacing: Double?

    @Option(help: ArgumentHelp("Insets: one value for all sides, or top,left,bottom,right.", valueName: "n|t,l,b,r"))
    var inset = "8"

    @Option(help: "Points added to every item's height (a caption under the image).")
    var extraHeight = 0.0

    @Option(help: "Waterfall fill order: shortest (each item in the shortest column), ltr, or rtl.")
    var direction: RenderDirection = .shortestFirst

    @Option(help: "waterfall, grid (square cells), or list (one full-width column).")
    var style: LayoutConfiguration.Style = .waterfall

    @Option(help: "Item order: date (newest first, as `catalog list`) or path.")
    var sort: ItemOrder = .date

    func validate() throws {
        guard width.isFinite, width > 0 else { throw ValidationError("--width must be a positive number of points, got \(width)") }
        guard cols >= 1 else { throw ValidationError("--cols must be at least 1, got \(cols)") }
        for (name, value) in [("--spacing", spacing), ("--column-spacing", columnSpacing ?? 0), ("--row-spacing", rowSpacing ?? 0),
                              ("--extra-height", extraHeight)] where !(value.isFinite && value >= 0) {
            throw ValidationError("\(name) must be zero or more, got \(value)")
        }
        let configuration = try self.configuration()
        do {
            try configuration.validate()
        } catch .noRoomForColumns(_, let columns, _) {
            throw ValidationError("--cols \(columns) is too many for --width \(width): with these insets and spacings a column would have no width")
        } catch {
            throw ValidationError(error.description)
        }
    }

    func configuration() throws -> LayoutConfiguration {
        var configuration = LayoutConfiguration(width: width)
        configuration.style = style
        configuration.columns = style == .list ? 1 : cols
        configuration.columnSpacing = columnSpacing ?? spacing
        configuration.rowSpacing = rowSpacing ?? spacing
        configuration.insets = try Self.parseInsets(inset)
        configuration.extraHeight = extraHeight
        configuration.direction = direction
        configuration.order = sort
        return configuration
    }

    static func parseInsets(_ text: String) throws -> Insets {
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard values.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 }), values.count == 1 || values.count == 4 else {
            throw ValidationError("--inset takes one number or four (top,left,bottom,right), each zero or more; got \"\(text)\"")
        }
        let v = values.map { $0! }
        return v.count == 1 ? Insets(all: v[0]) : Insets(top: v[0], left: v[1], bottom: v[2], right: v[3])
    }
}

extension RenderDirection: ExpressibleByArgument {}
extension LayoutConfiguration.Style: ExpressibleByArgument {}
