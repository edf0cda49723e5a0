/// Version 4 of the archive: the carousel, windows along x.
///
///     7 bytes  "ATGLAUT", 1 byte '4'
///     Double   item height, spacing, insets (top, left, bottom, right), window width
///     varint   item count, Double content width, varint window count
///
/// A window holds every item that meets it: varint n, and if n > 0 the first item's x, then
/// n times: varint index (the first absolute, then the gap), Int64 id, Double aspect. Widths
/// are aspect × item height and x the running (x + width) + spacing, as placed.
extension CarouselTable {
    public func archiveHeader() -> [UInt8] {
        var header = ByteWriter()
        header.raw(LayoutArchive.magic)
        header.uint8(LayoutArchive.versionBase + 4)
        for value in [style.itemHeight, style.spacing, style.insets.top, style.insets.left, style.insets.bottom, style.insets.right,
                      windowHeight] { header.double(value) }
        header.varint(count)
        header.double(contentWidth)
        header.varint(windowCount)
        return header.bytes
    }

    public func packedWindows(_ range: Range<Int>) -> PackedWindows {
        var out = ByteWriter()
        out.bytes.reserveCapacity(range.count * 64)
        var ends: [Int] = [], minIndices: [Int] = [], maxIndices: [Int] = []
        for window in range {
            let end = Double(window + 1) * windowHeight
            let start = Int(windowStarts[window])
            var stop = start
            while stop < count, xs[stop] < end { stop += 1 }
            out.varint(stop - start)
            if stop > start { out.double(xs[start]) }
            for item in start..<stop {
                out.varint(item == start ? item : 1)
                out.int64(ids[item])
                out.double(aspects[item])
            }
            ends.append(out.bytes.count)
            minIndices.append(stop > start ? start : -1)
            maxIndices.append(stop > start ? stop - 1 : -1)
        }
        return PackedWindows(bytes: out.bytes, ends: ends, minIndices: minIndices, maxIndices: maxIndices)
    }

    /// The table an archive of version 4 holds.
    ///
    /// Throws ``LayoutError/corruptArchive(_:)`` for an archive that does not describe a
    /// carousel its queries can answer: besides what ``LayoutArchiveHeader/init(bytes:)``
    /// checks, more items than the windows' bytes can hold, an item in no window, a width that
    /// is not finite or that no window would hold, an item not where placement puts it (the
    /// spacing right of the one before), a content width or a window count the items do not give.
    public init(archive: LayoutArchive) throws(LayoutError) {
        let header = try LayoutArchiveHeader(bytes: archive.header)
        guard let carousel = header.carousel else { throw .corruptArchive("not a carousel (format \(header.version))") }
        guard archive.windows.count == header.windowCount else { throw .corruptArchive("\(archive.windows.count) windows, header says \(header.windowCount)") }
        try LayoutArchive.checkItemCount(header.itemCount, fitIn: archive.windows)
        try self.init(style: carousel.style, windowHeight: header.windowHeight)
        var placed = [(id: Int64, x: Double, aspect: Double)?](repeating: nil, count: header.itemCount)
        for bytes in archive.windows {
            try header.readCarousel(bytes) { index, id, x, aspect in
                if placed[index] == nil { placed[index] = (id, x, aspect) }
            }
        }
        for (index, item) in placed.enumerated() {
            guard let item else { throw .corruptArchive("item \(index) is in no window") }
            // Where placement puts it: at the left inset, else the spacing right of the item
            // before (the arithmetic windows store only once a window).
            let x = ids.isEmpty ? style.insets.left : (contentRight + style.spacing)
            guard item.x == x else { throw .corruptArchive("item \(index) at \(item.x), placed at \(x)") }
            try LayoutArchive.checkHeld(from: x, extent: item.aspect * style.itemHeight, windowHeight: windowHeight, "item \(index)")
            ids.append(item.id)
            xs.append(item.x)
            aspects.append(item.aspect)
        }
        try LayoutArchive.checkReach(contentRight, windowHeight: windowHeight, windowCount: header.windowCount)
        try LayoutArchive.checkContentLength(contentWidth, header: header)
        rebuildWindows(from: 0)
        guard windowCount == header.windowCount else { throw .corruptArchive("\(windowCount) windows rebuilt, header says \(header.windowCount)") }
    }
}

/// What a version 4 header holds besides the common fields.
public struct ArchivedCarousel: Sendable, Hashable {
    public let style: CarouselLayout
    public var insets: Insets { style.insets }
    public var spacing: Double { style.spacing }
}

extension LayoutArchiveHeader {
    static func readCarousel(_ reader: inout ByteReader) throws(LayoutError) -> (ArchivedCarousel, windowHeight: Double, itemCount: Int,
                                                                                  contentWidth: Double, windowCount: Int) {
        let itemHeight = try reader.double(), spacing = try reader.double()
        let insets = Insets(top: try reader.double(), left: try reader.double(), bottom: try reader.double(), right: try reader.double())
        let windowHeight = try reader.double()
        let itemCount = try reader.varint()
        let contentWidth = try reader.double()
        let windowCount = try reader.varint()
        let style = CarouselLayout(itemHeight: itemHeight, spacing: spacing, insets: insets)
        do { try style.validate() } catch { throw .corruptArchive("carousel: \(error.description)") }
        return (ArchivedCarousel(style: style), windowHeight, itemCount, contentWidth, windowCount)
    }

    /// Walks a version 4 window's items: index, id, x, aspect.
    func readCarousel(_ bytes: [UInt8], item: (Int, Int64, Double, Double) throws(LayoutError) -> Void) throws(LayoutError) {
        guard let carousel else { throw .corruptArchive("not a carousel") }
        var reader = ByteReader(bytes)
        let n = try reader.varint()
        guard n > 0 else {
            guard reader.isAtEnd else { throw .corruptArchive("trailing bytes in a window") }
            return
        }
        var x = try reader.double()
        var index = -1
        for position in 0..<n {
            index = try LayoutArchive.index(after: index, gap: try reader.varint(), isFirst: position == 0, itemCount: itemCount)
            let id = try reader.int64()
            let aspect = try reader.double()
            try item(index, id, x, aspect)
            x = (x + aspect * carousel.style.itemHeight) + carousel.style.spacing
        }
        guard reader.isAtEnd else { throw .corruptArchive("trailing bytes in a window") }
    }

    func decodeCarouselWindow(_ bytes: [UInt8], _ carousel: ArchivedCarousel) throws(LayoutError) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        try readCarousel(bytes) { index, id, x, aspect in
            let height = carousel.style.itemHeight
            result.append(LayoutAttributes(index: index, id: id, frame: Rect(x: x, y: carousel.style.insets.top, width: aspect * height, height: height),
                                           column: 0))
        }
        return result
    }
}
