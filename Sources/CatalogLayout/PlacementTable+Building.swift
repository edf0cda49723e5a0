/// Placing items and keeping windows and checkpoints up to date.
extension PlacementTable {
    /// Places `items` after the existing ones, continuing from the column bottoms: O(m) for
    /// m items, plus the windows they reach.
    package mutating func append(_ items: [LayoutItem], rule: PlacementRule) {
        let source = ItemSource(items: items, height: rule.height, columnWidth: geometry.columnWidth)
        place(source, column: rule.column)
    }

    /// Places items whose heights are already known (the tail of an edit) after the existing ones.
    package mutating func append(ids newIDs: ArraySlice<Int64>, heights newHeights: ArraySlice<Double>, rule: PlacementRule) {
        place(HeightSource(ids: newIDs, heights: newHeights), column: rule.column)
    }

    private mutating func place<Source: PlacementSource>(_ source: Source, column rule: PlacementRule.Column) {
        switch rule {
        case .shortestFirst: place(source, chooser: ShortestFirst())
        case .cyclic: place(source, chooser: Cyclic())
        case .cyclicReversed: place(source, chooser: CyclicReversed())
        }
    }

    /// The placement loop, specialized for each source and column rule.
    private mutating func place<Source: PlacementSource, Chooser: ColumnChooser>(_ source: Source, chooser: Chooser) {
        let added = source.count
        guard added > 0 else { return }
        let firstNewWindow = window(containing: bottoms.min() ?? 0)
        let start = count
        let columnCount = geometry.columnCount
        let top = geometry.insets.top
        let spacing = geometry.rowSpacing
        let interval = checkpointInterval
        ids.append(contentsOf: repeatElement(0, count: added))
        ys.append(contentsOf: repeatElement(0, count: added))
        heights.append(contentsOf: repeatElement(0, count: added))
        columns.append(contentsOf: repeatElement(0, count: added))
        var filled = columnItems.map { !$0.isEmpty }
        var checkpointsDue: [(Int, [Double])] = []
        var untilCheckpoint = (interval - start % interval) % interval
        bottoms.withUnsafeMutableBufferPointer { bottoms in
            ids.withUnsafeMutableBufferPointer { ids in
                ys.withUnsafeMutableBufferPointer { ys in
                    heights.withUnsafeMutableBufferPointer { heights in
                        columns.withUnsafeMutableBufferPointer { columns in
                            for offset in 0..<added {
                                let index = start + offset
                                if untilCheckpoint == 0 {
                                    checkpointsDue.append((index, Array(bottoms)))
                                    untilCheckpoint = interval
                                }
                                untilCheckpoint -= 1
                                let column = chooser.column(for: index, bottoms: bottoms, count: columnCount)
                                let height = source.height(at: offset)
                                let y = filled[column] ? bottoms[column] + spacing : top
                                filled[column] = true
                                bottoms[column] = y + height
                                ids[index] = source.id(at: offset)
                                ys[index] = y
                                heights[index] = height
                                columns[index] = Int32(truncatingIfNeeded: column)
                            }
                        }
                    }
                }
            }
        }
        checkpoints.append(contentsOf: checkpointsDue.map(\.1))
        for index in start..<count { columnItems[Int(columns[index])].append(Int32(truncatingIfNeeded: index)) }
        rebuildWindows(from: firstNewWindow)
    }

    /// Removes items from `index` on, restoring the column bottoms from the checkpoint at or
    /// before it and replaying only the placements between that checkpoint and `index`.
    package mutating func truncate(to index: Int) {
        guard index < count else { return }
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

    /// Recomputes window starts from window `first` to the end of the content.
    package mutating func rebuildWindows(from first: Int) {
        let columnCount = geometry.columnCount
        let needed = count == 0 ? 0 : window(containing: bottoms.max() ?? 0) + 1
        let first = min(first, windowCount, needed)
        windowStarts.removeSubrange((first * columnCount)...)
        windowStarts.append(contentsOf: repeatElement(0, count: (needed - first) * columnCount))
        let height = windowHeight
        ys.withUnsafeBufferPointer { ys in
            heights.withUnsafeBufferPointer { heights in
                windowStarts.withUnsafeMutableBufferPointer { starts in
                    for column in 0..<columnCount {
                        columnItems[column].withUnsafeBufferPointer { list in
                            var position = first == 0 ? 0 : Int(starts[(first - 1) * columnCount + column])
                            for window in first..<needed {
                                let top = Double(window) * height
                                while position < list.count, ys[Int(list[position])] + heights[Int(list[position])] <= top { position += 1 }
                                starts[window * columnCount + column] = Int32(truncatingIfNeeded: position)
                            }
                        }
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
    func height(at offset: Int) -> Double
}

private struct ItemSource: PlacementSource {
    let items: [LayoutItem]
    let height: PlacementRule.Height
    let columnWidth: Double

    var count: Int { items.count }
    func id(at offset: Int) -> Int64 { items[offset].id }
    func height(at offset: Int) -> Double {
        let size = items[offset].size
        switch height {
        case .aspectRatio(let extra): return columnWidth * size.height / size.width + extra
        case .widthRatio(let ratio): return columnWidth * ratio
        case .fixed(let height): return height
        }
    }
}

private struct HeightSource: PlacementSource {
    let ids: ArraySlice<Int64>
    let heights: ArraySlice<Double>

    var count: Int { ids.count }
    func id(at offset: Int) -> Int64 { ids[ids.startIndex + offset] }
    func height(at offset: Int) -> Double { heights[heights.startIndex + offset] }
}

private protocol ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int
}

private struct ShortestFirst: ColumnChooser {
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

private struct Cyclic: ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int { index % count }
}

private struct CyclicReversed: ColumnChooser {
    func column(for index: Int, bottoms: UnsafeMutableBufferPointer<Double>, count: Int) -> Int { count - 1 - index % count }
}
