/// One full-width column: each item as tall as its aspect ratio makes it, or a fixed height.
public struct ListLayout: LayoutStyle {
    /// How tall a row is.
    public enum RowHeight: Sendable, Hashable {
        /// From the item's aspect ratio at the full width, plus `extra` points.
        case aspectRatio(extra: Double)
        /// Every row is this many points tall.
        case fixed(Double)
    }

    public var width: Double
    public var rowSpacing: Double
    public var insets: Insets
    public var rowHeight: RowHeight

    public init(width: Double, rowSpacing: Double = 8, insets: Insets = Insets(all: 8),
                rowHeight: RowHeight = .aspectRatio(extra: 0)) {
        self.width = width
        self.rowSpacing = rowSpacing
        self.insets = insets
        self.rowHeight = rowHeight
    }

    public func makeGeometry() throws(LayoutError) -> ColumnGeometry {
        switch rowHeight {
        case .aspectRatio(let extra): guard extra.isFinite, extra >= 0 else { throw .invalidSpacing(name: "extra height", value: extra) }
        case .fixed(let height): guard height.isFinite, height > 0 else { throw .invalidHeight(name: "row height", value: height) }
        }
        return try ColumnGeometry(width: width, columns: 1, columnSpacing: 0, rowSpacing: rowSpacing, insets: insets)
    }

    public var placement: PlacementRule {
        switch rowHeight {
        case .aspectRatio(let extra): PlacementRule(column: .cyclic, height: .aspectRatio(extra: extra))
        case .fixed(let height): PlacementRule(column: .cyclic, height: .fixed(height))
        }
    }
}
