/// Flowing items into justified rows: greedy, O(n), and an append re-flows only the last row
/// when it was left open (breaking a row depends only on the items from the row's start).
extension RowTable {
    /// Lays out `items` as justified rows, in sections beginning at `starts` when `sectioning`
    /// is given (headers, footers, spacing between sections; each section restarts the rows).
    /// `starts` without `sectioning` throws ``LayoutError/invalidSections(_:)``.
    public init(items: [LayoutItem], style: JustifiedLayout, sections starts: [SectionStart]? = nil, sectioning: Sectioning? = nil,
                windowHeight: Double = 2048) throws(LayoutError) {
        try self.init(style: style, windowHeight: windowHeight, sectioning: sectioning)
        try append(items, sections: starts)
    }

    /// Makes room for `count` items in all, so that appending them a piece at a time never
    /// copies the items' arrays.
    public mutating func reserveCapacity(_ count: Int) {
        plannedCount = max(plannedCount, count)
        reserveItems(count)
    }

    private mutating func reserveItems(_ count: Int) {
        ids.reserveAdvisedCapacity(count)
        aspects.reserveAdvisedCapacity(count)
    }

    /// Places `items` after the existing ones in O(m), sections beginning at `starts` (nil:
    /// the last section continues); an open last row is flowed again with them. Throws
    /// ``LayoutError/invalidItemSize(index:size:)`` for a size that is not positive and finite,
    /// and ``LayoutError/invalidSections(_:)`` for `starts` that do not describe sections of
    /// `items`, or any `starts` in a table made without a ``Sectioning``, leaving the table as
    /// it was.
    public mutating func append(_ items: [LayoutItem], sections starts: [SectionStart]? = nil) throws(LayoutError) {
        let firstIndex = count
        if let offset = try place(items, sections: starts) { throw .invalidItemSize(index: firstIndex + offset, size: items[offset].size) }
    }

    /// The same, returning the offset of a refused item instead of throwing.
    package mutating func place(_ items: [LayoutItem], sections starts: [SectionStart]? = nil) throws(LayoutError) -> Int? {
        // As `Layout` says for the same call: sections need headers, footers and spacing to show.
        guard starts == nil || sectioning != nil else { throw .invalidSections("this layout has no sections: lay it out with a Sectioning") }
        let starts = starts ?? (items.isEmpty ? [] : [SectionStart(offset: 0, key: sectionKeys.last ?? 0)])
        try PlacementTable.check(starts, itemCount: items.count)
        guard !items.isEmpty else { return nil }
        if let refused = items.firstIndex(where: {
            !($0.size.width > 0 && $0.size.height > 0 && $0.size.width < .infinity && $0.size.height < .infinity
              && ($0.size.width / $0.size.height) * style.rowHeight > 0 && ($0.size.width / $0.size.height) < .infinity)
        }) { return refused }
        let limit = windowLimit(items: max(count + items.count, plannedCount), lists: 1)
        let reach = windowHeight * Double(limit)
        if reachBound(items, sections: starts.count) > reach {
            // It may reach too far: flowed on a copy (the arrays copied once), kept only if it
            // does not, so that a refused append leaves the table as it was.
            var trial = self
            let firstChanged = trial.flow(items, starts: starts)
            guard trial.contentBottom <= reach else { throw .tooManyWindows(limit: limit, windowHeight: windowHeight) }
            self = trial
            rebuildWindows(from: firstChanged)
            return nil
        }
        rebuildWindows(from: flow(items, starts: starts))
        return nil
    }

    /// Flows `items` after the existing ones, sections beginning at `starts`, without the
    /// windows; returns the first window to rebuild.
    private mutating func flow(_ items: [LayoutItem], starts: [SectionStart]) -> Int {
        let continuing = !sectionStarts.isEmpty && starts[0].key == sectionKeys.last
        var flow = Flow(table: self)
        // A new section leaves the last one as it was: closed, its last row at the target.
        if continuing { flow.reopen(&self) }
        // Stripes from here on are new: an open row flowed again may end higher or lower than
        // before, so every window from the one holding the last kept stripe's bottom is rebuilt
        // (earlier windows start at a kept stripe and stay as they are).
        let firstChanged = stripeYs.isEmpty ? 0 : Int(((stripeYs[stripeYs.count - 1] + stripeHeights[stripeHeights.count - 1]) / windowHeight).rounded(.down))
        // Geometric growth, as the standard library's, into advised memory.
        if ids.capacity < count + items.count { reserveItems(max(count + items.count, ids.capacity * 2)) }
        var nextStart = 0
        for (offset, item) in items.enumerated() {
            if nextStart < starts.count, starts[nextStart].offset == offset {
                if !(offset == 0 && continuing) {
                    if flow.open { flow.close(&self) }
                    flow.openSection(&self, key: starts[nextStart].key, at: count)
                }
                nextStart += 1
            }
            ids.append(item.id)
            aspects.append(item.size.width / item.size.height)
            flow.add(&self, item: count - 1)
        }
        flow.close(&self)
        return firstChanged
    }

    /// How far the content could reach with `items`, before they are flowed: a bound that is
    /// cheap and loose (`place` flows a copy when it says too far). Each row is charged to its
    /// first item: a row is at most twice the target height (one that is better without its
    /// last item keeps the height it had, no further from the target than the other), and at
    /// most the width over that item's aspect. Each section adds its header, footer, spacings
    /// and an unfinished last row, as does an open last row whose items flow again.
    func reachBound(_ items: [LayoutItem], sections: Int) -> Double {
        let target = style.rowHeight
        let available = style.contentWidth
        let perSection = (sectioning?.sectionSpacing ?? 0) + (sectioning?.headerHeight ?? 0) + (sectioning?.footerHeight ?? 0)
            + 2 * style.rowSpacing + target
        var reach = max(contentBottom, style.insets.top) + Double(sections + 1) * perSection
        if lastRowOpen, let first = rowFirsts.last {
            for item in first..<count { reach += min(2 * target, available / aspects[item]) + style.rowSpacing }
        }
        for item in items { reach += min(2 * target, available * item.size.height / item.size.width) + style.rowSpacing }
        return reach
    }

    /// The state of the row being filled and of the last section.
    struct Flow {
        let target: Double
        let available: Double
        let spacing: Double
        let rowSpacing: Double
        let sectioning: Sectioning?
        /// Where the next row starts.
        var nextY: Double
        /// The row being filled: its first item, how many, the sum of their aspects, and the
        /// height it would have with one item fewer.
        var first = 0
        var taken = 0
        var sum = 0.0
        var previousHeight = Double.infinity
        var open = false

        init(table: RowTable) {
            target = table.style.rowHeight
            available = table.style.contentWidth
            spacing = table.style.spacing
            rowSpacing = table.style.rowSpacing
            sectioning = table.sectioning
            nextY = table.style.insets.top
        }

        /// Opens the last section again: its footer and end go, and an open last row gives its
        /// items back to be flowed with the new ones.
        mutating func reopen(_ table: inout RowTable) {
            open = true
            let section = table.sectionStarts.count - 1
            if table.stripeKinds.last == .footer {
                table.removeLastStripe()
            }
            table.sectionItemBottoms.removeLast()
            table.sectionEnds.removeLast()
            let rowsStart = table.sectionStarts[section]
            if table.lastRowOpen, let row = table.rowFirsts.indices.last, table.rowFirsts[row] >= rowsStart {
                let firstItem = table.rowFirsts[row]
                table.rowFirsts.removeLast()
                table.rowStripes.removeLast()
                table.removeLastStripe()
                nextY = rowTop(table)
                for item in firstItem..<table.count { add(&table, item: item) }
            } else {
                nextY = rowTop(table)
            }
            table.lastRowOpen = false
        }

        /// Where a new row of the last section starts: below its last row, else below its
        /// header, else at its top.
        func rowTop(_ table: RowTable) -> Double {
            let top = table.sectionTops.last ?? table.style.insets.top
            if let stripe = table.stripeYs.indices.last, table.stripeYs[stripe] >= top {
                return table.stripeYs[stripe] + table.stripeHeights[stripe] + rowSpacing
            }
            return top
        }

        mutating func openSection(_ table: inout RowTable, key: UInt64, at index: Int) {
            let top = table.sectionEnds.last.map { $0 + (sectioning?.sectionSpacing ?? 0) } ?? table.style.insets.top
            let section = table.sectionStarts.count
            table.sectionStarts.append(index)
            table.sectionKeys.append(key)
            table.sectionTops.append(top)
            nextY = top
            if let header = sectioning?.headerHeight, header > 0 {
                table.appendStripe(.header, ref: section, y: top, height: header)
                nextY = top + header + rowSpacing
            }
            open = true
            taken = 0
        }

        /// Adds item `index` to the row being filled, closing rows as the rule says.
        mutating func add(_ table: inout RowTable, item index: Int) {
            if taken == 0 {
                first = index
                sum = 0
                previousHeight = .infinity
            }
            sum += table.aspects[index]
            taken += 1
            let height = (available - Double(taken - 1) * spacing) / sum
            guard height <= target else {
                previousHeight = height
                return
            }
            if taken > 1 && (height <= 0 || abs(previousHeight - target) <= abs(height - target)) {
                // The row is better without this item: it opens the next one.
                emitRow(&table, first: first, height: previousHeight)
                taken = 0
                add(&table, item: index)
                return
            }
            emitRow(&table, first: first, height: height)
            taken = 0
        }

        mutating func emitRow(_ table: inout RowTable, first: Int, height: Double) {
            table.rowFirsts.append(first)
            table.rowStripes.append(table.stripeYs.count)
            table.appendStripe(.cell, ref: first, y: nextY, height: height)
            nextY = nextY + height + rowSpacing
        }

        /// Ends the last section: an unfinished row at the target height, then the footer.
        mutating func close(_ table: inout RowTable) {
            guard open else { return }
            table.lastRowOpen = taken > 0
            if taken > 0 {
                emitRow(&table, first: first, height: target)
                taken = 0
            }
            // Every section has an item, so a row: the items end at its last row's bottom.
            let itemBottom = table.rowStripes.last.map { table.stripeYs[$0] + table.stripeHeights[$0] } ?? nextY
            table.sectionItemBottoms.append(itemBottom)
            if let footer = sectioning?.footerHeight, footer > 0 {
                let section = table.sectionStarts.count - 1
                table.appendStripe(.footer, ref: section, y: itemBottom + rowSpacing, height: footer)
                table.sectionEnds.append(itemBottom + rowSpacing + footer)
            } else {
                table.sectionEnds.append(itemBottom)
            }
            open = false
        }
    }

    mutating func appendStripe(_ kind: LayoutAttributes.Kind, ref: Int, y: Double, height: Double) {
        stripeKinds.append(kind)
        stripeRefs.append(ref)
        stripeYs.append(y)
        stripeHeights.append(height)
    }

    mutating func removeLastStripe() {
        stripeKinds.removeLast()
        stripeRefs.removeLast()
        stripeYs.removeLast()
        stripeHeights.removeLast()
    }
}
