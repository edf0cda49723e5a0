public import CatalogLayout
public import CatalogModel

/// Everything that decides a layout: its style, the style's parameters, and the item order.
/// Its `key` names the stored layout. Build it from parameters with
/// `init(parameters:)` (which validates every value) or `init(key:)`.
public struct LayoutConfiguration: Sendable, Hashable {
    public enum Style: String, Sendable, CaseIterable {
        case waterfall
        case grid
        case list
    }

    public var style: Style = .waterfall
    public var width: Double
    public var columns = 2
    public var columnSpacing = 8.0
    public var rowSpacing = 8.0
    public var insets = Insets(all: 8)
    public var extraHeight = 0.0
    public var direction = RenderDirection.shortestFirst
    public var order = ItemOrder.date
    public var windowHeight = 2048.0

    public init(width: Double) {
        self.width = width
    }

    /// The canonical text of the configuration: equal configurations have equal keys.
    public var key: String {
        let i = insets
        var parts = ["\(style.rawValue)", "width=\(width)"]
        switch style {
        case .waterfall:
            parts += ["cols=\(columns)", "column-spacing=\(columnSpacing)", "row-spacing=\(rowSpacing)",
                      "extra-height=\(extraHeight)", "direction=\(direction.rawValue)"]
        case .grid:
            parts += ["cols=\(columns)", "column-spacing=\(columnSpacing)", "row-spacing=\(rowSpacing)", "cell=width"]
        case .list:
            parts += ["row-spacing=\(rowSpacing)", "extra-height=\(extraHeight)"]
        }
        parts += ["inset=\(i.top),\(i.left),\(i.bottom),\(i.right)", "sort=\(order.rawValue)", "window=\(windowHeight)"]
        return parts.joined(separator: " ")
    }

    /// Checks the parameters; the error says which one and why.
    public func validate() throws(LayoutError) {
        _ = try geometry()
    }

    func geometry() throws(LayoutError) -> ColumnGeometry {
        switch style {
        case .waterfall: try waterfall.makeGeometry()
        case .grid: try grid.makeGeometry()
        case .list: try list.makeGeometry()
        }
    }

    var waterfall: WaterfallLayout {
        WaterfallLayout(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets,
                        extraHeight: extraHeight, direction: direction)
    }

    var grid: GridLayout {
        GridLayout(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets, cellHeight: .ratio(1))
    }

    var list: ListLayout {
        ListLayout(width: width, rowSpacing: rowSpacing, insets: insets, rowHeight: .aspectRatio(extra: extraHeight))
    }

    /// Lays out `items` from scratch.
    func compute(_ items: [LayoutItem]) throws(LayoutError) -> PlacementTable {
        switch style {
        case .waterfall: try Layout(items: items, style: waterfall, windowHeight: windowHeight).table
        case .grid: try Layout(items: items, style: grid, windowHeight: windowHeight).table
        case .list: try Layout(items: items, style: list, windowHeight: windowHeight).table
        }
    }

    /// Places `items` after those of `table` (a stored layout of this configuration).
    func extend(_ table: PlacementTable, with items: [LayoutItem]) throws(LayoutError) -> PlacementTable {
        func extended<Style: LayoutStyle>(_ style: Style) throws(LayoutError) -> PlacementTable {
            var layout = try Layout(table: table, style: style)
            try layout.append(items)
            return layout.table
        }
        switch style {
        case .waterfall: return try extended(waterfall)
        case .grid: return try extended(grid)
        case .list: return try extended(list)
        }
    }
}
