/// Placing items and keeping windows and checkpoints up to date.
extension PlacementTable {
    /// Places items, given as (id, height), after the existing ones, continuing from the
    /// column bottoms: O(m) for m items, plus the windows they reach.
    package mutating func append<Style: LayoutStyle>(_ items: some Sequence<(id: Int64, height: Double)>, style: Style) {
        let firstNewWindow = window(containing: bottoms.min() ?? 0)
        let total = count + items.underestimatedCount
        ids.reserveCapacity(total)
        ys.reserveCapacity(total)
        heights.reserveCapacity(total)
        columns.reserveCapacity(total)
        let top = geometry.insets.top
        let spacing = geometry.rowSpacing
        var index = count
        bottoms.withUnsafeMutableBufferPointer { bottoms in
            let view = UnsafeBufferPointer(bottoms)
            for item in items {
                if index % checkpointInterval == 0 { checkpoints.append(Array(view)) }
                let column = style.column(for: index, bottoms: view)
                let height = item.height
                let bottom = bottoms[column]
                let y = columnItems[column].isEmpty ? top : bottom + spacing
                bottoms[column] = y + height
                ids.append(item.id)
                ys.append(y)
                heights.append(height)
                columns.append(Int32(column))
                columnItems[column].append(Int32(index))
                index += 1
            }
        }
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
        for column in 0..<columnCount {
            let list = columnItems[column]
            var position = first == 0 ? 0 : Int(windowStarts[(first - 1) * columnCount + column])
            for window in first..<needed {
                let top = Double(window) * windowHeight
                while position < list.count, ys[Int(list[position])] + heights[Int(list[position])] <= top { position += 1 }
                windowStarts[window * columnCount + column] = Int32(position)
            }
        }
    }
}
