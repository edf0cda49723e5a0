import CatalogModel
import GRDB
import GRDBSQLite

/// A stored layout's windows in `layout_segments` rows (Migrations/0005_layout_segments.sql):
/// up to `windowsPerSegment` consecutive windows in one blob, so storing a layout writes a few
/// large rows, and a page reads the directory and its windows with incremental blob reads.
///
/// The blob (little-endian):
///
///     UInt32  n, the windows in the segment (1 to 64)
///     n times: UInt32 end of the window's bytes, counted from the start of the data
///              Int64  smallest item index in the window (−1 when the window is empty)
///              Int64  largest item index in the window (−1 when empty)
///     data: the windows' bytes (LayoutArchive windows), one after another
enum LayoutSegment {
    /// Windows a segment holds at most; the table's CHECK constraint says the same, and readers
    /// rely on it to find a window's segment with one index range.
    static let windowsPerSegment = 64
    static let entrySize = 20

    struct Entry {
        var end: Int
        var minIndex: Int64
        var maxIndex: Int64
    }

    /// The blob of windows `range` (1 to `windowsPerSegment` of them), with their smallest and
    /// largest item index over non-empty windows (−1 when all are empty).
    static func encode(_ windows: LayoutWindows, _ range: Range<Int>) -> (bytes: [UInt8], minIndex: Int64, maxIndex: Int64) {
        let dataStart = 4 + entrySize * range.count
        let first = windows.start(of: range.lowerBound)
        let dataCount = windows.ends[range.upperBound - 1] - first
        var minIndex = Int64.max
        var maxIndex = Int64(-1)
        let bytes = [UInt8](unsafeUninitializedCapacity: dataStart + dataCount) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: UInt32(range.count).littleEndian, toByteOffset: 0, as: UInt32.self)
            for (position, window) in range.enumerated() {
                let low = Int64(windows.minIndices[window])
                let high = Int64(windows.maxIndices[window])
                if high >= 0 {
                    minIndex = min(minIndex, low)
                    maxIndex = max(maxIndex, high)
                }
                let entry = 4 + entrySize * position
                raw.storeBytes(of: UInt32(windows.ends[window] - first).littleEndian, toByteOffset: entry, as: UInt32.self)
                raw.storeBytes(of: low.littleEndian, toByteOffset: entry + 4, as: Int64.self)
                raw.storeBytes(of: high.littleEndian, toByteOffset: entry + 12, as: Int64.self)
            }
            windows.bytes.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: raw[dataStart...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: source[first..<(first + dataCount)]))
            }
            initialized = dataStart + dataCount
        }
        return (bytes, minIndex == .max ? -1 : minIndex, maxIndex)
    }

    static func entries(_ directory: UnsafeRawBufferPointer, count: Int) -> [Entry] {
        (0..<count).map { position in
            let at = entrySize * position
            return Entry(end: Int(UInt32(littleEndian: directory.loadUnaligned(fromByteOffset: at, as: UInt32.self))),
                         minIndex: Int64(littleEndian: directory.loadUnaligned(fromByteOffset: at + 4, as: Int64.self)),
                         maxIndex: Int64(littleEndian: directory.loadUnaligned(fromByteOffset: at + 12, as: Int64.self)))
        }
    }

    /// Every window of a whole segment blob, in order.
    static func decodeAll(_ bytes: [UInt8]) throws -> [[UInt8]] {
        try bytes.withUnsafeBytes { raw in
            guard raw.count >= 4 else { throw corrupt("a segment of \(raw.count) bytes") }
            let count = Int(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let dataStart = 4 + entrySize * count
            guard count > 0, raw.count >= dataStart else { throw corrupt("a segment directory of \(count) windows") }
            var start = 0
            return try entries(UnsafeRawBufferPointer(rebasing: raw[4..<dataStart]), count: count).map { entry in
                guard entry.end >= start, dataStart + entry.end <= raw.count else { throw corrupt("a window past its segment's end") }
                defer { start = entry.end }
                return Array(raw[(dataStart + start)..<(dataStart + entry.end)])
            }
        }
    }

    static func corrupt(_ what: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_CORRUPT, message: "layout segment: \(what)")
    }

    // MARK: Incremental reads

    /// One segment opened for incremental reads: its directory first, then only the windows asked for.
    struct Reader: ~Copyable {
        private let blob: OpaquePointer
        private let size: Int
        let count: Int
        let entries: [Entry]
        private var dataStart: Int { 4 + LayoutSegment.entrySize * count }

        init(_ db: Database, rowID: Int64) throws {
            var handle: OpaquePointer?
            let code = sqlite3_blob_open(db.sqliteConnection, "main", "layout_segments", "bytes", rowID, 0, &handle)
            guard code == SQLITE_OK, let handle else {
                sqlite3_blob_close(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            do {
                let size = Int(sqlite3_blob_bytes(handle))
                let head = try Self.read(handle, size: size, at: 0, count: 4)
                let count = head.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
                guard count > 0, count <= LayoutSegment.windowsPerSegment else { throw LayoutSegment.corrupt("\(count) windows") }
                let directory = try Self.read(handle, size: size, at: 4, count: LayoutSegment.entrySize * count)
                (blob, self.size, self.count) = (handle, size, count)
                entries = directory.withUnsafeBytes { LayoutSegment.entries($0, count: count) }
            } catch {
                sqlite3_blob_close(handle)
                throw error
            }
        }

        deinit { sqlite3_blob_close(blob) }

        /// The bytes of windows `positions` (positions within the segment), one blob read for the run.
        func windows(_ positions: ClosedRange<Int>) throws -> [[UInt8]] {
            let first = positions.lowerBound == 0 ? 0 : entries[positions.lowerBound - 1].end
            let last = entries[positions.upperBound].end
            guard first <= last else { throw LayoutSegment.corrupt("window ends out of order") }
            let bytes = try Self.read(blob, size: size, at: dataStart + first, count: last - first)
            var start = first
            return try positions.map { position in
                let end = entries[position].end
                guard end >= start else { throw LayoutSegment.corrupt("window ends out of order") }
                defer { start = end }
                return Array(bytes[(start - first)..<(end - first)])
            }
        }

        private static func read(_ blob: OpaquePointer, size: Int, at offset: Int, count: Int) throws -> [UInt8] {
            guard offset + count <= size else { throw LayoutSegment.corrupt("a read of \(count) bytes at \(offset) of \(size)") }
            guard count > 0 else { return [] }
            var code = SQLITE_OK
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                code = sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), Int32(offset))
                initialized = code == SQLITE_OK ? count : 0
            }
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "layout segment read") }
            return bytes
        }
    }
}
