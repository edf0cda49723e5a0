/// Placing and querying a layout with sections (see ``Sectioning`` and
/// <doc:SectionsHeadersAndSpans>).
extension PlacementTable {
    /// Places `items` after the existing ones, sections beginning where `starts` say. The
    /// last section is continued when the first start has its key. An item whose size cannot
    /// give its height (as a cell by the rule, or as a full-span item), or whose bottom lies past
    /// the windows the layout may have (``windowLimit``), stops it: the table is left as it was
    /// and that item's offset returned.
    package mutating func appendSectioned(_ items: [LayoutItem], starts: [SectionStart], rule: PlacementRule) throws(LayoutError) -> Int? {
        guard var state = sections else { preconditionFailure("not a layout with sections") }
        try Self.check(starts, itemCount: items.count)
        guard !items.isEmpty else { return nil }
        // The state is changed in place (a copy would cost every append all the layout's
        // sections and spans, and a layout made a piece at a time would copy them at each piece);
        // `mark` is what puts it back if an item is refused.
        sections = nil
        let mark = state.mark()
        let continuing = starts[0].key == state.keys.last && !state.starts.isEmpty
        // Room for what the sections add, so that their appends never copy.
        let spanning = state.sectioning.spanEvery > 0 ? items.count / state.sectioning.spanEvery + starts.count : 0
        state.reserve(sections: starts.count, spans: 2 * starts.count + spanning)
        let spansBefore = state.spanYs.last.map { min($0, state.ends.last ?? $0) } ?? 0
        let columnWidth = geometry.columnWidth
        let refused = items.withUnsafeBufferPointer { items in
            switch rule.height {
            case .aspectRatio(let extra):
                placeSectioned(items, starts, continuing, &state, column: rule.column, height: AspectHeight(columnWidth: columnWidth, extra: extra))
            case .widthRatio(let ratio):
                placeSectioned(items, starts, continuing, &state, column: rule.column, height: FixedHeight(height: columnWidth * ratio))
            case .fixed(let height):
                placeSectioned(items, starts, continuing, &state, column: rule.column, height: FixedHeight(height: height))
            }
        }
        if let refused {
            state.restore(mark) // the placement loop wrote nothing else of the table but the windows it put back
            sections = state
            return refused
        }
        close(&state)
        sections = state
        finishWindows(spansFrom: window(containing: spansBefore))
        return nil
    }

    private mutating func placeSectioned<Height: CellHeight>(_ items: UnsafeBufferPointer<LayoutItem>, _ starts: [SectionStart], _ continuing: Bool,
                                                            _ state: inout SectionedState, column: PlacementRule.Column, height: Height) -> Int? {
        switch column {
        case .shortestFirst where geometry.columnCount == 2: placeSectioned(items, starts, continuing, &state, chooser: ShortestOfTwo(), height: height)
        case .shortestFirst: placeSectioned(items, starts, continuing, &state, chooser: ShortestFirst(), height: height)
        case .cyclic: placeSectioned(items, starts, continuing, &state, chooser: Cyclic(), height: height)
        case .cyclicReversed: placeSectioned(items, starts, continuing, &state, chooser: CyclicReversed(), height: height)
        }
    }

    /// The placement loop with sections, specialized per column rule and cell height: new
    /// items are written into memory sized once, the column state lives in raw buffers, each
    /// column's window starts are recorded as its bottom passes them (as the plain loop does),
    /// and the rare events (a section's start, a full-span item) leave the fast path. An item
    /// that cannot be placed ends it before anything of the table but `state` changed: its
    /// offset is returned.
    private mutating func placeSectioned<Chooser: ColumnChooser, Height: CellHeight>(_ items: UnsafeBufferPointer<LayoutItem>,
                                                                                    _ starts: [SectionStart], _ continuing: Bool,
                                                                                    _ state: inout SectionedState, chooser: Chooser,
                                                                                    height cellHeight: Height) -> Int? {
        let added = items.count
        let start = count
        let geometry = geometry
        let columnCount = geometry.columnCount
        let lists = columnCount + 1
        let spacing = geometry.rowSpacing
        let contentWidth = geometry.contentWidth
        let windowHeight = windowHeight
        // Past this, an item is refused (``windowLimit``).
        let reach = windowHeight * Double(windowLimit(items: max(start + added, plannedCount), lists: lists))
        let sectioning = state.sectioning
        let every = sectioning.spanEvery
        var newColumns: [Int32] = []
        var newIDs: [Int64] = []
        var newYs: [Double] = []
        var newHeights: [Double] = []
        let cursors = ColumnCursors(self, stride: lists) { state.filled[$0] }
        defer { cursors.deallocate() }
        let (filled, columnCounts, nextWindow) = (cursors.filled, cursors.counts, cursors.nextWindow)
        var starts = starts[...]
        var nextOffset = starts.first?.offset ?? Int.max // the next section start's offset
        // Items until the next full-span one (Int.max: none).
        var untilSpan = every > 0 ? (every - (continuing ? state.position : 0) % every) % every : Int.max
        var columnBottoms = bottoms // a local copy: the loop writes it while it reads self's geometry
        // Likewise, moved out rather than copied. The loop writes a column's starts only from the
        // window it had not reached yet (`nextWindow`), where every start is the column's length
        // (`ColumnCursors`): what a refused item puts back, with the windows' count.
        var windows = windowStarts
        windowStarts = []
        let untouched = (windows: windows.count / lists, nextWindow: Array(nextWindow), counts: Array(columnCounts))
        var refused: Int? = nil
        var placed = 0
        newColumns = [Int32](unsafeUninitializedCapacity: added) { columnsOut, columnsDone in
          newHeights = [Double](unsafeUninitializedCapacity: added) { heightsOut, heightsDone in
            newYs = [Double](unsafeUninitializedCapacity: added) { ysOut, ysDone in
                newIDs = [Int64](unsafeUninitializedCapacity: added) { idsOut, idsDone in
                    MemoryAdvice.advise(columnsOut, heightsOut, ysOut, idsOut)
                    columnBottoms.withUnsafeMutableBufferPointer { bottoms in
                        for offset in 0..<added {
                            let index = start + offset
                            if offset == nextOffset {
                                if offset == 0 && continuing {
                                    Self.reopen(&state)
                                } else {
                                    if !state.isClosed { Self.close(&state, bottoms: bottoms, filled: filled, geometry: geometry) }
                                    Self.open(&state, key: starts.first!.key, at: index, bottoms: bottoms, filled: filled, geometry: geometry)
                                    untilSpan = every > 0 ? 0 : Int.max
                                }
                                starts.removeFirst()
                                nextOffset = starts.first?.offset ?? Int.max
                            }
                            let item = items[offset]
                            let size = item.size
                            let y: Double
                            let height: Double
                            let column: Int32
                            if untilSpan == 0 {
                                switch sectioning.spanHeight {
                                case .fixed(let fixed):
                                    height = fixed
                                case .aspectRatio(let extra):
                                    height = contentWidth * size.height / size.width + extra
                                    guard size.width > 0, size.height > 0, size.width < .infinity, size.height < .infinity, height > 0, height < .infinity else {
                                        refused = offset
                                        break
                                    }
                                }
                                if refused != nil { break }
                                var furthestDown = bottoms[0]
                                var any = filled[0]
                                for c in 1..<columnCount {
                                    furthestDown = max(furthestDown, bottoms[c])
                                    any = any || filled[c]
                                }
                                y = any ? furthestDown + spacing : state.resetTop
                                guard y + height <= reach else {
                                    refused = offset
                                    break
                                }
                                column = -1
                                state.appendSpan(.cell, ref: index, id: item.id, y: y, height: height)
                                for c in 0..<columnCount {
                                    bottoms[c] = y + height
                                    filled[c] = true
                                }
                                state.cycleBase = index + 1
                                untilSpan = every - 1
                            } else {
                                guard let cell = cellHeight.height(of: size) else {
                                    refused = offset
                                    break
                                }
                                height = cell
                                let chosen = chooser.column(for: index - state.cycleBase, bottoms: bottoms, count: columnCount)
                                y = filled[chosen] ? bottoms[chosen] + spacing : bottoms[chosen]
                                let bottom = y + height
                                guard bottom <= reach else {
                                    refused = offset
                                    break
                                }
                                bottoms[chosen] = bottom
                                filled[chosen] = true
                                let position = columnCounts[chosen]
                                columnCounts[chosen] = position + 1
                                while Double(nextWindow[chosen]) * windowHeight < bottom {
                                    let window = nextWindow[chosen]
                                    if window * lists >= windows.count { windows.append(contentsOf: repeatElement(Int32.min, count: lists)) }
                                    windows[window * lists + chosen] = position
                                    nextWindow[chosen] = window + 1
                                }
                                column = Int32(truncatingIfNeeded: chosen)
                                untilSpan &-= 1
                            }
                            (idsOut.baseAddress! + offset).initialize(to: item.id)
                            (ysOut.baseAddress! + offset).initialize(to: y)
                            (heightsOut.baseAddress! + offset).initialize(to: height)
                            (columnsOut.baseAddress! + offset).initialize(to: column)
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
        if let refused {
            windows.removeSubrange((untouched.windows * lists)...)
            for column in 0..<columnCount {
                for window in untouched.nextWindow[column]..<untouched.windows { windows[window * lists + column] = untouched.counts[column] }
            }
            windowStarts = windows
            return refused
        }
        cursors.startPastEnds(&windows, stride: lists)
        windowStarts = windows
        // Items in the last section: all of it if it began in this batch, else what it had and these.
        if let last = state.starts.last, last >= start { state.position = start + added - last } else { state.position += added }
        bottoms = columnBottoms
        for column in 0..<columnCount { state.filled[column] = filled[column] }
        appendPlaced(ids: newIDs, ys: newYs, heights: newHeights, columns: newColumns, from: start, counts: cursors.counts)
        return nil
    }

    /// After a placement: the windows the content's end (a footer, a last span) reaches beyond
    /// the columns', their columns' starts past each column's end, and the spanning list's
    /// starts from window `first` on.
    private mutating func finishWindows(spansFrom first: Int) {
        let columnCount = geometry.columnCount
        let lists = columnCount + 1
        let needed = windowsReaching(contentBottom)
        while windowStarts.count < needed * lists {
            for column in 0..<columnCount { windowStarts.append(Int32(truncatingIfNeeded: columnItems[column].count)) }
            windowStarts.append(Int32.min)
        }
        guard let state = sections else { return }
        let height = windowHeight
        let windows = windowStarts.count / lists
        var position = first == 0 ? 0 : Int(windowStarts[(first - 1) * lists + columnCount])
        if first > 0, position < 0 { position = 0 } // a start not written yet: walk from the list's beginning
        for window in min(first, windows)..<windows {
            let top = Double(window) * height
            while position < state.spanYs.count, state.spanYs[position] + state.spanHeights[position] <= top { position += 1 }
            windowStarts[window * lists + columnCount] = Int32(truncatingIfNeeded: position)
        }
    }

    /// Sections must begin with the first item, in order, each key differing from the one before.
    static func check(_ starts: [SectionStart], itemCount: Int) throws(LayoutError) {
        guard itemCount > 0 else {
            guard starts.isEmpty else { throw .invalidSections("section starts given for no items") }
            return
        }
        guard let first = starts.first, first.offset == 0 else { throw .invalidSections("the first section must start at the first item") }
        for (previous, next) in zip(starts, starts.dropFirst()) {
            guard next.offset > previous.offset, next.offset < itemCount else {
                throw .invalidSections("section starts must increase and lie within the items, got \(next.offset) after \(previous.offset)")
            }
            guard next.key != previous.key else { throw .invalidSections("consecutive sections have the same key \(next.key) at item \(next.offset)") }
        }
    }

    private static func open(_ state: inout SectionedState, key: UInt64, at index: Int, bottoms: UnsafeMutableBufferPointer<Double>,
                             filled: UnsafeMutableBufferPointer<Bool>, geometry: ColumnGeometry) {
        let sectioning = state.sectioning
        let top = state.ends.last.map { $0 + sectioning.sectionSpacing } ?? geometry.insets.top
        let section = state.starts.count
        state.starts.append(index)
        state.keys.append(key)
        state.tops.append(top)
        if sectioning.headerHeight > 0 {
            state.appendSpan(.header, ref: section, id: Int64(bitPattern: key), y: top, height: sectioning.headerHeight)
            state.resetTop = top + sectioning.headerHeight + geometry.rowSpacing
        } else {
            state.resetTop = top
        }
        for column in bottoms.indices {
            bottoms[column] = state.resetTop
            filled[column] = false
        }
        state.cycleBase = index
        state.position = 0
    }

    /// Ends the last section: its items' bottom, its footer, its end.
    private func close(_ state: inout SectionedState) {
        bottoms.withUnsafeBufferPointer { bottoms in
            state.filled.withUnsafeBufferPointer { filled in Self.close(&state, bottoms: bottoms, filled: filled, geometry: geometry) }
        }
    }

    private static func close(_ state: inout SectionedState, bottoms: UnsafeBufferPointer<Double>, filled: UnsafeBufferPointer<Bool>,
                              geometry: ColumnGeometry) {
        let section = state.starts.count - 1
        var itemBottom = state.resetTop
        if filled.contains(true) { itemBottom = bottoms.max() ?? state.resetTop }
        state.itemBottoms.append(itemBottom)
        let footer = state.sectioning.footerHeight
        if footer > 0 {
            let y = itemBottom + geometry.rowSpacing
            state.appendSpan(.footer, ref: section, id: Int64(bitPattern: state.keys[section]), y: y, height: footer)
            state.ends.append(y + footer)
        } else {
            state.ends.append(itemBottom)
        }
    }

    private static func close(_ state: inout SectionedState, bottoms: UnsafeMutableBufferPointer<Double>,
                              filled: UnsafeMutableBufferPointer<Bool>, geometry: ColumnGeometry) {
        close(&state, bottoms: UnsafeBufferPointer(bottoms), filled: UnsafeBufferPointer(filled), geometry: geometry)
    }

    /// Opens the last section again for more items: its footer and end go; its placement
    /// state is as closing left it.
    private static func reopen(_ state: inout SectionedState) {
        let section = state.starts.count - 1
        if state.spanKinds.last == .footer, state.spanRefs.last == section { state.removeLastSpan() }
        state.itemBottoms.removeLast()
        state.ends.removeLast()
    }

    // MARK: Queries

    /// Cells, headers and footers meeting `band`, in layout order. O(L + k) for the L lists of
    /// the band's first window and k placements walked, plus O(log S) to pin a header.
    func placements(in band: Range<Double>, pinningHeaders: Bool) -> [LayoutAttributes] {
        guard sections != nil, !band.isEmpty, band.upperBound > 0 else { return [] }
        // The section state is read in place (`sections!.…`): binding it to a local would
        // retain every one of its arrays, on every query.
        let (lower, upper) = (band.lowerBound, band.upperBound)
        var cells: [Int] = []
        var spans: [Int] = []
        let first = window(containing: lower)
        if first < windowCount {
            let lists = listCount
            let columnCount = geometry.columnCount
            ys.withUnsafeBufferPointer { ys in
                heights.withUnsafeBufferPointer { heights in
                    for column in 0..<columnCount {
                        columnItems[column].withUnsafeBufferPointer { list in
                            var position = Int(windowStarts[first * lists + column])
                            while position < list.count {
                                let index = Int(list[position])
                                if ys[index] >= upper { break }
                                if ys[index] + heights[index] > lower { cells.append(index) }
                                position += 1
                            }
                        }
                    }
                }
            }
            sections!.spanYs.withUnsafeBufferPointer { spanYs in
                sections!.spanHeights.withUnsafeBufferPointer { spanHeights in
                    var position = Int(windowStarts[first * lists + columnCount])
                    while position < spanYs.count, spanYs[position] < upper {
                        if spanYs[position] + spanHeights[position] > lower {
                            if sections!.spanKinds[position] == .cell { cells.append(sections!.spanRefs[position]) } else { spans.append(position) }
                        }
                        position += 1
                    }
                }
            }
        }
        Self.sortSmall(&cells)
        var pinned: LayoutAttributes?
        if pinningHeaders, sections!.sectioning.headerHeight > 0, let section = sections!.section(atY: lower),
           section < sections!.itemBottoms.count, lower < sections!.itemBottoms[section] {
            let height = sections!.sectioning.headerHeight
            let y = min(max(sections!.tops[section], lower), sections!.itemBottoms[section] - height)
            pinned = LayoutAttributes(index: section, id: Int64(bitPattern: sections!.keys[section]),
                                      frame: Rect(x: geometry.insets.left, y: y, width: geometry.contentWidth, height: height),
                                      column: 0, kind: .header, section: section)
        }
        // Layout order: each section's header, its cells by index, its footer. Cells come
        // sorted, so their sections are found by one search and then walked.
        var supplementary: [(order: Int, attributes: LayoutAttributes)] = spans.map { spanPlacement($0) }
        if let pinned {
            if let at = supplementary.firstIndex(where: { $0.attributes.kind == .header && $0.attributes.section == pinned.section }) {
                supplementary[at].attributes = pinned
            } else {
                supplementary.append((sections!.starts[pinned.section] * 4, pinned))
            }
        }
        if supplementary.count > 1 { supplementary.sort { $0.order < $1.order } }
        var result: [LayoutAttributes] = []
        result.reserveCapacity(cells.count + supplementary.count)
        var section = cells.first.map { sections!.section(ofItem: $0) } ?? 0
        var nextSupplementary = 0
        for index in cells {
            while section + 1 < sections!.starts.count, sections!.starts[section + 1] <= index { section += 1 }
            while nextSupplementary < supplementary.count, supplementary[nextSupplementary].order < index * 4 + 1 {
                result.append(supplementary[nextSupplementary].attributes)
                nextSupplementary += 1
            }
            var cell = plainAttributes(at: index)
            cell.section = section
            result.append(cell)
        }
        while nextSupplementary < supplementary.count {
            result.append(supplementary[nextSupplementary].attributes)
            nextSupplementary += 1
        }
        return result
    }

    /// A cell's attributes without its section (the caller knows it).
    private func plainAttributes(at index: Int) -> LayoutAttributes {
        let column = Int(columns[index])
        let frame = column < 0
            ? Rect(x: geometry.insets.left, y: ys[index], width: geometry.contentWidth, height: heights[index])
            : Rect(x: geometry.x(ofColumn: column), y: ys[index], width: geometry.columnWidth, height: heights[index])
        return LayoutAttributes(index: index, id: ids[index], frame: frame, column: max(0, column))
    }

    /// The header or footer at `position` of the spanning list, with its layout-order key.
    private func spanPlacement(_ position: Int) -> (order: Int, attributes: LayoutAttributes) {
        let ref = sections!.spanRefs[position]
        let kind = sections!.spanKinds[position]
        let frame = Rect(x: geometry.insets.left, y: sections!.spanYs[position], width: geometry.contentWidth, height: sections!.spanHeights[position])
        let attributes = LayoutAttributes(index: ref, id: sections!.spanIDs[position], frame: frame, column: 0, kind: kind, section: ref)
        let lastItem = (ref + 1 < sections!.starts.count ? sections!.starts[ref + 1] : count) - 1
        return (kind == .header ? sections!.starts[ref] * 4 : lastItem * 4 + 2, attributes)
    }

    /// Every section: what a date scrubber needs to jump to one. Empty without sections.
    public var sectionInfos: [SectionInfo] {
        guard let state = sections else { return [] }
        return state.starts.indices.map { section in
            let next = section + 1 < state.starts.count ? state.starts[section + 1] : count
            return SectionInfo(index: section, key: state.keys[section], firstItem: state.starts[section], itemCount: next - state.starts[section],
                               top: state.tops[section], itemBottom: state.itemBottoms[section], end: state.ends[section],
                               headerHeight: state.sectioning.headerHeight)
        }
    }
}

/// A cell's height from its size, specialized into the placement loop; nil when the size
/// cannot give one.
protocol CellHeight {
    func height(of size: Size) -> Double?
}

/// column width × display height / display width + extra: positive, finite sides and a
/// height that neither overflowed nor fell to zero only.
struct AspectHeight: CellHeight {
    let columnWidth: Double
    let extra: Double
    func height(of size: Size) -> Double? {
        let height = columnWidth * size.height / size.width + extra
        guard size.width > 0, size.height > 0, size.width < .infinity, size.height < .infinity, height > 0, height < .infinity else { return nil }
        return height
    }
}

/// The same height for every cell.
struct FixedHeight: CellHeight {
    let height: Double
    func height(of size: Size) -> Double? { height }
}
