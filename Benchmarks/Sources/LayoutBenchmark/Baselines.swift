import CatalogLayout

/// The floor for computing: only the waterfall arithmetic (shortest column, height, y) into
/// preallocated arrays. No windows, no checkpoints, no per-column lists.
func floorCompute(_ items: [LayoutItem], geometry g: ColumnGeometry, ys: inout [Double], columns: inout [Int32]) -> Double {
    var bottoms = [Double](repeating: g.insets.top, count: g.columnCount)
    var filled = [Bool](repeating: false, count: g.columnCount)
    let w = g.columnWidth
    for index in items.indices {
        var best = 0
        for c in 1..<bottoms.count where bottoms[c] < bottoms[best] { best = c }
        let size = items[index].size
        let height = w * size.height / size.width
        let y = filled[best] ? bottoms[best] + g.rowSpacing : g.insets.top
        filled[best] = true
        bottoms[best] = y + height
        ys[index] = y
        columns[index] = Int32(best)
    }
    return bottoms.max()! + g.insets.bottom
}

/// (a) The tutorials' `layoutAttributesForElements(in:)`: every cached frame checked.
struct LinearScan {
    let frames: [Rect]

    func indices(in band: Range<Double>) -> [Int] {
        var found: [Int] = []
        for index in frames.indices where frames[index].overlaps(band) { found.append(index) }
        return found
    }
}

/// (b) CHTCollectionViewWaterfallLayout: union rects of 20 items; scan them from the start for
/// the first that meets the rect and from the end for the last, then check the items between.
struct UnionRects {
    static let unionSize = 20
    let frames: [Rect]
    let unions: [(minY: Double, maxY: Double)]

    init(frames: [Rect]) {
        self.frames = frames
        unions = stride(from: 0, to: frames.count, by: Self.unionSize).map { start in
            let slice = frames[start..<min(start + Self.unionSize, frames.count)]
            return (slice.map(\.minY).min()!, slice.map(\.maxY).max()!)
        }
    }

    func indices(in band: Range<Double>) -> [Int] {
        func meets(_ u: (minY: Double, maxY: Double)) -> Bool { u.minY < band.upperBound && u.maxY > band.lowerBound }
        guard let first = unions.firstIndex(where: meets), let last = unions.lastIndex(where: meets) else { return [] }
        var found: [Int] = []
        for index in (first * Self.unionSize)..<min((last + 1) * Self.unionSize, frames.count) where frames[index].overlaps(band) {
            found.append(index)
        }
        return found
    }
}
