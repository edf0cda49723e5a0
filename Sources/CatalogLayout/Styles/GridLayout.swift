/// Rows of equal cells, like `UICollectionViewFlowLayout` with a fixed item size: C columns,
/// every cell as tall as its width times `aspect` (1: squares), or a fixed height.
public struct GridLayout: LayoutStyle {
    /// How tall a cell is.
    public enum CellHeight: Sendable, Hashable {
        /// cell height = cell width × ratio.
        case ratio(Double)
        /// Every cell is this many points tall.
        case fixed(Double)
    }

    public var width: Double
    public var columns: Int
    public var columnSpacing: Double
    public var rowSpacing: Double
    public var insets: Insets
    public var cellHeight: CellHeight

    public init(width: Double, columns: Int = 3, columnSpacing: Double = 8, rowSpacing: Double = 8,
                insets: Insets = Insets(all: 8), cellHeight: CellHeight = .ratio(1)) {
        self.width = width
        self.columns = columns
        self.columnSpacing = columnSpacing
        self.rowSpacing = rowSpacing
        self.insets = insets
        self.cellHeight = cellHeight
    }

    public func makeGeometry() throws(LayoutError) -> ColumnGeometry {
        switch cellHeight {
        case .ratio(let ratio): guard ratio.isFinite, ratio > 0 else { throw .invalidHeight(name: "cell height ratio", value: ratio) }
        case .fixed(let height): guard height.isFinite, height > 0 else { throw .invalidHeight(name: "cell height", value: height) }
        }
        return try ColumnGeometry(width: width, columns: columns, columnSpacing: columnSpacing,
                                  rowSpacing: rowSpacing, insets: insets)
    }

    /// Row-major: item i is in column i mod C, so equal heights keep rows aligned.
    public var placement: PlacementRule {
        switch cellHeight {
        case .ratio(let ratio): PlacementRule(column: .cyclic, height: .widthRatio(ratio))
        case .fixed(let height): PlacementRule(column: .cyclic, height: .fixed(height))
        }
    }
}
