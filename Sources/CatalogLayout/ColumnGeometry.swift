/// The columns every style lays items into: their count, x positions and width, the spacing
/// between them and between items stacked in one column, and the insets around the content.
///
/// column width w = (W − left − right − (C − 1) × columnSpacing) / C, and column c starts at
/// x = left + c × (w + columnSpacing).
public struct ColumnGeometry: Sendable, Hashable {
    public let width: Double
    public let columnCount: Int
    public let columnSpacing: Double
    public let rowSpacing: Double
    public let insets: Insets
    public let columnWidth: Double

    /// The most columns a layout takes: each column keeps arrays of its own, and a start in each
    /// pagination window (the `catalog` tool and its API take 1,000 at most).
    public static let maximumColumns = 4096

    /// Validates the parameters: width positive, 1 to ``maximumColumns`` columns, spacings and
    /// insets zero or more, and a positive column width.
    public init(width: Double, columns: Int, columnSpacing: Double, rowSpacing: Double, insets: Insets) throws(LayoutError) {
        guard width.isFinite, width > 0 else { throw .invalidWidth(width) }
        guard (1...Self.maximumColumns).contains(columns) else { throw .invalidColumnCount(columns) }
        for (name, value) in [("column spacing", columnSpacing), ("row spacing", rowSpacing),
                              ("top inset", insets.top), ("left inset", insets.left),
                              ("bottom inset", insets.bottom), ("right inset", insets.right)] {
            guard value.isFinite, value >= 0 else { throw .invalidSpacing(name: name, value: value) }
        }
        let columnWidth = (width - insets.left - insets.right - Double(columns - 1) * columnSpacing) / Double(columns)
        guard columnWidth > 0 else { throw .noRoomForColumns(width: width, columns: columns, columnWidth: columnWidth) }
        self.width = width
        self.columnCount = columns
        self.columnSpacing = columnSpacing
        self.rowSpacing = rowSpacing
        self.insets = insets
        self.columnWidth = columnWidth
    }

    /// The width between the left and right insets: what headers and full-span items take.
    public var contentWidth: Double { width - insets.left - insets.right }

    /// The x of column `column`'s left edge.
    func x(ofColumn column: Int) -> Double {
        insets.left + Double(column) * (columnWidth + columnSpacing)
    }
}
