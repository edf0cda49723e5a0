/// What a reader needs to decode any window on its own.
public struct LayoutArchiveHeader: Sendable, Hashable {
    /// The format the archive was written in (1 to ``LayoutArchive/formatVersion``).
    public let version: Int
    public let geometry: ColumnGeometry
    public let windowHeight: Double
    public let itemCount: Int
    public let contentHeight: Double
    public let windowCount: Int
    /// Version 2: the sections, their spans' rule, and the last section's placement state;
    /// version 3 with sections: its sections.
    public let sections: ArchivedSections?
    /// Version 3: justified rows.
    public let rows: ArchivedRows?
    /// Version 4: the carousel.
    public let carousel: ArchivedCarousel?

    /// Reads a header; throws ``LayoutError/unsupportedArchiveVersion(_:)`` for a format newer
    /// than this build reads, ``LayoutError/corruptArchive(_:)`` for anything else unreadable:
    /// bytes that run short or are left over, parameters no style accepts, a window height or
    /// window count that does not fit the content's length, more than 2³¹ − 1 items, sections
    /// out of order. A header that reads can be asked for its windows and decode them safely;
    /// what its windows say is checked as they are decoded.
    public init(bytes: [UInt8]) throws(LayoutError) {
        var reader = ByteReader(bytes)
        guard try reader.raw(LayoutArchive.magic.count).elementsEqual(LayoutArchive.magic) else {
            throw .corruptArchive("not a layout archive")
        }
        let versionByte = try reader.uint8()
        guard versionByte > LayoutArchive.versionBase else {
            throw .corruptArchive("format version byte \(versionByte) is below \"1\"")
        }
        version = Int(versionByte - LayoutArchive.versionBase)
        guard version <= LayoutArchive.formatVersion else { throw .unsupportedArchiveVersion(version) }
        switch version {
        case 3:
            let (rows, windowHeight, itemCount, contentHeight, windowCount) = try Self.readRows(&reader)
            let style = rows.style
            geometry = try Self.geometry(width: style.width, columns: 1, columnSpacing: style.spacing, rowSpacing: style.rowSpacing, insets: style.insets)
            (self.windowHeight, self.itemCount, self.contentHeight, self.windowCount) = (windowHeight, itemCount, contentHeight, windowCount)
            (self.rows, self.carousel, sections) = (rows, nil, rows.sectioning == nil ? nil : rows.sections)
            try Self.checkWindows(windowHeight: windowHeight, windowCount: windowCount, itemCount: itemCount, extent: contentHeight,
                                  endInset: style.insets.bottom)
        case 4:
            let (carousel, windowHeight, itemCount, contentWidth, windowCount) = try Self.readCarousel(&reader)
            geometry = try Self.geometry(width: carousel.insets.left + carousel.insets.right + 1, columns: 1, columnSpacing: carousel.spacing,
                                         rowSpacing: 0, insets: carousel.insets)
            (self.windowHeight, self.itemCount, self.contentHeight, self.windowCount) = (windowHeight, itemCount, contentWidth, windowCount)
            (self.rows, self.carousel, sections) = (nil, carousel, nil)
            try Self.checkWindows(windowHeight: windowHeight, windowCount: windowCount, itemCount: itemCount, extent: contentWidth,
                                  endInset: carousel.insets.right)
        default:
            (rows, carousel) = (nil, nil)
            let width = try reader.double()
            let columns = try reader.varint()
            let columnSpacing = try reader.double()
            let rowSpacing = try reader.double()
            let insets = Insets(top: try reader.double(), left: try reader.double(), bottom: try reader.double(), right: try reader.double())
            geometry = try Self.geometry(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets)
            windowHeight = try reader.double()
            itemCount = try reader.varint()
            contentHeight = try reader.double()
            windowCount = try reader.varint()
            try Self.checkWindows(windowHeight: windowHeight, windowCount: windowCount, itemCount: itemCount, extent: contentHeight,
                                  endInset: insets.bottom)
            sections = version >= 2 ? try ArchivedSections(reading: &reader, columnCount: geometry.columnCount, itemCount: itemCount) : nil
        }
        guard reader.isAtEnd else { throw .corruptArchive("trailing bytes in the header") }
    }

    /// The column grid a header describes; parameters no style accepts are a corrupt archive.
    private static func geometry(width: Double, columns: Int, columnSpacing: Double, rowSpacing: Double,
                                 insets: Insets) throws(LayoutError) -> ColumnGeometry {
        do {
            return try ColumnGeometry(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets)
        } catch {
            throw .corruptArchive("geometry: \(error.description)")
        }
    }

    /// The windows a band needs: the one holding its start (every item that meets the band
    /// and starts above it is in that window too) through the one holding its end.
    public func windows(for band: Range<Double>) -> ClosedRange<Int>? {
        guard !band.isEmpty, band.upperBound > 0, windowCount > 0 else { return nil }
        // Clamped before converting: a band far past the end (1e300) must not trap in Int(_:).
        let count = Double(windowCount)
        let first = band.lowerBound <= 0 ? 0 : Int(min(count, (band.lowerBound / windowHeight).rounded(.down)))
        let last = min(windowCount - 1, Int(min(count, (band.upperBound.nextDown / windowHeight).rounded(.down))))
        return first <= last ? first...last : nil
    }

    /// Decodes one window's placements, in layout order.
    public func decodeWindow(_ bytes: [UInt8]) throws(LayoutError) -> [LayoutAttributes] {
        if let rows { return try decodeRowWindow(bytes, rows) }
        if let carousel { return try decodeCarouselWindow(bytes, carousel) }
        if let sections { return try decodeSectionedWindow(bytes, sections) }
        var reader = ByteReader(bytes)
        guard try reader.varint() == geometry.columnCount else { throw .corruptArchive("window column count") }
        var items: [LayoutAttributes] = []
        for column in 0..<geometry.columnCount {
            let n = try reader.varint()
            guard n > 0 else { continue }
            var y = try reader.double()
            var index = -1
            var previousHeight = 0.0
            let x = geometry.x(ofColumn: column)
            for position in 0..<n {
                index = try LayoutArchive.index(after: index, gap: try reader.varint(), isFirst: position == 0, itemCount: itemCount)
                let id = try reader.int64()
                let height = try reader.double()
                if position > 0 { y = (y + previousHeight) + geometry.rowSpacing } // as placement computed it
                previousHeight = height
                items.append(LayoutAttributes(index: index, id: id, frame: Rect(x: x, y: y, width: geometry.columnWidth, height: height), column: column))
            }
        }
        guard reader.isAtEnd else { throw .corruptArchive("trailing bytes in a window") }
        if geometry.columnCount > 1 { items.sort { $0.index < $1.index } }
        return items
    }

    /// The placements of `windows` (decoded from the range `windows(for:)` gave) that overlap
    /// `band` by a positive height, in layout order, each once; with `pinningHeaders`, the
    /// header of the section the band starts in held at its top, as the table answers.
    public func items(in band: Range<Double>, windows: [[UInt8]], pinningHeaders: Bool = false) throws(LayoutError) -> [LayoutAttributes] {
        if let sections { return try sectionedItems(in: band, windows: windows, sections: sections, pinningHeaders: pinningHeaders) }
        var seen = Set<Int>()
        var result: [LayoutAttributes] = []
        // A carousel's band runs along x.
        let horizontal = carousel != nil
        func meets(_ frame: Rect) -> Bool {
            horizontal ? frame.x < band.upperBound && frame.x + frame.width > band.lowerBound : frame.overlaps(band)
        }
        for window in windows {
            for item in try decodeWindow(window) where meets(item.frame) && seen.insert(item.index).inserted {
                result.append(item)
            }
        }
        result.sort { $0.index < $1.index }
        return result
    }
}

