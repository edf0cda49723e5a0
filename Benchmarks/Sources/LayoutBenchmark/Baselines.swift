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

/// The memory floor for computing: the bytes a computed table keeps per item (id, y, height,
/// column, and its entry in its column's list: 32) written into new arrays, with no
/// arithmetic. New arrays are what a computation gets: at 10M items (320 MB) every page is a
/// first-touch fault the kernel zeroes. `advised`: each array the engine would advise (as large
/// as `MemoryAdvice.threshold`) gets the huge-page advice first.
func freshMemoryFloor(_ items: [LayoutItem], advised: Bool = false) -> Int {
    func advise<T>(_ buffer: UnsafeMutableBufferPointer<T>) {
        let bytes = buffer.count * MemoryLayout<T>.stride
        if advised, bytes >= MemoryAdvice.threshold { hugePages(UnsafeMutableRawPointer(buffer.baseAddress!), bytes) }
    }
    let n = items.count
    var ids: [Int64] = [], ys: [Double] = [], heights: [Double] = [], columns: [Int32] = []
    // One pass over the items, as the layout makes: five arrays written side by side.
    let lists = [Int32](unsafeUninitializedCapacity: n) { lists, listsDone in
        columns = [Int32](unsafeUninitializedCapacity: n) { columns, columnsDone in
            heights = [Double](unsafeUninitializedCapacity: n) { heights, heightsDone in
                ys = [Double](unsafeUninitializedCapacity: n) { ys, ysDone in
                    ids = [Int64](unsafeUninitializedCapacity: n) { ids, idsDone in
                        advise(lists); advise(columns); advise(heights); advise(ys); advise(ids)
                        items.withUnsafeBufferPointer { items in
                            for index in 0..<n {
                                ids[index] = items[index].id
                                ys[index] = items[index].size.width
                                heights[index] = items[index].size.height
                                columns[index] = Int32(truncatingIfNeeded: index & 1)
                                lists[index] = Int32(truncatingIfNeeded: index)
                            }
                        }
                        idsDone = n
                    }
                    ysDone = n
                }
                heightsDone = n
            }
            columnsDone = n
        }
        listsDone = n
    }
    return ids.count + ys.count + heights.count + columns.count + lists.count
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
