/// A Pinterest-style waterfall: C columns of equal width, each item as tall as its aspect
/// ratio makes it at that width, plus an optional caption area.
///
/// ```swift
/// let style = WaterfallLayout(width: 375, columns: 2)
/// let layout = try Layout(items: items, style: style)
/// let visible = layout.items(in: 4000..<4812)
/// ```
public struct WaterfallLayout: LayoutStyle {
    public var width: Double
    public var columns: Int
    public var columnSpacing: Double
    public var rowSpacing: Double
    public var insets: Insets
    /// Added to every item's height: room for a caption under the image.
    public var extraHeight: Double
    public var direction: RenderDirection

    public init(width: Double, columns: Int = 2, columnSpacing: Double = 8, rowSpacing: Double = 8,
                insets: Insets = Insets(all: 8), extraHeight: Double = 0, direction: RenderDirection = .shortestFirst) {
        self.width = width
        self.columns = columns
        self.columnSpacing = columnSpacing
        self.rowSpacing = rowSpacing
        self.insets = insets
        self.extraHeight = extraHeight
        self.direction = direction
    }

    public func makeGeometry() throws(LayoutError) -> ColumnGeometry {
        guard extraHeight.isFinite, extraHeight >= 0 else { throw .invalidSpacing(name: "extra height", value: extraHeight) }
        return try ColumnGeometry(width: width, columns: columns, columnSpacing: columnSpacing,
                                  rowSpacing: rowSpacing, insets: insets)
    }

    public var placement: PlacementRule {
        let column: PlacementRule.Column = switch direction {
        case .shortestFirst: .shortestFirst
        case .leftToRight: .cyclic
        case .rightToLeft: .cyclicReversed
        }
        return PlacementRule(column: column, height: .aspectRatio(extra: extraHeight))
    }
}
