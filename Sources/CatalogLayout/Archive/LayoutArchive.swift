/// A layout as bytes: one header and one blob per pagination window, so a store can keep
/// them as rows and read the one window a page needs without reading the rest.
///
/// The header (all numbers little-endian; varints are LEB128):
///
///     7 bytes  magic "ATGLAUT" (0x41 0x54 0x47 0x4C 0x41 0x55 0x54)
///     1 byte   format version v, written as the byte 0x30 + v: '1' for version 1
///     --- version 1 (the column encoding) from here on ---
///     Double   content width W
///     varint   column count C
///     Double   column spacing
///     Double   row spacing
///     Double   insets: top, left, bottom, right
///     Double   window height H
///     varint   item count
///     Double   content height
///     varint   window count
///
/// The first eight bytes of a version 1 header are therefore "ATGLAUT1", the magic that
/// every layout stored before the version byte existed begins with: those layouts read as
/// version 1, byte for byte unchanged. A reader checks the magic first (other bytes:
/// ``LayoutError/corruptArchive(_:)``), then the version, before it reads anything else: a
/// version above ``formatVersion`` is ``LayoutError/unsupportedArchiveVersion(_:)`` (a
/// newer build wrote it: compute the layout again), a byte below '1' is corrupt. Each new
/// encoding (sections, justified rows, carousel) takes the next version; a writer keeps
/// writing the lowest version that can express its layout, so column layouts stay version 1.
/// See <doc:OnePlacementModel>.
///
/// Version 1 windows: window k holds every item that meets the band k × H ..< (k + 1) × H,
/// grouped by column:
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
///
/// Version 2 (column layouts with sections, headers, footers or full-span items) adds the
/// sections to the header and a spanning list to each window: see `LayoutArchive+Sections.swift`.
public struct LayoutArchive: Sendable, Hashable {
    public var header: [UInt8]
    public var windows: [[UInt8]]

    public init(header: [UInt8], windows: [[UInt8]]) {
        self.header = header
        self.windows = windows
    }

    /// Total bytes: what a store keeps.
    public var byteCount: Int { header.count + windows.reduce(0) { $0 + $1.count } }

    /// The newest archive format this build reads: 4 (1 columns, 2 columns with sections,
    /// 3 justified rows, 4 the carousel). A writer writes the lowest version that can express
    /// its layout (1 for columns without sections). A header of a newer format throws
    /// ``LayoutError/unsupportedArchiveVersion(_:)``.
    public static let formatVersion = 4

    /// "ATGLAUT": the first seven bytes of every header.
    static let magic: [UInt8] = Array("ATGLAUT".utf8)
    /// Version v is written as the byte `versionBase + v` ('1' for 1), so a header begins as text.
    static let versionBase = UInt8(ascii: "0")
}

/// Consecutive windows of a layout (all of them, or a range) encoded one after another in one
/// buffer (the bytes of ``LayoutArchive/windows``, concatenated), with where each window ends
/// and the smallest and largest item index in it: what a store packs into few large rows.
public struct PackedWindows: Sendable, Hashable {
    public var bytes: [UInt8]
    /// `ends[k]`: the end of the k-th window's bytes here; it starts where the one before ends.
    public var ends: [Int]
    /// The smallest and largest item index in window k, −1 for both when no item meets it.
    public var minIndices: [Int]
    public var maxIndices: [Int]

    public var count: Int { ends.count }

    /// The bytes of window `k`.
    public func window(_ k: Int) -> ArraySlice<UInt8> {
        bytes[(k == 0 ? 0 : ends[k - 1])..<ends[k]]
    }
}

extension PlacementTable {
    /// The archive format this layout is written in: the lowest that can express it.
    public var archiveVersion: Int { sections == nil ? 1 : 2 }

    /// The archive header of this layout.
    public func archiveHeader() -> [UInt8] {
        var header = ByteWriter()
        header.raw(LayoutArchive.magic)
        header.uint8(LayoutArchive.versionBase + UInt8(archiveVersion))
        header.double(geometry.width)
        header.varint(geometry.columnCount)
        header.double(geometry.columnSpacing)
        header.double(geometry.rowSpacing)
        for inset in [geometry.insets.top, geometry.insets.left, geometry.insets.bottom, geometry.insets.right] { header.double(inset) }
        header.double(windowHeight)
        header.varint(count)
        header.double(contentHeight)
        header.varint(windowCount)
        if let sections { ArchivedSections.write(sections, bottoms: bottoms, into: &header) }
        return header.bytes
    }

    /// The windows in `range` encoded into one buffer: per column, the items from the window's
    /// start while they begin above its end. One pass finds each window's items (and so an
    /// upper bound of the bytes), the second writes them straight into memory sized once.
    public func packedWindows(_ range: Range<Int>) -> PackedWindows {
        if let sections { return packedSectionedWindows(sections, range) }
        let columnCount = geometry.columnCount
        let windows = range.count
        let first = range.lowerBound
        // Pass 1: the run of each column's list in each window.
        var stops = [Int32](repeating: 0, count: windows * columnCount)
        var bound = 0
        ys.withUnsafeBufferPointer { ys in
            for column in 0..<columnCount {
                columnItems[column].withUnsafeBufferPointer { list in
                    var stop = 0
                    for window in 0..<windows {
                        let end = Double(first + window + 1) * windowHeight
                        let start = Int(windowStarts[(first + window) * columnCount + column])
                        stop = max(stop, start)
                        while stop < list.count, ys[Int(list[stop])] < end { stop += 1 }
                        stops[window * columnCount + column] = Int32(stop)
                        bound += 10 + 8 + (stop - start) * (10 + 16)
                    }
                }
            }
        }
        bound += windows * 10
        // Pass 2: write.
        var ends = [Int](repeating: 0, count: windows)
        var minIndices = [Int](repeating: -1, count: windows)
        var maxIndices = [Int](repeating: -1, count: windows)
        let bytes = [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            var out = RawWriter(base: UnsafeMutableRawPointer(buffer.baseAddress!))
            ys.withUnsafeBufferPointer { ys in
                ids.withUnsafeBufferPointer { ids in
                    heights.withUnsafeBufferPointer { heights in
                        for window in 0..<windows {
                            out.varint(columnCount)
                            var lowest = Int.max
                            var highest = -1
                            for column in 0..<columnCount {
                                columnItems[column].withUnsafeBufferPointer { list in
                                    let start = Int(windowStarts[(first + window) * columnCount + column])
                                    let stop = Int(stops[window * columnCount + column])
                                    out.varint(stop - start)
                                    guard stop > start else { return }
                                    out.double(ys[Int(list[start])])
                                    var previous = 0
                                    for position in start..<stop {
                                        let index = Int(list[position])
                                        out.varint(position == start ? index : index - previous)
                                        out.int64(ids[index])
                                        out.double(heights[index])
                                        previous = index
                                    }
                                    lowest = min(lowest, Int(list[start]))
                                    highest = max(highest, Int(list[stop - 1]))
                                }
                            }
                            ends[window] = out.offset
                            if highest >= 0 { (minIndices[window], maxIndices[window]) = (lowest, highest) }
                        }
                    }
                }
            }
            precondition(out.offset <= bound, "window bytes past their bound")
            initialized = out.offset
        }
        return PackedWindows(bytes: bytes, ends: ends, minIndices: minIndices, maxIndices: maxIndices)
    }

    /// Rebuilds a table from an archive: every item from the first window that holds it, then
    /// columns, windows and checkpoints as a computation would have left them.
    ///
    /// Throws ``LayoutError/corruptArchive(_:)`` for an archive that does not describe a
    /// column layout its queries can answer: besides what ``LayoutArchiveHeader/init(bytes:)``
    /// checks, more items than the windows' bytes can hold, an item in no window, a height that
    /// is not finite or that no window would hold, an item not where placement puts it (below
    /// the one above in its column), a content height or a window count the items do not give. A table that
    /// decodes answers every query, and the archive it writes reads back.
    /// ``LayoutError/invalidCheckpointInterval(_:)`` for a `checkpointInterval` outside 1 to
    /// ``PlacementTable/maximumCheckpointInterval``.
    public init(archive: LayoutArchive, checkpointInterval: Int = 1024) throws(LayoutError) {
        guard (1...PlacementTable.maximumCheckpointInterval).contains(checkpointInterval) else { throw .invalidCheckpointInterval(checkpointInterval) }
        let header = try LayoutArchiveHeader(bytes: archive.header)
        guard header.rows == nil, header.carousel == nil else { throw .corruptArchive("not a column layout (format \(header.version))") }
        guard archive.windows.count == header.windowCount else { throw .corruptArchive("\(archive.windows.count) windows, header says \(header.windowCount)") }
        try LayoutArchive.checkItemCount(header.itemCount, fitIn: archive.windows)
        // Its columns are at most ColumnGeometry.maximumColumns: the header's geometry was checked as a style's is.
        if let sections = header.sections {
            try self.init(sectioned: archive, header: header, sections: sections)
            return
        }
        // Decoded before the table is made: a window holds a count per column, so a column count
        // the bytes cannot hold throws here rather than sizing the table's column lists.
        var placed = [LayoutAttributes?](repeating: nil, count: header.itemCount)
        for window in archive.windows {
            for item in try header.decodeWindow(window) where placed[item.index] == nil { placed[item.index] = item }
        }
        self.init(geometry: header.geometry, windowHeight: header.windowHeight, checkpointInterval: checkpointInterval)
        reservePlacements(header.itemCount)
        var filled = [Bool](repeating: false, count: geometry.columnCount)
        for (index, item) in placed.enumerated() {
            guard let item else { throw .corruptArchive("item \(index) is in no window") }
            // Where placement puts it: the top inset in an empty column, else the bottom of the
            // item above plus the row spacing (the arithmetic windows store only once a column).
            let y = filled[item.column] ? bottoms[item.column] + geometry.rowSpacing : geometry.insets.top
            guard item.frame.y == y else { throw .corruptArchive("item \(index) at \(item.frame.y), placed at \(y)") }
            try LayoutArchive.checkHeld(from: y, extent: item.frame.height, windowHeight: windowHeight, "item \(index)")
            filled[item.column] = true
            if index % checkpointInterval == 0 { checkpoints.append(bottoms) }
            ids.append(item.id)
            ys.append(item.frame.y)
            heights.append(item.frame.height)
            columns.append(Int32(item.column))
            columnItems[item.column].append(Int32(index))
            bottoms[item.column] = item.frame.y + item.frame.height
        }
        try LayoutArchive.checkReach(contentBottom, windowHeight: windowHeight, windowCount: header.windowCount)
        try LayoutArchive.checkContentLength(contentHeight, header: header)
        rebuildWindows(from: 0)
        guard windowCount == header.windowCount else { throw .corruptArchive("\(windowCount) windows rebuilt, header says \(header.windowCount)") }
    }
}
