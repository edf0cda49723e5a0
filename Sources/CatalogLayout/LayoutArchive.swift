/// A layout as bytes: one header and one blob per pagination window, so a store can keep
/// them as rows and read the one window a page needs without reading the rest.
///
/// Window k holds every item that meets the band k × H ..< (k + 1) × H, grouped by column:
///
///     varint column count C
///     C times: varint n (items of this column in the window), and if n > 0
///              Double  y of the column's first item in the window
///              n times: varint index (the first absolute, then the gap to the previous)
///                       Int64  id
///                       Double height
///
/// Only the first y of each column is stored: the next one is (y + height) + row spacing, the
/// very arithmetic that placed it, so decoded frames are bit-identical to computed ones.
/// Items cost 17 to 19 bytes; an item that meets two windows is stored in both.
public struct LayoutArchive: Sendable, Hashable {
    public var header: [UInt8]
    public var windows: [[UInt8]]

    public init(header: [UInt8], windows: [[UInt8]]) {
        self.header = header
        self.windows = windows
    }

    /// Total bytes: what a store keeps.
    public var byteCount: Int { header.count + windows.reduce(0) { $0 + $1.count } }

    static let magic: UInt64 = 0x3154_5541_4C47_5441 // "ATGLAUT1"
}

/// What a reader needs to decode any window on its own.
public struct LayoutArchiveHeader: Sendable, Hashable {
    public let geometry: ColumnGeometry
    public let windowHeight: Double
    public let itemCount: Int
    public let contentHeight: Double
    public let windowCount: Int

    public init(bytes: [UInt8]) throws(LayoutError) {
        var reader = ByteReader(bytes)
        guard try reader.uint64() == LayoutArchive.magic else { throw .corruptArchive("not a layout archive") }
        let width = try reader.double()
        let columns = try reader.varint()
        let columnSpacing = try reader.double()
        let rowSpacing = try reader.double()
        let insets = Insets(top: try reader.double(), left: try reader.double(), bottom: try reader.double(), right: try reader.double())
        geometry = try ColumnGeometry(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets)
        windowHeight = try reader.double()
        itemCount = try reader.varint()
        contentHeight = try reader.double()
        windowCount = try reader.varint()
        guard windowHeight > 0, windowHeight.isFinite else { throw .corruptArchive("window height \(windowHeight)") }
    }

    /// The windows a band needs: the one holding its start (every item that meets the band
    /// and starts above it is in that window too) through the one holding its end.
    public func windows(for band: Range<Double>) -> ClosedRange<Int>? {
        guard !band.isEmpty, band.upperBound > 0, windowCount > 0 else { return nil }
        let first = band.lowerBound <= 0 ? 0 : Int((band.lowerBound / windowHeight).rounded(.down))
        let last = min(windowCount - 1, Int((band.upperBound.nextDown / windowHeight).rounded(.down)))
        return first <= last ? first...last : nil
    }

    /// Decodes one window's items, in layout order.
    public func decodeWindow(_ bytes: [UInt8]) throws(LayoutError) -> [LayoutAttributes] {
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
                let gap = try reader.varint()
                guard position == 0 || gap > 0 else { throw .corruptArchive("item indices out of order") }
                index = position == 0 ? gap : index + gap
                guard index < itemCount else { throw .corruptArchive("item index \(index) of \(itemCount)") }
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

    /// The items of `windows` (decoded from the range `windows(for:)` gave) that overlap
    /// `band` by a positive height, in layout order, each once.
    public func items(in band: Range<Double>, windows: [[UInt8]]) throws(LayoutError) -> [LayoutAttributes] {
        var seen = Set<Int>()
        var result: [LayoutAttributes] = []
        for window in windows {
            for item in try decodeWindow(window) where item.frame.overlaps(band) && seen.insert(item.index).inserted {
                result.append(item)
            }
        }
        result.sort { $0.index < $1.index }
        return result
    }
}

extension PlacementTable {
    /// The layout as a header and one blob per window.
    public func archive() -> LayoutArchive {
        var header = ByteWriter()
        header.uint64(LayoutArchive.magic)
        header.double(geometry.width)
        header.varint(geometry.columnCount)
        header.double(geometry.columnSpacing)
        header.double(geometry.rowSpacing)
        for inset in [geometry.insets.top, geometry.insets.left, geometry.insets.bottom, geometry.insets.right] { header.double(inset) }
        header.double(windowHeight)
        header.varint(count)
        header.double(contentHeight)
        header.varint(windowCount)
        return LayoutArchive(header: header.bytes, windows: (0..<windowCount).map(encodeWindow))
    }

    /// Window k: per column, the items from the window's start while they begin above its end.
    func encodeWindow(_ window: Int) -> [UInt8] {
        let columnCount = geometry.columnCount
        let end = Double(window + 1) * windowHeight
        var out = ByteWriter()
        out.varint(columnCount)
        for column in 0..<columnCount {
            let list = columnItems[column]
            let start = Int(windowStarts[window * columnCount + column])
            var stop = start
            while stop < list.count, ys[Int(list[stop])] < end { stop += 1 }
            out.varint(stop - start)
            guard stop > start else { continue }
            out.double(ys[Int(list[start])])
            var previous = 0
            for position in start..<stop {
                let index = Int(list[position])
                out.varint(position == start ? index : index - previous)
                out.int64(ids[index])
                out.double(heights[index])
                previous = index
            }
        }
        return out.bytes
    }

    /// Rebuilds a table from an archive: every item from the first window that holds it, then
    /// columns, windows and checkpoints as a computation would have left them.
    public init(archive: LayoutArchive, checkpointInterval: Int = 1024) throws(LayoutError) {
        let header = try LayoutArchiveHeader(bytes: archive.header)
        guard archive.windows.count == header.windowCount else { throw .corruptArchive("\(archive.windows.count) windows, header says \(header.windowCount)") }
        self.init(geometry: header.geometry, windowHeight: header.windowHeight, checkpointInterval: checkpointInterval)
        var placed = [LayoutAttributes?](repeating: nil, count: header.itemCount)
        for window in archive.windows {
            for item in try header.decodeWindow(window) where placed[item.index] == nil { placed[item.index] = item }
        }
        ids.reserveCapacity(header.itemCount)
        for (index, item) in placed.enumerated() {
            guard let item else { throw .corruptArchive("item \(index) is in no window") }
            if index % checkpointInterval == 0 { checkpoints.append(bottoms) }
            ids.append(item.id)
            ys.append(item.frame.y)
            heights.append(item.frame.height)
            columns.append(Int32(item.column))
            columnItems[item.column].append(Int32(index))
            bottoms[item.column] = item.frame.y + item.frame.height
        }
        rebuildWindows(from: 0)
    }
}
