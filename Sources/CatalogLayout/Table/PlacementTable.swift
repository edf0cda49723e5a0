/// The computed layout, independent of the style that produced it: per item its column, y and
/// height (x and width derive from the column), items listed per column, pagination windows
/// and checkpoints. Every query lives here, so styles never touch query code.
///
/// Invariants (checked by the tests against a brute-force reference):
/// - items in one column are stacked: sorted by y, not overlapping, listed in index order;
/// - `windowStarts[k * C + c]` is the position in column c's list of the first item whose
///   bottom lies below the top of window k (k × windowHeight): the walk for any band in
///   window k starts there;
/// - `checkpoints[j]` holds the column bottoms before item j × checkpointInterval.
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

    package init(geometry: ColumnGeometry, windowHeight: Double, checkpointInterval: Int) {
        precondition(windowHeight > 0 && windowHeight.isFinite, "window height must be positive")
        precondition(checkpointInterval > 0, "checkpoint interval must be positive")
        self.geometry = geometry
        self.windowHeight = windowHeight
        self.checkpointInterval = checkpointInterval
        columnItems = Array(repeating: [], count: geometry.columnCount)
        bottoms = Array(repeating: geometry.insets.top, count: geometry.columnCount)
    }

    /// Number of items.
    public var count: Int { ids.count }

    /// Height of the whole content: the lowest column bottom plus the bottom inset (top plus
    /// bottom inset when there are no items).
    public var contentHeight: Double {
        (bottoms.max() ?? geometry.insets.top) + geometry.insets.bottom
    }

    /// Number of pagination windows: enough to cover every item.
    public var windowCount: Int { windowStarts.count / geometry.columnCount }

    /// The attributes of item `index`.
    public func attributes(at index: Int) -> LayoutAttributes {
        let column = Int(columns[index])
        return LayoutAttributes(
            index: index, id: ids[index],
            frame: Rect(x: geometry.x(ofColumn: column), y: ys[index], width: geometry.columnWidth, height: heights[index]),
            column: column)
    }

    /// The window that holds offset `y` (clamped at 0).
    func window(containing y: Double) -> Int {
        y <= 0 ? 0 : Int((y / windowHeight).rounded(.down))
    }

    /// Indices of the items whose frames overlap `band` by a positive height, in layout
    /// order. Costs O(C + k) for k items in the band's windows, wherever the band is.
    public func indices(in band: Range<Double>) -> [Int] {
        guard !band.isEmpty, count > 0, band.upperBound > 0 else { return [] }
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

    /// The attributes of the items overlapping `band`, in layout order.
    public func items(in band: Range<Double>) -> [LayoutAttributes] {
        indices(in: band).map(attributes(at:))
    }

    /// The offset that puts item `index`'s top at the top of a viewport `viewportHeight`
    /// points tall, clamped so the viewport stays within the content.
    public func scrollOffset(toItem index: Int, viewportHeight: Double) -> Double {
        let limit = max(0, contentHeight - max(0, viewportHeight))
        return min(max(0, ys[index]), limit)
    }
}
