/// A stored layout's windows in `layout_segments` rows (Migrations/0005_layout_segments.sql;
/// Migrations/postgres/0001_catalog.sql): up to `windowsPerSegment` consecutive windows in one blob, so storing a layout writes a few
/// large rows, and a page reads the directory and its windows, not the rest of the blob
/// (SQLite: incremental blob reads, CatalogStore's `LayoutSegment.Reader`).
///
/// The blob (little-endian):
///
///     UInt32  n, the windows in the segment (1 to 64)
///     n times: UInt32 end of the window's bytes, counted from the start of the data
///              Int64  smallest item index in the window (−1 when the window is empty)
///              Int64  largest item index in the window (−1 when empty)
///     data: the windows' bytes (LayoutArchive windows), one after another
package enum LayoutSegment {
    /// Windows a segment holds at most; the table's CHECK constraint says the same, and readers
    /// rely on it to find a window's segment with one index range.
    package static let windowsPerSegment = 64
    package static let entrySize = 20

    package struct Entry {
        package var end: Int
        package var minIndex: Int64
        package var maxIndex: Int64
    }

    /// A segment's blob, with the smallest and largest item index over its non-empty windows
    /// (−1 when all are empty).
    package typealias Encoded = (bytes: [UInt8], minIndex: Int64, maxIndex: Int64)

    /// An encoded segment with the windows it holds, on its way to a store.
    package typealias Ranged = (range: Range<Int>, segment: Encoded)

    /// The blob of windows `range` (1 to `windowsPerSegment` of them).
    package static func encode(_ windows: LayoutWindows, _ range: Range<Int>) -> Encoded {
        encode(windows.packed(range))
    }

    /// The blob of the consecutive windows `packed` (1 to `windowsPerSegment` of them).
    package static func encode(_ packed: LayoutWindows.Packed) -> Encoded {
        let count = packed.ends.count
        let dataStart = 4 + entrySize * count
        let dataCount = packed.ends.last ?? 0
        var minIndex = Int64.max
        var maxIndex = Int64(-1)
        let bytes = [UInt8](unsafeUninitializedCapacity: dataStart + dataCount) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: UInt32(count).littleEndian, toByteOffset: 0, as: UInt32.self)
            for position in 0..<count {
                let low = Int64(packed.minIndices[position])
                let high = Int64(packed.maxIndices[position])
                if high >= 0 {
                    minIndex = min(minIndex, low)
                    maxIndex = max(maxIndex, high)
                }
                let entry = 4 + entrySize * position
                raw.storeBytes(of: UInt32(packed.ends[position]).littleEndian, toByteOffset: entry, as: UInt32.self)
                raw.storeBytes(of: low.littleEndian, toByteOffset: entry + 4, as: Int64.self)
                raw.storeBytes(of: high.littleEndian, toByteOffset: entry + 12, as: Int64.self)
            }
            packed.bytes.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: raw[dataStart...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<dataCount]))
            }
            initialized = dataStart + dataCount
        }
        return (bytes, minIndex == .max ? -1 : minIndex, maxIndex)
    }

    /// Hands `body` the segments of `windows` from window `first` on (a multiple of
    /// `windowsPerSegment`), in order: the window range and the encoded segment. Past a few
    /// segments they are encoded on a thread of their own, up to 8 ahead, so that encoding the
    /// windows and writing them take the two cores at once instead of turns. A stream's
    /// segments come as its computation puts them (`first` is 0 for a stream); it throws
    /// `LayoutSegmentStream.Stopped` if the computation failed.
    package static func forEachSegment(of windows: LayoutWindows, from first: Int, _ body: (Range<Int>, Encoded) throws -> Void) throws {
        if let stream = windows.stream {
            precondition(first == 0, "a stream is stored whole")
            while let next = try stream.take() { try body(next.range, next.segment) }
            return
        }
        let count = windows.count ?? 0
        let ranges = stride(from: first, to: count, by: windowsPerSegment).map { $0..<min($0 + windowsPerSegment, count) }
        guard ranges.count > 4 else {
            for range in ranges { try body(range, encode(windows, range)) }
            return
        }
        let encoded = Handoff<Ranged?>(capacity: 8)
        encoded.startProducer { handoff in
            for range in ranges {
                guard handoff.put((range, encode(windows, range))) else { return }
            }
            handoff.put(nil)
        }
        defer { encoded.stop() }
        while let next = encoded.take() { try body(next.range, next.segment) }
    }

    package static func entries(_ directory: UnsafeRawBufferPointer, count: Int) -> [Entry] {
        (0..<count).map { position in
            let at = entrySize * position
            return Entry(end: Int(UInt32(littleEndian: directory.loadUnaligned(fromByteOffset: at, as: UInt32.self))),
                         minIndex: Int64(littleEndian: directory.loadUnaligned(fromByteOffset: at + 4, as: Int64.self)),
                         maxIndex: Int64(littleEndian: directory.loadUnaligned(fromByteOffset: at + 12, as: Int64.self)))
        }
    }

    /// Every window of a whole segment blob, in order.
    package static func decodeAll(_ bytes: [UInt8]) throws -> [[UInt8]] {
        try bytes.withUnsafeBytes { raw in
            guard raw.count >= 4 else { throw Self.corrupt("a segment of \(raw.count) bytes") }
            let count = Int(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let dataStart = 4 + entrySize * count
            guard count > 0, raw.count >= dataStart else { throw Self.corrupt("a segment directory of \(count) windows") }
            var start = 0
            return try entries(UnsafeRawBufferPointer(rebasing: raw[4..<dataStart]), count: count).map { entry in
                guard entry.end >= start, dataStart + entry.end <= raw.count else { throw Self.corrupt("a window past its segment's end") }
                defer { start = entry.end }
                return Array(raw[(dataStart + start)..<(dataStart + entry.end)])
            }
        }
    }

    /// A segment that does not hold what its directory says.
    package static func corrupt(_ what: String) -> StoreError {
        .database("layout segment: \(what)")
    }
}
