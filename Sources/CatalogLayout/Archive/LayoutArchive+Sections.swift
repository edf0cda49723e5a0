/// Version 2 of the archive: column layouts with sections, headers, footers and full-span items.
///
/// The header continues after the version 1 fields:
///
///     Double   header height, footer height, section spacing
///     varint   span every N (0: none)
///     byte     span height rule (0 fixed, 1 aspect ratio), Double its height or extra
///     varint   section count S
///     S times: varint first item (the first absolute, then the gap to the previous)
///              UInt64 key, Double top, Double item bottom, Double end
///     C times: Double column bottom, byte filled        (the last section's placement state,
///     varint   cycle base, varint position, Double reset top     which an append continues)
///
/// A window is version 1's column groups, with each index gap written as (gap << 1) | restart:
/// restart 1 is followed by the item's y, where it is not (y + height) + row spacing of the
/// item above it (the first below a header or a span). Then the spanning list:
///
///     varint   s (spanning placements that meet the window)
///     s times: byte kind (0 full-span cell, 1 header, 2 footer), varint ref (the cell's index,
///              or the section's), Int64 id, Double y, Double height
public struct ArchivedSections: Sendable, Hashable {
    public let sectioning: Sectioning
    public let starts: [Int]
    public let keys: [UInt64]
    public let tops: [Double]
    public let itemBottoms: [Double]
    public let ends: [Double]
    let bottoms: [Double]
    let filled: [Bool]
    let cycleBase: Int
    let position: Int
    let resetTop: Double

    init(reading reader: inout ByteReader, columnCount: Int, itemCount: Int) throws(LayoutError) {
        let headerHeight = try reader.double()
        let footerHeight = try reader.double()
        let spacing = try reader.double()
        let every = try reader.varint()
        let rule = try reader.uint8()
        let value = try reader.double()
        guard rule <= 1 else { throw .corruptArchive("span height rule \(rule)") }
        sectioning = Sectioning(headerHeight: headerHeight, footerHeight: footerHeight, sectionSpacing: spacing, spanEvery: every,
                                spanHeight: rule == 0 ? .fixed(value) : .aspectRatio(extra: value))
        do { try sectioning.validate() } catch { throw .corruptArchive("sections: \(error.description)") }
        let (starts, keys, tops, itemBottoms, ends) = try Self.readList(&reader, itemCount: itemCount)
        var bottoms: [Double] = [], filled: [Bool] = []
        for _ in 0..<columnCount {
            bottoms.append(try reader.double())
            filled.append(try reader.uint8() != 0)
        }
        (self.starts, self.keys, self.tops, self.itemBottoms, self.ends, self.bottoms, self.filled) = (starts, keys, tops, itemBottoms, ends, bottoms, filled)
        cycleBase = try reader.varint()
        position = try reader.varint()
        resetTop = try reader.double()
        try checkPlacementState(itemCount: itemCount)
    }

    /// The section list alone (version 3 keeps no column state).
    init(readingSectionsOnly reader: inout ByteReader, sectioning: Sectioning, itemCount: Int) throws(LayoutError) {
        self.sectioning = sectioning
        (starts, keys, tops, itemBottoms, ends) = try Self.readList(&reader, itemCount: itemCount)
        (bottoms, filled, cycleBase, position, resetTop) = ([], [], 0, 0, 0)
    }

    /// S, then S times: first item (gap), key, top, item bottom, end. Throws unless the list is
    /// what a layout of `itemCount` items has: a section for some items (none for none), the
    /// first at item 0, starts increasing within the items, and each section's top, items'
    /// bottom and end finite, in that order down the content, at or below the previous end.
    static func readList(_ reader: inout ByteReader, itemCount: Int) throws(LayoutError)
        -> ([Int], [UInt64], [Double], [Double], [Double]) {
        let count = try reader.varint()
        guard count <= itemCount, (count == 0) == (itemCount == 0) else { throw .corruptArchive("\(count) sections for \(itemCount) items") }
        var starts: [Int] = [], keys: [UInt64] = [], tops: [Double] = [], itemBottoms: [Double] = [], ends: [Double] = []
        for section in 0..<count {
            let gap = try reader.varint()
            let previous = section == 0 ? 0 : starts[section - 1]
            guard section == 0 ? gap == 0 : (gap > 0 && gap < itemCount - previous) else {
                throw .corruptArchive("section \(section) starts \(gap) items after item \(previous)")
            }
            starts.append(previous + gap)
            keys.append(try reader.uint64())
            let top = try reader.double(), itemBottom = try reader.double(), end = try reader.double()
            try LayoutArchive.checkPosition(top, atLeast: ends.last ?? 0, "section \(section)'s top")
            try LayoutArchive.checkPosition(itemBottom, atLeast: top, "section \(section)'s items' bottom")
            try LayoutArchive.checkPosition(end, atLeast: itemBottom, "section \(section)'s end")
            tops.append(top)
            itemBottoms.append(itemBottom)
            ends.append(end)
        }
        return (starts, keys, tops, itemBottoms, ends)
    }

    /// Throws unless the last section's placement state is one an append can continue: column
    /// bottoms between the items' restart and the section's items' bottom, the first item after
    /// the last restart within the section, and the count of its items.
    private func checkPlacementState(itemCount: Int) throws(LayoutError) {
        guard let lastStart = starts.last, let lastTop = tops.last, let itemBottom = itemBottoms.last else {
            guard cycleBase == 0, position == 0, resetTop.isFinite, bottoms.allSatisfy(\.isFinite) else {
                throw .corruptArchive("placement state without sections")
            }
            return
        }
        try LayoutArchive.checkPosition(resetTop, atLeast: lastTop, "the last section's items")
        for (column, bottom) in bottoms.enumerated() {
            try LayoutArchive.checkPosition(bottom, atLeast: resetTop, "column \(column)'s bottom")
            guard bottom <= itemBottom else { throw .corruptArchive("column \(column)'s bottom \(bottom) is below its section's items") }
        }
        guard (lastStart...itemCount).contains(cycleBase), position == itemCount - lastStart else {
            throw .corruptArchive("the last section's placement state (\(cycleBase), \(position)) for items \(lastStart)..<\(itemCount)")
        }
    }

    static func write(_ state: SectionedState, bottoms: [Double], into header: inout ByteWriter) {
        let sectioning = state.sectioning
        header.double(sectioning.headerHeight)
        header.double(sectioning.footerHeight)
        header.double(sectioning.sectionSpacing)
        header.varint(sectioning.spanEvery)
        switch sectioning.spanHeight {
        case .fixed(let height): header.uint8(0); header.double(height)
        case .aspectRatio(let extra): header.uint8(1); header.double(extra)
        }
        header.varint(state.starts.count)
        for section in state.starts.indices {
            header.varint(section == 0 ? state.starts[0] : state.starts[section] - state.starts[section - 1])
            header.uint64(state.keys[section])
            header.double(state.tops[section])
            header.double(state.itemBottoms[section])
            header.double(state.ends[section])
        }
        for column in bottoms.indices {
            header.double(bottoms[column])
            header.uint8(state.filled[column] ? 1 : 0)
        }
        header.varint(state.cycleBase)
        header.varint(state.position)
        header.double(state.resetTop)
    }

    /// The section holding item `index`. O(log S).
    func section(ofItem index: Int) -> Int { lastPosition(atOrBelow: index, in: starts) ?? 0 }

    /// The last section whose top is at or above `y`.
    func section(atY y: Double) -> Int? { lastPosition(atOrBelow: y, in: tops) }

    /// Every section, as ``PlacementTable/sectionInfos`` gives them.
    public func infos(itemCount: Int) -> [SectionInfo] {
        starts.indices.map { section in
            let next = section + 1 < starts.count ? starts[section + 1] : itemCount
            return SectionInfo(index: section, key: keys[section], firstItem: starts[section], itemCount: next - starts[section],
                               top: tops[section], itemBottom: itemBottoms[section], end: ends[section], headerHeight: sectioning.headerHeight)
        }
    }
}

/// A version 2 window as stored: its column groups' cells and its spanning list.
struct SectionedWindow {
    struct Cell { var index: Int; var id: Int64; var y: Double; var height: Double; var column: Int }
    struct Span { var kind: LayoutAttributes.Kind; var ref: Int; var id: Int64; var y: Double; var height: Double }
    var cells: [Cell] = []
    var spans: [Span] = []
}

extension LayoutArchiveHeader {
    func readSectionedWindow(_ bytes: [UInt8], _ sections: ArchivedSections) throws(LayoutError) -> SectionedWindow {
        var reader = ByteReader(bytes)
        guard try reader.varint() == geometry.columnCount else { throw .corruptArchive("window column count") }
        var window = SectionedWindow()
        for column in 0..<geometry.columnCount {
            let n = try reader.varint()
            guard n > 0 else { continue }
            var y = try reader.double()
            var index = -1
            var previousHeight = 0.0
            for position in 0..<n {
                let word = try reader.varint()
                let (gap, restart) = (word >> 1, word & 1 == 1)
                index = try LayoutArchive.index(after: index, gap: gap, isFirst: position == 0, itemCount: itemCount)
                if restart {
                    y = try reader.double()
                } else if position > 0 {
                    y = (y + previousHeight) + geometry.rowSpacing // as placement computed it
                }
                let id = try reader.int64()
                let height = try reader.double()
                previousHeight = height
                window.cells.append(.init(index: index, id: id, y: y, height: height, column: column))
            }
        }
        let spans = try reader.varint()
        for _ in 0..<spans {
            let kindByte = try reader.uint8()
            guard let kind = LayoutAttributes.Kind(rawValue: kindByte) else { throw .corruptArchive("placement kind \(kindByte)") }
            let ref = try reader.varint()
            guard kind == .cell ? ref < itemCount : ref < sections.starts.count else { throw .corruptArchive("\(kind) \(ref) is out of range") }
            window.spans.append(.init(kind: kind, ref: ref, id: try reader.int64(), y: try reader.double(), height: try reader.double()))
        }
        guard reader.isAtEnd else { throw .corruptArchive("trailing bytes in a window") }
        return window
    }

    /// A version 2 window's cells, headers and footers, in layout order.
    func decodeSectionedWindow(_ bytes: [UInt8], _ sections: ArchivedSections) throws(LayoutError) -> [LayoutAttributes] {
        let window = try readSectionedWindow(bytes, sections)
        var found: [(order: Int, attributes: LayoutAttributes)] = []
        for cell in window.cells {
            let frame = Rect(x: geometry.x(ofColumn: cell.column), y: cell.y, width: geometry.columnWidth, height: cell.height)
            found.append((cell.index * 4 + 1, LayoutAttributes(index: cell.index, id: cell.id, frame: frame, column: cell.column,
                                                                section: sections.section(ofItem: cell.index))))
        }
        for span in window.spans {
            let frame = Rect(x: geometry.insets.left, y: span.y, width: geometry.contentWidth, height: span.height)
            switch span.kind {
            case .cell:
                found.append((span.ref * 4 + 1, LayoutAttributes(index: span.ref, id: span.id, frame: frame, column: 0,
                                                                  section: sections.section(ofItem: span.ref))))
            case .header, .footer:
                let lastItem = (span.ref + 1 < sections.starts.count ? sections.starts[span.ref + 1] : itemCount) - 1
                found.append((span.kind == .header ? sections.starts[span.ref] * 4 : lastItem * 4 + 2,
                              LayoutAttributes(index: span.ref, id: span.id, frame: frame, column: 0, kind: span.kind, section: span.ref)))
            }
        }
        found.sort { $0.order < $1.order }
        return found.map(\.attributes)
    }

    func sectionedItems(in band: Range<Double>, windows: [[UInt8]], sections: ArchivedSections,
                        pinningHeaders: Bool) throws(LayoutError) -> [LayoutAttributes] {
        var seen = Set<Int>()
        var found: [(order: Int, attributes: LayoutAttributes)] = []
        func order(_ placement: LayoutAttributes) -> Int {
            switch placement.kind {
            case .cell: return placement.index * 4 + 1
            case .header: return sections.starts[placement.index] * 4
            case .footer: return ((placement.index + 1 < sections.starts.count ? sections.starts[placement.index + 1] : itemCount) - 1) * 4 + 2
            }
        }
        for window in windows {
            for placement in try decodeWindow(window) where placement.frame.overlaps(band) {
                let key = order(placement)
                if seen.insert(key).inserted { found.append((key, placement)) }
            }
        }
        if pinningHeaders, sections.sectioning.headerHeight > 0, !band.isEmpty, band.upperBound > 0,
           let section = sections.section(atY: band.lowerBound), band.lowerBound < sections.itemBottoms[section] {
            let height = sections.sectioning.headerHeight
            let y = min(max(sections.tops[section], band.lowerBound), sections.itemBottoms[section] - height)
            let header = LayoutAttributes(index: section, id: Int64(bitPattern: sections.keys[section]),
                                          frame: Rect(x: geometry.insets.left, y: y, width: geometry.contentWidth, height: height),
                                          column: 0, kind: .header, section: section)
            let key = sections.starts[section] * 4
            if let at = found.firstIndex(where: { $0.order == key }) { found[at].attributes = header } else { found.append((key, header)) }
        }
        found.sort { $0.order < $1.order }
        return found.map(\.attributes)
    }
}

extension PlacementTable {
    /// The windows in `range`, in version 2, one after another in one buffer.
    func packedSectionedWindows(_ state: SectionedState, _ range: Range<Int>) -> PackedWindows {
        let columnCount = geometry.columnCount
        let lists = listCount
        var out = ByteWriter()
        out.bytes.reserveCapacity(range.count * 64)
        var ends = [Int](repeating: 0, count: range.count)
        var minIndices = [Int](repeating: -1, count: range.count)
        var maxIndices = [Int](repeating: -1, count: range.count)
        let spacing = geometry.rowSpacing
        for window in range {
            let end = Double(window + 1) * windowHeight
            var lowest = Int.max
            var highest = -1
            out.varint(columnCount)
            for column in 0..<columnCount {
                let list = columnItems[column]
                let start = Int(windowStarts[window * lists + column])
                var stop = start
                while stop < list.count, ys[Int(list[stop])] < end { stop += 1 }
                out.varint(stop - start)
                guard stop > start else { continue }
                out.double(ys[Int(list[start])])
                var previous = 0
                for position in start..<stop {
                    let index = Int(list[position])
                    let gap = position == start ? index : index - previous
                    let restart = position > start && ys[index] != (ys[previous] + heights[previous]) + spacing
                    out.varint(gap << 1 | (restart ? 1 : 0))
                    if restart { out.double(ys[index]) }
                    out.int64(ids[index])
                    out.double(heights[index])
                    previous = index
                }
                lowest = min(lowest, Int(list[start]))
                highest = max(highest, Int(list[stop - 1]))
            }
            let start = Int(windowStarts[window * lists + columnCount])
            var stop = start
            while stop < state.spanYs.count, state.spanYs[stop] < end { stop += 1 }
            out.varint(stop - start)
            for position in start..<stop {
                out.uint8(state.spanKinds[position].rawValue)
                out.varint(state.spanRefs[position])
                out.int64(state.spanIDs[position])
                out.double(state.spanYs[position])
                out.double(state.spanHeights[position])
                if state.spanKinds[position] == .cell {
                    lowest = min(lowest, state.spanRefs[position])
                    highest = max(highest, state.spanRefs[position])
                }
            }
            ends[window - range.lowerBound] = out.bytes.count
            if highest >= 0 { (minIndices[window - range.lowerBound], maxIndices[window - range.lowerBound]) = (lowest, highest) }
        }
        return PackedWindows(bytes: out.bytes, ends: ends, minIndices: minIndices, maxIndices: maxIndices)
    }

    /// A table with sections from its archive: every placement from the first window that
    /// holds it, the sections and the last section's state from the header. Throws, as
    /// `init(archive:)` says, for placements that are not finite or that no window would hold,
    /// cells of a column that overlap, spanning placements that overlap, a full-span item that
    /// is a column's too, placements below the last section's end.
    init(sectioned archive: LayoutArchive, header: LayoutArchiveHeader, sections archived: ArchivedSections) throws(LayoutError) {
        // Decoded before the table is made, as the plain layout's windows are.
        var cells = [SectionedWindow.Cell?](repeating: nil, count: header.itemCount)
        var spans: [Int: SectionedWindow.Span] = [:] // by kind and ref
        // A placement in several windows is the same in each: a copy damaged in one window
        // alone answered one thing to a query there and wrote another into its archive.
        func same(_ a: SectionedWindow.Cell, _ b: SectionedWindow.Cell) -> Bool {
            a.id == b.id && a.y == b.y && a.height == b.height && a.column == b.column
        }
        for bytes in archive.windows {
            let window = try header.readSectionedWindow(bytes, archived)
            for cell in window.cells {
                if let first = cells[cell.index] {
                    guard same(first, cell) else { throw .corruptArchive("item \(cell.index) differs between two windows") }
                } else {
                    cells[cell.index] = cell
                }
            }
            for span in window.spans {
                try LayoutArchive.checkHeld(from: span.y, extent: span.height, windowHeight: header.windowHeight,
                                            "spanning \(span.kind) \(span.ref)")
                let key = span.ref * 4 + Int(span.kind.rawValue)
                if let first = spans[key] {
                    guard first.id == span.id, first.y == span.y, first.height == span.height else {
                        throw .corruptArchive("spanning \(span.kind) \(span.ref) differs between two windows")
                    }
                }
                spans[key] = span
                if span.kind == .cell {
                    let cell = SectionedWindow.Cell(index: span.ref, id: span.id, y: span.y, height: span.height, column: -1)
                    if let first = cells[span.ref] {
                        guard same(first, cell) else { throw .corruptArchive("item \(span.ref) differs between two windows") }
                    } else {
                        cells[span.ref] = cell
                    }
                }
            }
        }
        self.init(geometry: header.geometry, windowHeight: header.windowHeight, checkpointInterval: 1024, sectioning: archived.sectioning)
        reservePlacements(header.itemCount)
        var columnBottoms = bottoms
        var placedBottom = 0.0
        for (index, cell) in cells.enumerated() {
            guard let cell else { throw .corruptArchive("item \(index) is in no window") }
            try LayoutArchive.checkHeld(from: cell.y, extent: cell.height, windowHeight: windowHeight, "item \(index)")
            if cell.column >= 0 {
                // Stacked in its column, as placement leaves items: at or below the one above.
                try LayoutArchive.checkPosition(cell.y, atLeast: columnBottoms[cell.column], "item \(index)")
                columnBottoms[cell.column] = cell.y + cell.height
                placedBottom = max(placedBottom, cell.y + cell.height)
            }
            ids.append(cell.id)
            ys.append(cell.y)
            heights.append(cell.height)
            columns.append(Int32(cell.column))
            if cell.column >= 0 { columnItems[cell.column].append(Int32(index)) }
        }
        var state = sections!
        var spanBottom = 0.0
        for span in spans.values.sorted(by: { $0.y < $1.y }) {
            // The spanning list is stacked: each starts at or below the bottom of the one before.
            try LayoutArchive.checkPosition(span.y, atLeast: spanBottom, "a spanning \(span.kind) \(span.ref)")
            guard span.kind != .cell || columns[span.ref] == -1 else { throw .corruptArchive("item \(span.ref) is in a column and spans") }
            // A header or footer is where its section puts it, as tall as the rules say: pinned
            // headers are drawn from the sections, the others from these placements.
            let sectionKey = span.ref < archived.keys.count ? Int64(bitPattern: archived.keys[span.ref]) : nil
            switch span.kind {
            case .header:
                guard span.id == sectionKey, span.y == archived.tops[span.ref], span.height == archived.sectioning.headerHeight else {
                    throw .corruptArchive("the header of section \(span.ref) is not the one its section has")
                }
            case .footer:
                guard span.id == sectionKey, span.ref < archived.ends.count, span.height == archived.sectioning.footerHeight,
                      span.y + span.height == archived.ends[span.ref] else {
                    throw .corruptArchive("the footer of section \(span.ref) is not the one its section has")
                }
            default:
                break
            }
            spanBottom = span.y + span.height
            state.appendSpan(span.kind, ref: span.ref, id: span.id, y: span.y, height: span.height)
        }
        state.starts = archived.starts
        state.keys = archived.keys
        state.tops = archived.tops
        state.itemBottoms = archived.itemBottoms
        state.ends = archived.ends
        state.filled = archived.filled
        state.cycleBase = archived.cycleBase
        state.position = archived.position
        state.resetTop = archived.resetTop
        sections = state
        bottoms = archived.bottoms
        // Every placement ends at or above the last section's end, which the windows cover.
        guard max(spanBottom, placedBottom) <= contentBottom else { throw .corruptArchive("placements below the content's end") }
        try LayoutArchive.checkReach(contentBottom, windowHeight: windowHeight, windowCount: header.windowCount)
        try LayoutArchive.checkContentLength(contentHeight, header: header)
        rebuildWindows(from: 0)
        guard windowCount == header.windowCount else { throw .corruptArchive("\(windowCount) windows rebuilt, header says \(header.windowCount)") }
    }
}
