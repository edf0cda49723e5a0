/// Version 3 of the archive: justified rows.
///
///     7 bytes  "ATGLAUT", 1 byte '3'
///     Double   width, target row height, spacing, row spacing, insets (top, left, bottom, right)
///     Double   window height
///     varint   item count, Double content height, varint window count
///     byte     1 with sections: Double header height, footer height, section spacing
///     varint   S sections, S times: varint first item (gap), UInt64 key, Double top,
///              Double item bottom, Double end (a layout without sections keeps one, key 0)
///     byte     1 when the last row never reached the target (an append re-flows it)
///
/// A window holds every stripe (row, header, footer) that meets it, top to bottom:
///
///     varint   s; s times: byte kind (0 row, 1 header, 2 footer), Double y, Double height,
///              then for a row: varint n, n times: varint index (the first absolute, then the
///              gap), Int64 id, Double aspect; for a header or footer: varint section, Int64 id
///
/// Widths are aspect × height and x the running (x + width) + spacing from the left inset, as
/// the flow computed them: decoded frames equal computed ones bit for bit.
extension RowTable {
    public func archiveHeader() -> [UInt8] {
        var header = ByteWriter()
        header.raw(LayoutArchive.magic)
        header.uint8(LayoutArchive.versionBase + 3)
        for value in [style.width, style.rowHeight, style.spacing, style.rowSpacing, style.insets.top, style.insets.left,
                      style.insets.bottom, style.insets.right, windowHeight] { header.double(value) }
        header.varint(count)
        header.double(contentHeight)
        header.varint(windowCount)
        if let sectioning {
            header.uint8(1)
            header.double(sectioning.headerHeight)
            header.double(sectioning.footerHeight)
            header.double(sectioning.sectionSpacing)
        } else {
            header.uint8(0)
        }
        header.varint(sectionStarts.count)
        for section in sectionStarts.indices {
            header.varint(section == 0 ? sectionStarts[0] : sectionStarts[section] - sectionStarts[section - 1])
            header.uint64(sectionKeys[section])
            header.double(sectionTops[section])
            header.double(sectionItemBottoms[section])
            header.double(sectionEnds[section])
        }
        header.uint8(lastRowOpen ? 1 : 0)
        return header.bytes
    }

    public func packedWindows(_ range: Range<Int>) -> PackedWindows {
        var out = ByteWriter()
        out.bytes.reserveCapacity(range.count * 64)
        var ends: [Int] = [], minIndices: [Int] = [], maxIndices: [Int] = []
        for window in range {
            let end = Double(window + 1) * windowHeight
            var stripe = Int(windowStarts[window])
            var stop = stripe
            while stop < stripeYs.count, stripeYs[stop] < end { stop += 1 }
            out.varint(stop - stripe)
            var (lowest, highest) = (-1, -1)
            while stripe < stop {
                let kind = stripeKinds[stripe], ref = stripeRefs[stripe]
                out.uint8(kind.rawValue)
                out.double(stripeYs[stripe])
                out.double(stripeHeights[stripe])
                if kind == .cell {
                    let last = ref == rowFirsts.last ? count : rowFirsts[row(ofItem: ref) + 1]
                    out.varint(last - ref)
                    for item in ref..<last {
                        out.varint(item == ref ? item : 1)
                        out.int64(ids[item])
                        out.double(aspects[item])
                    }
                    if lowest < 0 { lowest = ref }
                    highest = last - 1
                } else {
                    out.varint(ref)
                    out.int64(Int64(bitPattern: sectionKeys[ref]))
                }
                stripe += 1
            }
            ends.append(out.bytes.count)
            minIndices.append(lowest)
            maxIndices.append(highest)
        }
        return PackedWindows(bytes: out.bytes, ends: ends, minIndices: minIndices, maxIndices: maxIndices)
    }

    /// The table an archive of version 3 holds: every stripe and item from the windows, the
    /// sections from the header.
    ///
    /// Throws ``LayoutError/corruptArchive(_:)`` for an archive that does not describe rows its
    /// queries can answer: besides what ``LayoutArchiveHeader/init(bytes:)`` checks, more items
    /// than the windows' bytes can hold, an item in no window, an aspect ratio that is not
    /// finite, a stripe that is not finite or that no window would hold, stripes that overlap,
    /// rows that do not begin at item 0 and go on in order, headers and footers out of their
    /// sections' order, a content height or a window count the stripes do not give.
    public init(archive: LayoutArchive) throws(LayoutError) {
        let header = try LayoutArchiveHeader(bytes: archive.header)
        guard let rows = header.rows else { throw .corruptArchive("not justified rows (format \(header.version))") }
        guard archive.windows.count == header.windowCount else { throw .corruptArchive("\(archive.windows.count) windows, header says \(header.windowCount)") }
        try LayoutArchive.checkItemCount(header.itemCount, fitIn: archive.windows)
        try self.init(style: rows.style, windowHeight: header.windowHeight, sectioning: rows.sectioning)
        var items = [(id: Int64, aspect: Double)?](repeating: nil, count: header.itemCount)
        var stripes: [Double: (kind: LayoutAttributes.Kind, ref: Int, height: Double)] = [:]
        for bytes in archive.windows {
            try header.readRows(bytes) { kind, y, height, ref throws(LayoutError) in
                try LayoutArchive.checkHeld(from: y, extent: height, windowHeight: header.windowHeight, "a stripe")
                stripes[y] = (kind, ref, height)
            } item: { index, id, aspect throws(LayoutError) in
                try LayoutArchive.checkLength(aspect, "the aspect ratio of item \(index)")
                items[index] = (id, aspect)
            }
        }
        for (index, item) in items.enumerated() {
            guard let item else { throw .corruptArchive("item \(index) is in no window") }
            ids.append(item.id)
            aspects.append(item.aspect)
        }
        let sections = rows.sections
        (sectionStarts, sectionKeys, sectionTops, sectionItemBottoms, sectionEnds) = (sections.starts, sections.keys, sections.tops,
                                                                                     sections.itemBottoms, sections.ends)
        var order = StripeOrder()
        for y in stripes.keys.sorted() {
            let stripe = stripes[y]!
            try order.check(stripe.kind, ref: stripe.ref, y: y, height: stripe.height, in: self)
            if stripe.kind == .cell {
                rowFirsts.append(stripe.ref)
                rowStripes.append(stripeYs.count)
            }
            appendStripe(stripe.kind, ref: stripe.ref, y: y, height: stripe.height)
        }
        guard count == 0 || rowFirsts.first == 0 else { throw .corruptArchive("the first row does not begin at item 0") }
        guard order.bottom <= contentBottom else { throw .corruptArchive("stripes below the content's end") }
        lastRowOpen = rows.lastRowOpen
        try LayoutArchive.checkReach(contentBottom, windowHeight: windowHeight, windowCount: header.windowCount)
        try LayoutArchive.checkContentLength(contentHeight, header: header)
        rebuildWindows(from: 0)
        guard windowCount == header.windowCount else { throw .corruptArchive("\(windowCount) windows rebuilt, header says \(header.windowCount)") }
    }

    /// The stripes of a decoded table, checked in order down the content: each at or below the
    /// one before; rows beginning at increasing items; each section's header before its rows,
    /// its footer after them, sections in order; headers and footers only with sections.
    struct StripeOrder {
        var bottom = 0.0
        var section = -1
        var closed = false
        var lastRow = -1

        mutating func check(_ kind: LayoutAttributes.Kind, ref: Int, y: Double, height: Double, in table: RowTable) throws(LayoutError) {
            try LayoutArchive.checkPosition(y, atLeast: bottom, "a stripe")
            switch kind {
            case .cell:
                guard ref > lastRow else { throw .corruptArchive("a row begins at item \(ref) after one at \(lastRow)") }
                let rowSection = table.section(ofItem: ref)
                guard rowSection > section || (rowSection == section && !closed) else {
                    throw .corruptArchive("a row of section \(rowSection) after section \(section)'s end")
                }
                (lastRow, section, closed) = (ref, rowSection, false)
            case .header:
                guard table.sectioning != nil, ref > section else { throw .corruptArchive("header \(ref) after section \(section)") }
                (section, closed) = (ref, false)
            case .footer:
                guard table.sectioning != nil, ref == section, !closed else { throw .corruptArchive("footer \(ref) in section \(section)") }
                closed = true
            }
            bottom = y + height
        }
    }
}

/// What a version 3 header holds besides the common fields.
public struct ArchivedRows: Sendable, Hashable {
    public let style: JustifiedLayout
    public let sectioning: Sectioning?
    /// Every section (one, key 0, in a layout without sections).
    public let sections: ArchivedSections
    public let lastRowOpen: Bool
}

extension LayoutArchiveHeader {
    /// Reads the version 3 fields after the version byte.
    static func readRows(_ reader: inout ByteReader) throws(LayoutError) -> (ArchivedRows, windowHeight: Double, itemCount: Int,
                                                                              contentHeight: Double, windowCount: Int) {
        let width = try reader.double(), rowHeight = try reader.double(), spacing = try reader.double(), rowSpacing = try reader.double()
        let insets = Insets(top: try reader.double(), left: try reader.double(), bottom: try reader.double(), right: try reader.double())
        let windowHeight = try reader.double()
        let itemCount = try reader.varint()
        let contentHeight = try reader.double()
        let windowCount = try reader.varint()
        let style = JustifiedLayout(width: width, rowHeight: rowHeight, spacing: spacing, rowSpacing: rowSpacing, insets: insets)
        do { try style.validate() } catch { throw .corruptArchive("rows: \(error.description)") }
        guard windowHeight > 0, windowHeight.isFinite else { throw .corruptArchive("window height \(windowHeight)") }
        guard itemCount <= LayoutArchive.maximumItemCount else { throw .corruptArchive("\(itemCount) items") }
        var sectioning: Sectioning? = nil
        if try reader.uint8() == 1 {
            let read = Sectioning(headerHeight: try reader.double(), footerHeight: try reader.double(), sectionSpacing: try reader.double())
            do { try read.validate() } catch { throw .corruptArchive("sections: \(error.description)") }
            sectioning = read
        }
        let sections = try ArchivedSections(readingSectionsOnly: &reader, sectioning: sectioning ?? Sectioning(sectionSpacing: 0), itemCount: itemCount)
        let lastRowOpen = try reader.uint8() == 1
        return (ArchivedRows(style: style, sectioning: sectioning, sections: sections, lastRowOpen: lastRowOpen), windowHeight, itemCount,
                contentHeight, windowCount)
    }

    /// Walks a version 3 window: each stripe, and each item of its rows.
    func readRows(_ bytes: [UInt8], stripe: (LayoutAttributes.Kind, Double, Double, Int) throws(LayoutError) -> Void,
                  item: (Int, Int64, Double) throws(LayoutError) -> Void) throws(LayoutError) {
        var reader = ByteReader(bytes)
        let stripes = try reader.varint()
        var index = -1
        for _ in 0..<stripes {
            let kindByte = try reader.uint8()
            guard let kind = LayoutAttributes.Kind(rawValue: kindByte) else { throw .corruptArchive("stripe kind \(kindByte)") }
            let y = try reader.double(), height = try reader.double()
            if kind == .cell {
                let n = try reader.varint()
                guard n > 0 else { throw .corruptArchive("a row without items") }
                var first = -1
                for position in 0..<n {
                    index = try LayoutArchive.index(after: index, gap: try reader.varint(), isFirst: position == 0, itemCount: itemCount)
                    if position == 0 { first = index }
                    try item(index, try reader.int64(), try reader.double())
                }
                try stripe(kind, y, height, first)
            } else {
                let section = try reader.varint()
                guard let sections = rows?.sections, section < sections.starts.count else {
                    throw .corruptArchive("\(kind) of section \(section)")
                }
                _ = try reader.int64()
                try stripe(kind, y, height, section)
            }
        }
        guard reader.isAtEnd else { throw .corruptArchive("trailing bytes in a window") }
    }

    /// A version 3 window's cells, headers and footers, in layout order.
    func decodeRowWindow(_ bytes: [UInt8], _ rows: ArchivedRows) throws(LayoutError) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        var cells: [(Int, Int64, Double)] = []
        let style = rows.style
        try readRows(bytes) { kind, y, height, ref in
            if kind == .cell {
                var x = style.insets.left
                for (index, id, aspect) in cells {
                    let width = aspect * height
                    result.append(LayoutAttributes(index: index, id: id, frame: Rect(x: x, y: y, width: width, height: height), column: 0,
                                                   section: rows.sectioning == nil ? 0 : rows.sections.section(ofItem: index)))
                    x = (x + width) + style.spacing
                }
                cells.removeAll(keepingCapacity: true)
            } else {
                result.append(LayoutAttributes(index: ref, id: Int64(bitPattern: rows.sections.keys[ref]),
                                               frame: Rect(x: style.insets.left, y: y, width: style.contentWidth, height: height),
                                               column: 0, kind: kind, section: ref))
            }
        } item: { index, id, aspect in
            cells.append((index, id, aspect))
        }
        return result
    }
}
