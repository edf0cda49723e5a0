/// Why a layout cannot be computed. Messages name the parameter and the numbers involved.
public enum LayoutError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidWidth(Double)
    case invalidColumnCount(Int)
    case invalidSpacing(name: String, value: Double)
    case noRoomForColumns(width: Double, columns: Int, columnWidth: Double)
    /// A side not positive and finite, or sides so far apart that the item's scaled size is not
    /// finite (1e-300 wide, 1e300 tall) or falls to zero (1e300 wide, 1e-300 tall).
    case invalidItemSize(index: Int, size: Size)
    case invalidHeight(name: String, value: Double)
    /// Items between two checkpoints of column bottoms: one or more.
    case invalidCheckpointInterval(Int)
    case indexOutOfRange(index: Int, count: Int)
    case geometryMismatch
    case corruptArchive(String)
    /// The stored layout was written in a newer archive format than this build reads: it is
    /// stale here, and the layout should be computed again.
    case unsupportedArchiveVersion(Int)
    /// Full-span items every N items: N must be zero (none) or more.
    case invalidSpanInterval(Int)
    /// Section starts that do not describe sections of the items given.
    case invalidSections(String)
    /// Inserting, removing or replacing items in a layout with sections: recompute it instead
    /// (which items span and where sections begin depend on every item before).
    case editRequiresRecomputation
    /// The content would reach past `limit` windows of `windowHeight` points, the most a layout
    /// may have: 4 for each item or 65,536, whichever is more, divided by the starts each window
    /// keeps (one a column, and one more with sections; one in rows and the carousel). It keeps
    /// one request for absurd parameters (a single column a million points wide, an item a
    /// million times taller than wide) from taking the memory and disk of a thousand layouts.
    /// `carousel`: the content runs along x, and its extent is the items' heights' doing alone.
    case tooManyWindows(limit: Int, windowHeight: Double, carousel: Bool = false)

    public var description: String {
        switch self {
        case .invalidWidth(let width):
            "width must be a positive number of points, got \(width)"
        case .invalidColumnCount(let columns):
            "columns must be a whole number from 1 to \(ColumnGeometry.maximumColumns), got \(columns)"
        case .invalidSpacing(let name, let value):
            "\(name) must be zero or more and finite, got \(value)"
        case .noRoomForColumns(let width, let columns, let columnWidth):
            columns == 1
                ? "no room for the content in \(width) points: after the insets it would be \(columnWidth) points wide"
                : "\(columns) columns do not fit in \(width) points: after insets and spacing each column would be \(columnWidth) points wide"
        case .invalidItemSize(let index, let size):
            size.width > 0 && size.height > 0 && size.width.isFinite && size.height.isFinite
                ? "item \(index) has display size \(size.width)x\(size.height): its sides are so far apart that its scaled size is zero or not a finite number"
                : "item \(index) has display size \(size.width)x\(size.height); both sides must be positive and finite"
        case .invalidHeight(let name, let value):
            "\(name) must be positive and finite, got \(value)"
        case .invalidCheckpointInterval(let interval):
            "the checkpoint interval must be from 1 to \(PlacementTable.maximumCheckpointInterval) items, got \(interval)"
        case .indexOutOfRange(let index, let count):
            "item index \(index) is outside 0..<\(count)"
        case .geometryMismatch:
            "the stored layout was computed for other parameters than this style's"
        case .corruptArchive(let reason):
            "the stored layout cannot be read: \(reason)"
        case .invalidSpanInterval(let every):
            "full-span items every N items: N must be 0 (none) or more, got \(every)"
        case .invalidSections(let reason):
            "invalid sections: \(reason)"
        case .editRequiresRecomputation:
            "a layout with sections takes appends only; lay out the edited items again"
        case .tooManyWindows(let limit, let windowHeight, let carousel):
            carousel
                ? "the carousel would be wider than \(limit) pagination windows of \(windowHeight.formattedPoints) points allow for its items; "
                    + "a smaller item height or spacing makes it narrower"
                : "the layout would be longer than \(limit) pagination windows of \(windowHeight.formattedPoints) "
                    + "points allow for its items; a smaller width, item or row height, more columns, or taller windows make it shorter"
        case .unsupportedArchiveVersion(let version):
            "the stored layout was written in format \(version); this version of catalog reads formats up to \(LayoutArchive.formatVersion): it will be recomputed"
        }
    }
}

extension Double {
    /// 2048.0 as "2048", 0.5 as "0.5".
    fileprivate var formattedPoints: String { self == rounded() ? String(Int(self)) : String(self) }
}
