import CatalogModel
import GRDB
import GRDBSQLite

extension LayoutSegment {
    static func corruptRead(_ what: String) -> DatabaseError {
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
            let code = sqlite3_blob_open(db.sqliteConnection, LayoutFile.schema, "layout_segments", "bytes", rowID, 0, &handle)
            guard code == SQLITE_OK, let handle else {
                sqlite3_blob_close(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            do {
                let size = Int(sqlite3_blob_bytes(handle))
                let head = try Self.read(handle, size: size, at: 0, count: 4)
                let count = head.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
                guard count > 0, count <= LayoutSegment.windowsPerSegment else { throw LayoutSegment.corruptRead("\(count) windows") }
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
            guard first <= last else { throw LayoutSegment.corruptRead("window ends out of order") }
            let bytes = try Self.read(blob, size: size, at: dataStart + first, count: last - first)
            var start = first
            return try positions.map { position in
                let end = entries[position].end
                guard end >= start else { throw LayoutSegment.corruptRead("window ends out of order") }
                defer { start = end }
                return Array(bytes[(start - first)..<(end - first)])
            }
        }

        private static func read(_ blob: OpaquePointer, size: Int, at offset: Int, count: Int) throws -> [UInt8] {
            guard offset + count <= size else { throw LayoutSegment.corruptRead("a read of \(count) bytes at \(offset) of \(size)") }
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
