/// Placing items and keeping windows and checkpoints up to date.
extension PlacementTable {
    /// Places `items` after the existing ones, continuing from the column bottoms: O(m) for
    /// m items, plus the windows they reach. When the rule takes heights from item sizes, the
    /// first item whose size is not positive and finite (or whose height overflows) stops it,
    /// and so does the first whose bottom lies past `reach` (by default, the windows a layout
    /// of these items may have: ``windowLimit``): the table is left as it was and that item's
    /// offset in `items` is returned.
    package mutating func append(_ items: [LayoutItem], rule: PlacementRule, reach: Double? = nil) -> Int? {
        let columnWidth = geometry.columnWidth
        let reach = reach ?? self.reach(items: count + items.count)
        return items.withUnsafeBufferPointer { items in
            switch rule.height {
            case .aspectRatio(let extra):
                place(AspectRatioSource(items: items, columnWidth: columnWidth, extra: extra), column: rule.column, reach: reach)
            case .widthRatio(let ratio): place(SameHeightSource(items: items, height: columnWidth * ratio), column: rule.column, reach: reach)
            case .fixed(let height): place(SameHeightSource(items: items, height: height), column: rule.column, reach: reach)
            }
        }
    }

    /// The offset of the first item in `items` that `append` would refuse, or nil.
    package func firstRefused(_ items: [LayoutItem], rule: PlacementRule) -> Int? {
        guard case .aspectRatio(let extra) = rule.height else { return nil }
        return items.withUnsafeBufferPointer { items in
            let source = AspectRatioSource(items: items, columnWidth: geometry.columnWidth, extra: extra)
            return (0..<source.count).first { source.height(at: $0) == nil }
        }
    }

    /// Places items whose heights are already known (the tail of an edit) after the existing
    /// ones. The first whose bottom lies past `reach` stops it, as in `append(_:rule:reach:)`:
    /// the table is left as it was and that item's offset returned.
    @discardableResult
    package mutating func append(ids newIDs: ArraySlice<Int64>, heights newHeights: ArraySlice<Double>, rule: PlacementRule,
                                 reach: Double = .infinity) -> Int? {
        place(HeightSource(ids: newIDs, heights: newHeights), column: rule.column, reach: reach)
    }

    /// How far the content of a layout of `items` items may reach (``windowLimit``).
    package func reach(items: Int) -> Double {
        windowHeight * Double(windowLimit(items: max(items, plannedCount), lists: listCount))
    }

    private mutating func place<Source: PlacementSource>(_ source: Source, column rule: PlacementRule.Column, reach: Double) -> Int? {
        switch rule {
        case .shortestFirst where geometry.columnCount == 2: place(source, chooser: ShortestOfTwo(), reach: reach)
        case .shortestFirst where geometry.columnCount > Self.perColumnPasses: place(source, chooser: ShortestFirstHeap(), reach: reach)
        case .shortestFirst: place(source, chooser: ShortestFirst(), reach: reach)
        case .cyclic: place(source, chooser: Cyclic(), reach: reach)
        case .cyclicReversed: place(source, chooser: CyclicReversed(), reach: reach)
        }
    }

    /// The placement loop, specialized for each source and column rule. It writes straight
    /// into uninitialized arrays and records window starts as it goes: a column's bottoms only
    /// grow, so the item that first carries column c past the top of window k is where the walk
    /// for window k starts in column c. An item the source refuses, or one whose bottom lies past
    /// `reach`, ends the loop; what was placed is then removed again and the item's offset returned.
    private mutating func place<Source: PlacementSource, Chooser: ColumnChooser>(_ source: Source, chooser: Chooser, reach: Double) -> Int? {
        let added = source.count
        guard added > 0 else { return nil }
        let start = count
        let columnCount = geometry.columnCount
        let top = geometry.insets.top
        let spacing = geometry.rowSpacing
        let interval = checkpointInterval
        let height = windowHeight
        let cursors = ColumnCursors(self, stride: columnCount) { !columnItems[$0].isEmpty }
        defer { cursors.deallocate() }
        let (filled, columnCounts, nextWindow) = (cursors.filled, cursors.counts, cursors.nextWindow)
        let unset = Int32.min
        var checkpointsDue: [[Double]] = []
        var untilCheckpoint = (interval - start % interval) % interval
        var newIDs: [Int64] = []
        var newYs: [Double] = []
        var newHeights: [Double] = []
        var refused: Int? = nil
        var placed = 0
        let newColumns = [Int32](unsafeUninitializedCapacity: added) { columnsOut, columnsDone in
            newHeights = [Double](unsafeUninitializedCapacity: added) { heightsOut, heightsDone in
                newYs = [Double](unsafeUninitializedCapacity: added) { ysOut, ysDone in
                    newIDs = [Int64](unsafeUninitializedCapacity: added) { idsOut, idsDone in
                        MemoryAdvice.advise(columnsOut, heightsOut, ysOut, idsOut)
                        bottoms.withUnsafeMutableBufferPointer { bottoms in
                            for offset in 0..<added {
                                let index = start + offset
                                guard let itemHeight = source.height(at: offset) else {
                                    refused = offset
                                    break
                                }
                                let column = chooser.column(for: index, bottoms: bottoms, count: columnCount)
                                let y = filled[column] ? bottoms[column] + spacing : top
                                let bottom = y + itemHeight
                                guard bottom <= reach else {
                                    refused = offset
                                    break
                                }
                                if untilCheckpoint == 0 {
                                    checkpointsDue.append(Array(bottoms))
                                    untilCheckpoint = interval
                                }
                                untilCheckpoint -= 1
                                filled[column] = true
                                bottoms[column] = bottom
                                (idsOut.baseAddress! + offset).initialize(to: source.id(at: offset))
                                (ysOut.baseAddress! + offset).initialize(to: y)
                                (heightsOut.baseAddress! + offset).initialize(to: itemHeight)
                                (columnsOut.baseAddress! + offset).initialize(to: Int32(truncatingIfNeeded: column))
                                let position = columnCounts[column]
                                columnCounts[column] = position + 1
                                while Double(nextWindow[column]) * height < bottom {
                                    let window = nextWindow[column]
                                    if window * columnCount >= windowStarts.count {
                                        windowStarts.append(contentsOf: repeatElement(unset, count: columnCount))
                                    }
                                    windowStarts[window * columnCount + column] = position
                                    nextWindow[column] = window + 1
                                }
                                placed = offset + 1
                            }
                        }
                        idsDone = placed
                    }
                    ysDone = placed
                }
                heightsDone = placed
            }
            columnsDone = placed
        }
        cursors.startPastEnds(&windowStarts, stride: columnCount)
        appendPlaced(ids: newIDs, ys: newYs, heights: newHeights, columns: newColumns, from: start, counts: cursors.counts)
        checkpoints.append(contentsOf: checkpointsDue)
        guard let refused else { return nil }
        truncate(to: start)
        return refused
    }

    /// Makes room for `count` items in all, so that appending them a piece at a time never
    /// copies what was placed: the item arrays exactly, each column's list for an even share
    /// and an eighth more (a list that outgrows it doubles).
    package mutating func reserveCapacity(_ count: Int) {
        plannedCount = max(plannedCount, count)
        reservePlacements(count)
        let share = count / geometry.columnCount
        for column in columnItems.indices { columnItems[column].reserveAdvisedCapacity(share + share / 8 + 16) }
    }

    /// Makes room for `count` items in all in the item arrays (ids, ys, heights, columns),
    /// advising new memory (``MemoryAdvice``).
    mutating func reservePlacements(_ count: Int) {
        ids.reserveAdvisedCapacity(count)
        ys.reserveAdvisedCapacity(count)
        heights.reserveAdvisedCapacity(count)
        columns.reserveAdvisedCapacity(count)
    }

    /// Keeps what a placement loop placed from index `start` on: the item arrays, and each
    /// column's list (`counts`: the columns' sizes after it).
    mutating func appendPlaced(ids newIDs: [Int64], ys newYs: [Double], heights newHeights: [Double], columns newColumns: [Int32],
                               from start: Int, counts: UnsafeMutableBufferPointer<Int32>) {
        if start == 0, ids.capacity < newIDs.count {
            (ids, ys, heights, columns) = (newIDs, newYs, newHeights, newColumns) // nothing reserved: take the new arrays whole
        } else {
            // Geometric growth, as the standard library's, into advised memory.
            if ids.capacity < ids.count + newIDs.count { reservePlacements(max(ids.count + newIDs.count, ids.capacity * 2)) }
            ids.append(contentsOf: newIDs)
            ys.append(contentsOf: newYs)
            heights.append(contentsOf: newHeights)
            columns.append(contentsOf: newColumns)
        }
        appendToColumnLists(newColumns, firstIndex: start, counts: Array(counts))
    }

    /// Adds new items to their columns' lists: for each of a few columns, one branch-free pass
    /// over the new items' columns writes its new indices into memory sized once; past
    /// `perColumnPasses` columns (a pass each would cost items × columns), one pass appends
    /// each item to its column's list. Full-span items (column -1) are in no list.
    mutating func appendToColumnLists(_ newColumns: [Int32], firstIndex: Int, counts: [Int32]) {
        if columnItems.count > Self.perColumnPasses {
            for column in columnItems.indices where columnItems[column].capacity < Int(counts[column]) {
                columnItems[column].reserveAdvisedCapacity(max(Int(counts[column]), columnItems[column].capacity * 2))
            }
            for (offset, column) in newColumns.enumerated() where column >= 0 {
                columnItems[Int(column)].append(Int32(truncatingIfNeeded: firstIndex + offset))
            }
            return
        }
        newColumns.withUnsafeBufferPointer { newColumns in
            for column in columnItems.indices {
                let adding = Int(counts[column]) - columnItems[column].count
                guard adding > 0 else { continue }
                let wanted = Int32(truncatingIfNeeded: column)
                // One spare slot: every item is written, and the cursor moves only past this column's.
                let added = [Int32](unsafeUninitializedCapacity: adding + 1) { out, initialized in
                    MemoryAdvice.advise(out)
                    var cursor = 0
                    for (offset, itemColumn) in newColumns.enumerated() {
                        out[cursor] = Int32(truncatingIfNeeded: firstIndex + offset)
                        cursor += itemColumn == wanted ? 1 : 0
                    }
                    initialized = cursor
                }
                if columnItems[column].isEmpty, columnItems[column].capacity < adding {
                    columnItems[column] = added // nothing reserved: take the new list whole
                    continue
                }
                if columnItems[column].capacity < Int(counts[column]) {
                    // Geometric growth: an exact reserve would copy the whole list on every append.
                    columnItems[column].reserveAdvisedCapacity(max(Int(counts[column]), columnItems[column].capacity * 2))
                }
                columnItems[column].append(contentsOf: added)
            }
        }
    }

    /// The most columns whose lists are filled a pass each (see `appendToColumnLists`).
    static let perColumnPasses = 16

    /// Removes items from `index` on, restoring the column bottoms from the checkpoint at or
    /// before it and replaying only the placements between that checkpoint and `index`.
    package mutating func truncate(to index: Int) {
        guard index < count else { return }
        precondition(sections == nil, "a layout with sections is recomputed, not truncated")
        let checkpoint = index / checkpointInterval
        var restored = checkpoints[checkpoint]
        for kept in (checkpoint * checkpointInterval)..<index {
            restored[Int(columns[kept])] = ys[kept] + heights[kept]
        }
        for column in columnItems.indices {
            while let last = columnItems[column].last, Int(last) >= index { columnItems[column].removeLast() }
        }
        ids.removeSubrange(index...)
        ys.removeSubrange(index...)
        heights.removeSubrange(index...)
        columns.removeSubrange(index...)
        checkpoints.removeSubrange(((index + checkpointInterval - 1) / checkpointInterval)...)
        let firstChanged = window(containing: restored.min() ?? 0)
        bottoms = restored
        rebuildWindows(from: firstChanged)
    }

    /// How many windows have their top above `bottom`: the windows items reach.
    func windowsReaching(_ bottom: Double) -> Int {
        var windows = max(0, Int((bottom / windowHeight).rounded(.down)))
        while Double(windows) * windowHeight < bottom { windows += 1 }
        while windows > 0, Double(windows - 1) * windowHeight >= bottom { windows -= 1 }
        return windows
    }

    /// Recomputes window starts from window `first` to the end of the content: for each column
    /// and, with sections, for the spanning list.
    package mutating func rebuildWindows(from first: Int) {
        let columnCount = geometry.columnCount
        let lists = listCount
        let needed = count == 0 && (sections?.spanYs.isEmpty ?? true) ? 0 : windowsReaching(contentBottom)
        let first = min(first, windowCount, needed)
        windowStarts.removeSubrange((first * lists)...)
        windowStarts.append(contentsOf: repeatElement(0, count: (needed - first) * lists))
        let height = windowHeight
        ys.withUnsafeBufferPointer { ys in
            heights.withUnsafeBufferPointer { heights in
                windowStarts.withUnsafeMutableBufferPointer { starts in
                    for column in 0..<columnCount {
                        columnItems[column].withUnsafeBufferPointer { list in
                            var position = first == 0 ? 0 : Int(starts[(first - 1) * lists + column])
                            for window in first..<needed {
                                let top = Double(window) * height
                                while position < list.count, ys[Int(list[position])] + heights[Int(list[position])] <= top { position += 1 }
                                starts[window * lists + column] = Int32(truncatingIfNeeded: position)
                            }
                        }
                    }
                    guard let sections else { return }
                    var position = first == 0 ? 0 : Int(starts[(first - 1) * lists + columnCount])
                    for window in first..<needed {
                        let top = Double(window) * height
                        while position < sections.spanYs.count, sections.spanYs[position] + sections.spanHeights[position] <= top { position += 1 }
                        starts[window * lists + columnCount] = Int32(truncatingIfNeeded: position)
                    }
                }
            }
        }
    }
}

/// Where the placement loop gets ids and heights.
private protocol PlacementSource {
    var count: Int { get }
    func id(at offset: Int) -> Int64
    /// The item's height; nil when its size cannot give one.
    func height(at offset: Int) -> Double?
}

/// column width × display height / display width + extra.
private struct AspectRatioSource: PlacementSource {
    let items: UnsafeBufferPointer<LayoutItem>
    let columnWidth: Double
    let extra: Double

    var count: Int { items.count }
    func id(at offset: Int) -> Int64 { items[offset].id }
    func height(at offset: Int) -> Double? {
        let size = items[offset].size
        let height = columnWidth * size.height / size.width + extra
        // Positive, finite sides (NaN fails every comparison) and a height that neither
        // overflowed nor fell to zero.
        guard size.width > 0, size.height > 0, size.width < .infinity, size.height < .infinity, height > 0, height < .infinity else { return nil }
        return height
    }
}

/// One height for every item: a width ratio or a fixed height.
private struct SameHeightSource: PlacementSource {
    let items: UnsafeBufferPointer<LayoutItem>
    let height: Double

    var count: Int { items.count }
    func id(at offset: Int) -> Int64 { items[offset].id }
    func height(at offset: Int) -> Double? { height }
}

private struct HeightSource: PlacementSource {
    let ids: ArraySlice<Int64>
    let heights: ArraySlice<Double>

    var count: Int { ids.count }
    func id(at offset: Int) -> Int64 { ids[ids.startIndex + offset] }
    func height(at offset: Int) -> Double? { heights[heights.startIndex + offset] }
}

protocol ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int
}

struct ShortestFirst: ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int {
        var best = 0
        var lowest = bottoms[0]
        var column = 1
        while column < count {
            if bottoms[column] < lowest {
                best = column
                lowest = bottoms[column]
            }
            column += 1
        }
        return best
    }
}

/// Shortest first over many columns: the columns in a binary heap by (bottom, index), so that an
/// item costs log C comparisons rather than C (1,000 columns: 10 rather than 1,000), choosing as
/// `ShortestFirst` does. Between two calls the plain placement loop raises only the bottom of the
/// column returned, so each call first sifts that one down. Not for the loop with sections,
/// whose full-span items raise every column.
final class ShortestFirstHeap: ColumnChooser {
    private var heap: [Int] = []

    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int {
        func less(_ a: Int, _ b: Int) -> Bool { bottoms[a] < bottoms[b] || (bottoms[a] == bottoms[b] && a < b) }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                let child = left + 1 < heap.count && less(heap[left + 1], heap[left]) ? left + 1 : left
                guard less(heap[child], heap[parent]) else { return }
                heap.swapAt(child, parent)
                parent = child
            }
        }
        if heap.isEmpty {
            heap = Array(0..<count)
            for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start) }
        } else {
            siftDown(0)
        }
        return heap[0]
    }
}

/// Shortest first for two columns: no loop, no branch.
struct ShortestOfTwo: ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int {
        bottoms[1] < bottoms[0] ? 1 : 0
    }
}

struct Cyclic: ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int { index % count }
}

struct CyclicReversed: ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int { count - 1 - index % count }
}

/// Per-column state of a placement loop, in raw buffers because the loop touches it for every
/// item: whether the column holds an item yet, how many it holds, and the first window whose
/// start in the column is not known yet (it points past the column's end). Release with
/// `deallocate()`.
struct ColumnCursors {
    let filled: UnsafeMutableBufferPointer<Bool>
    let counts: UnsafeMutableBufferPointer<Int32>
    let nextWindow: UnsafeMutableBufferPointer<Int>

    /// The state `table` leaves, its window starts read `stride` entries to a window.
    init(_ table: PlacementTable, stride: Int, filled isFilled: (Int) -> Bool) {
        let columnCount = table.geometry.columnCount
        filled = .allocate(capacity: columnCount)
        counts = .allocate(capacity: columnCount)
        nextWindow = .allocate(capacity: columnCount)
        let windows = table.windowStarts.count / stride
        for column in 0..<columnCount {
            filled[column] = isFilled(column)
            counts[column] = Int32(table.columnItems[column].count)
            var window = windows
            while window > 0, table.windowStarts[(window - 1) * stride + column] == counts[column] { window -= 1 }
            nextWindow[column] = window
        }
    }

    /// After the loop: in columns that never reached a window, the walk starts past their end.
    func startPastEnds(_ windowStarts: inout [Int32], stride: Int) {
        for column in counts.indices {
            var window = nextWindow[column]
            while window * stride < windowStarts.count {
                windowStarts[window * stride + column] = counts[column]
                window += 1
            }
        }
    }

    func deallocate() {
        filled.deallocate()
        counts.deallocate()
        nextWindow.deallocate()
    }
}
