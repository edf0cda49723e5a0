/// A computed layout of any style, as a catalog stores it and a page queries it: the column
/// styles' ``PlacementTable``, justified rows' ``RowTable``, the carousel's ``CarouselTable``.
/// Bands run along the scroll axis: y, or x in the carousel (whose `scrollLength` is its
/// content width).
public protocol LayoutTable: Sendable {
    var count: Int { get }
    /// The content's extent along the scroll axis (the carousel's: its width).
    var scrollLength: Double { get }
    var windowHeight: Double { get }
    /// The placements meeting `band` along the scroll axis, in layout order.
    func items(in band: Range<Double>, pinningHeaders: Bool) -> [LayoutAttributes]
    /// The placement of item `index`, which must be in `0..<count` (another index traps).
    func attributes(at index: Int) -> LayoutAttributes
    /// Every section (empty without sections).
    var sectionInfos: [SectionInfo] { get }
    func archiveHeader() -> [UInt8]
    /// Number of pagination windows.
    var windowCount: Int { get }
    /// The windows in `windows` (a range of `0..<windowCount`) encoded one after another: a
    /// store writes a layout a few windows at a time, never all of its bytes at once.
    func packedWindows(_ windows: Range<Int>) -> PackedWindows
}

/// The pagination windows a layout of `items` items may have when each window keeps `lists`
/// starts: four starts an item, or 65,536 starts if that is more. A layout whose
/// content would reach further is refused (``LayoutError/tooManyWindows(limit:windowHeight:carousel:)``):
/// one request for a layout a million points wide in one column, or one item a million times
/// as tall as wide, must not take the memory and the disk of a thousand ordinary layouts.
package func windowLimit(items: Int, lists: Int) -> Int {
    max(1 << 16, 4 * items) / max(1, lists)
}

extension LayoutTable {
    /// Every window, encoded into one buffer.
    public func packedWindows() -> PackedWindows { packedWindows(0..<windowCount) }

    /// The layout as a header and one blob per window.
    public func archive() -> LayoutArchive {
        let packed = packedWindows()
        return LayoutArchive(header: archiveHeader(), windows: (0..<packed.count).map { Array(packed.window($0)) })
    }
}

extension PlacementTable: LayoutTable {
    public var scrollLength: Double { contentHeight }
}

extension RowTable: LayoutTable {
    public var scrollLength: Double { contentHeight }
}

extension CarouselTable: LayoutTable {
    public var scrollLength: Double { contentWidth }
    public func items(in band: Range<Double>, pinningHeaders: Bool) -> [LayoutAttributes] { items(in: band) }
    public var sectionInfos: [SectionInfo] { [] }
}

/// The table an archive of any version holds.
public func layoutTable(from archive: LayoutArchive) throws(LayoutError) -> any LayoutTable {
    let header = try LayoutArchiveHeader(bytes: archive.header)
    if header.rows != nil { return try RowTable(archive: archive) }
    if header.carousel != nil { return try CarouselTable(archive: archive) }
    return try PlacementTable(archive: archive)
}
