/// The computed layout, independent of the style that produced it: per item its column, y and
/// height (x and width derive from the column), items listed per column, pagination windows
/// and checkpoints. Every query lives here, so styles never touch query code.
///
/// Invariants (checked by the tests against a brute-force reference):
/// - items in one column are stacked: sorted by y, not overlapping, listed in index order;
/// - `windowStarts[k * L + l]` is the position in list l of the first element whose bottom lies
///   below the top of window k (k × windowHeight): the walk for any band in window k starts
///   there. The lists are the C columns, and with sections a spanning list (headers, footers,
///   full-span items: `sections.spans`), so L is C or C + 1;
/// - `checkpoints[j]` holds the column bottoms before item j × checkpointInterval (plain
///   layouts: an edit replays from there; a layout with sections is recomputed instead).
public struct PlacementTable: Sendable {
    public let geometry: ColumnGeometry
    /// Height of one pagination window, in points.
    public let windowHeight: Double
    /// Items between two checkpoints of column bottoms.
    let checkpointInterval: Int

    package var ids: [Int64] = []
    package var ys: [Double] = []
    package var heights: [Double] = []
    package var columns: [Int32] = []
    package var columnItems: [[Int32]]
    /// Column bottoms after the last item; the top inset for an empty column.
    package var bottoms: [Double]
    package var windowStarts: [Int32] = []
    package var checkpoints: [[Double]] = []
    /// Sections, spans and their placement state; nil for a plain column layout.
    package var sections: SectionedState?
    /// The items the layout will hold when it is computed in pieces (`reserveCapacity`): the
    /// window bound (``windowLimit``) counts them from the first piece on, and never the
    /// arrays' capacity, which the allocator rounds and growth doubles.
    package var plannedCount = 0
    /// The rule the items were placed by, when a ``Layout`` computed the table, so that
    /// ``Layout/init(table:style:)`` refuses a style that places items otherwise; nil in a
    /// table decoded from an archive, which does not store it.
    package var placement: PlacementRule?

    /// Sections, headers, footers and full-span items, or nil for a plain column layout.
    public var sectioning: Sectioning? { sections?.sectioning }

    /// The lists a window keeps a start for: the columns, and the spanning list with sections.
    var listCount: Int { geometry.columnCount + (sections == nil ? 0 : 1) }

    /// The most items between two checkpoints (past any real layout's count: one checkpoint).
    public static let maximumCheckpointInterval = 1 << 30

    /// Throws unless a table can have these: a positive, finite window height and a checkpoint
    /// every 1 to ``maximumCheckpointInterval`` items.
    package static func check(windowHeight: Double, checkpointInterval: Int) throws(LayoutError) {
        guard windowHeight.isFinite, windowHeight > 0 else { throw .invalidHeight(name: "window height", value: windowHeight) }
        guard (1...maximumCheckpointInterval).contains(checkpointInterval) else { throw .invalidCheckpointInterval(checkpointInterval) }
    }

    package init(geometry: ColumnGeometry, windowHeight: Double, checkpointInterval: Int, sectioning: Sectioning? = nil) {
        precondition(windowHeight > 0 && windowHeight.isFinite, "window height must be positive")
        precondition(checkpointInterval > 0, "checkpoint interval must be positive")
        self.geometry = geometry
        self.windowHeight = windowHeight
        self.checkpointInterval = checkpointInterval
        columnItems = Array(repeating: [], count: geometry.columnCount)
        bottoms = Array(repeating: geometry.insets.top, count: geometry.columnCount)
        sections = sectioning.map { SectionedState(sectioning: $0, columnCount: geometry.columnCount) }
    }

    /// Number of items.
    public var count: Int { ids.count }

    /// Height of the whole content: the column bottom furthest down plus the bottom inset (top
    /// plus bottom inset when there are no items).
    public var contentHeight: Double {
        if sections != nil { return (sections!.ends.last ?? geometry.insets.top) + geometry.insets.bottom }
        return (bottoms.max() ?? geometry.insets.top) + geometry.insets.bottom
    }

    /// Where the content ends before the bottom inset: what windows must cover.
    var contentBottom: Double {
        sections.map { $0.ends.last ?? 0 } ?? (count == 0 ? 0 : bottoms.max() ?? 0)
    }

    /// Number of pagination windows: enough to cover every item.
    public var windowCount: Int { windowStarts.count / listCount }

    /// The windows from the first on that no item appended later can change: those that end
    /// at or above every column's bottom (a later item begins at or below its column's
    /// bottom), so that a store can write them while the rest is laid out. 0 with sections.
    package var settledWindowCount: Int {
        guard sections == nil, let shortest = bottoms.min() else { return 0 }
        var settled = min(windowCount, Int(max(0, (shortest / windowHeight).rounded(.down))))
        // As `packedWindows` bounds window k: items that begin above (k + 1) × windowHeight.
        while settled > 0, Double(settled) * windowHeight > shortest { settled -= 1 }
        return settled
    }

    /// The attributes of item `index`, which must be in `0..<count`: like an array's
    /// subscript, another index traps.
    public func attributes(at index: Int) -> LayoutAttributes {
        let column = Int(columns[index])
        guard sections != nil else {
            return LayoutAttributes(
                index: index, id: ids[index],
                frame: Rect(x: geometry.x(ofColumn: column), y: ys[index], width: geometry.columnWidth, height: heights[index]),
                column: column)
        }
        let frame = column < 0
            ? Rect(x: geometry.insets.left, y: ys[index], width: geometry.contentWidth, height: heights[index]) // full span
            : Rect(x: geometry.x(ofColumn: column), y: ys[index], width: geometry.columnWidth, height: heights[index])
        return LayoutAttributes(index: index, id: ids[index], frame: frame, column: max(0, column), section: sections!.section(ofItem: index))
    }

    /// The window that holds offset `y`, clamped to `0...windowCount`: an offset past the
    /// content (1e300, infinity) gives `windowCount`, which no query walks, rather than a trap
    /// in Int(_:).
    func window(containing y: Double) -> Int {
        y <= 0 ? 0 : Int(min(Double(windowCount), (y / windowHeight).rounded(.down)))
    }

    /// Indices of the items whose frames overlap `band` by a positive height, in layout
    /// order. Costs O(C + k) for k items in the band's windows, wherever the band is.
    public func indices(in band: Range<Double>) -> [Int] {
        guard !band.isEmpty, count > 0, band.upperBound > 0 else { return [] }
        if sections != nil { return placements(in: band, pinningHeaders: false).compactMap { $0.kind == .cell ? $0.index : nil } }
        let first = window(containing: band.lowerBound)
        guard first < windowCount else { return [] }
        let (lower, upper) = (band.lowerBound, band.upperBound)
        let columnCount = geometry.columnCount
        var found: [Int] = []
        found.reserveCapacity(32)
        ys.withUnsafeBufferPointer { ys in
            heights.withUnsafeBufferPointer { heights in
                for column in 0..<columnCount {
                    columnItems[column].withUnsafeBufferPointer { list in
                        var position = Int(windowStarts[first * columnCount + column])
                        while position < list.count {
                            let index = Int(list[position])
                            let y = ys[index]
                            if y >= upper { break }
                            if y + heights[index] > lower { found.append(index) }
                            position += 1
                        }
                    }
                }
            }
        }
        if columnCount > 1 { Self.sortSmall(&found) }
        return found
    }

    /// Insertion sort: a band holds a few dozen items, already sorted within each column.
    static func sortSmall(_ values: inout [Int]) {
        guard values.count > 1 else { return }
        if values.count > 64 { values.sort(); return }
        values.withUnsafeMutableBufferPointer { buffer in
            for i in 1..<buffer.count {
                let value = buffer[i]
                var j = i - 1
                while j >= 0, buffer[j] > value {
                    buffer[j + 1] = buffer[j]
                    j -= 1
                }
                buffer[j + 1] = value
            }
        }
    }

    /// The attributes of the items overlapping `band`, in layout order: with sections, their
    /// headers and footers too (each section's header, its items, its footer), and with
    /// `pinningHeaders` the header of the section the band starts in held at the band's top
    /// (see ``Sectioning``).
    public func items(in band: Range<Double>, pinningHeaders: Bool = false) -> [LayoutAttributes] {
        if sections != nil { return placements(in: band, pinningHeaders: pinningHeaders) }
        return indices(in: band).map(attributes(at:))
    }

    /// The offset that puts item `index`'s top at the top of a viewport `viewportHeight`
    /// points tall, clamped so the viewport stays within the content. `index` must be in
    /// `0..<count`: like an array's subscript, another index traps.
    public func scrollOffset(toItem index: Int, viewportHeight: Double) -> Double {
        let limit = max(0, contentHeight - max(0, viewportHeight))
        return min(max(0, ys[index]), limit)
    }
}
