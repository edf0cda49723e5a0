/// A way of placing items into columns. A style decides two things per item, which column
/// and how tall; everything else (stacking items in a column with the row spacing, content
/// height, windows, queries, serialization, incremental updates) is shared, so a new style
/// implements only these and touches no query code.
///
/// Items stack in their column: an item's y is the top inset in an empty column, else the
/// column's bottom plus the row spacing.
public protocol LayoutStyle: Sendable, Hashable {
    /// The column grid for this style's parameters; throws when they cannot work.
    func makeGeometry() throws(LayoutError) -> ColumnGeometry

    /// The column for item `index`. `bottoms[c]` is column c's bottom: the top inset while
    /// column c is empty.
    func column(for index: Int, bottoms: UnsafeBufferPointer<Double>) -> Int

    /// The item's height in a column `columnWidth` points wide.
    func height(of item: LayoutItem, columnWidth: Double) -> Double

    /// Whether this style needs item sizes (fixed-height styles do not).
    var usesItemSizes: Bool { get }
}

/// The order in which a waterfall fills its columns (CHTCollectionViewWaterfallLayout's
/// `itemRenderDirection`).
public enum RenderDirection: String, Sendable, Hashable, CaseIterable {
    /// Each item goes in the column whose bottom is lowest; ties go to the lowest index.
    case shortestFirst = "shortest"
    /// Item i goes in column i mod C.
    case leftToRight = "ltr"
    /// Item i goes in column C − 1 − (i mod C).
    case rightToLeft = "rtl"
}
