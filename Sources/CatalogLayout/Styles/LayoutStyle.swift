/// A way of placing items into columns. A style supplies its column grid and a
/// `PlacementRule` (which column, how tall); everything else (stacking items in a column with
/// the row spacing, content height, windows, queries, serialization, incremental updates) is
/// shared, so a new style touches no query code.
///
/// Items stack in their column: an item's y is the top inset in an empty column, else the
/// column's bottom plus the row spacing.
public protocol LayoutStyle: Sendable, Hashable {
    /// The column grid for this style's parameters; throws when they cannot work.
    func makeGeometry() throws(LayoutError) -> ColumnGeometry

    /// Which column each item goes in, and how tall it is.
    var placement: PlacementRule { get }
}

/// How a style places items, as plain values, so the placement loop is compiled once per rule
/// and never calls through a protocol per item.
public struct PlacementRule: Sendable, Hashable {
    public enum Column: Sendable, Hashable {
        /// The shortest column: the one whose bottom is nearest the top (smallest y); ties go
        /// to the leftmost (the smallest index).
        case shortestFirst
        /// Item i goes in column i mod C.
        case cyclic
        /// Item i goes in column C − 1 − (i mod C).
        case cyclicReversed
    }

    public enum Height: Sendable, Hashable {
        /// column width × display height / display width + extra.
        case aspectRatio(extra: Double)
        /// column width × ratio, whatever the item.
        case widthRatio(Double)
        /// The same height for every item.
        case fixed(Double)
    }

    public var column: Column
    public var height: Height

    public init(column: Column, height: Height) {
        self.column = column
        self.height = height
    }
}

/// The order in which a waterfall fills its columns (CHTCollectionViewWaterfallLayout's
/// `itemRenderDirection`).
public enum RenderDirection: String, Sendable, Hashable, CaseIterable {
    /// Each item goes in the shortest column, whose bottom is nearest the top (smallest y);
    /// ties go to the leftmost.
    case shortestFirst = "shortest"
    /// Item i goes in column i mod C.
    case leftToRight = "ltr"
    /// Item i goes in column C − 1 − (i mod C), mirrored.
    case rightToLeft = "rtl"
}
