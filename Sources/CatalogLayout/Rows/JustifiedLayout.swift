/// Justified rows (Flickr's justified-layout, Google Photos, Immich): rows across the whole
/// width, each as tall as makes its items, at their own aspect ratios, fill it exactly.
///
/// With content width A = width − left − right insets and an item's aspect a = width / height,
/// a row of k items would be h(k) = (A − (k − 1) × spacing) / (a₁ + … + a_k) tall. Rows are
/// filled greedily in order: items are added until h(k) ≤ `rowHeight`; the row then keeps k
/// items, unless k > 1 and |h(k − 1) − T| ≤ |h(k) − T| (or h(k) is not positive: the spacing
/// alone overfills the row), in which case it keeps k − 1 and item k opens the next row. Each
/// item gets the row's height and the width a × h, left to right from the left inset, items
/// `spacing` apart; rows `rowSpacing` apart from the top inset. The last row (of the layout,
/// or of a section) that never reached the target keeps the target height and is not
/// stretched. O(n).
///
/// ```swift
/// let layout = try RowTable(items: items, style: JustifiedLayout(width: 1024, rowHeight: 180))
/// let page = layout.items(in: 4000..<4812)
/// ```
public struct JustifiedLayout: Sendable, Hashable {
    public var width: Double
    /// The target row height T.
    public var rowHeight: Double
    /// Between two items of a row.
    public var spacing: Double
    /// Between two rows.
    public var rowSpacing: Double
    public var insets: Insets

    public init(width: Double, rowHeight: Double = 180, spacing: Double = 8, rowSpacing: Double = 8, insets: Insets = Insets(all: 8)) {
        self.width = width
        self.rowHeight = rowHeight
        self.spacing = spacing
        self.rowSpacing = rowSpacing
        self.insets = insets
    }

    /// The width between the insets.
    public var contentWidth: Double { width - insets.left - insets.right }

    /// Checks every value: a positive width with room between the insets, a positive row
    /// height, spacings and insets zero or more, all finite.
    public func validate() throws(LayoutError) {
        guard width.isFinite, width > 0 else { throw .invalidWidth(width) }
        guard rowHeight.isFinite, rowHeight > 0 else { throw .invalidHeight(name: "row height", value: rowHeight) }
        for (name, value) in [("spacing", spacing), ("row spacing", rowSpacing), ("top inset", insets.top), ("left inset", insets.left),
                              ("bottom inset", insets.bottom), ("right inset", insets.right)] {
            guard value.isFinite, value >= 0 else { throw .invalidSpacing(name: name, value: value) }
        }
        guard contentWidth > 0 else { throw .noRoomForColumns(width: width, columns: 1, columnWidth: contentWidth) }
    }
}
