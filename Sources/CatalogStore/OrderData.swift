import CatalogModel
import Foundation
import GRDB
import GRDBSQLite

/// Order data (Migrations/0003_order_data.sql): per item order, every item's id and display
/// size in that order, in chunks of about `chunkSize` entries keyed by their first entry's sort
/// key. A layout of a configuration never seen reads these few large blobs, not 10M item rows.
///
/// Kept in the transactions that change items: the chunks whose key ranges hold a change (the
/// old and new keys of updated and removed items, logged by triggers into `order_changes`, and
/// the keys of items added since `order_data.max_item_id`) are read again from the items'
/// index, range by range. Appends at the end of an order rewrite the last chunk or two; a few
/// scattered changes rewrite a chunk each. Changes spread over most chunks (a first scan of
/// files with random dates, batch after batch) are left for the refresh at the end of the scan,
/// which rebuilds the order data in one pass; until then `order_data.generation` is behind the
/// catalog's and readers lay out from the item rows, as before.
enum OrderData {
    static let chunkSize = OrderChunking.chunkSize

    // Section keys (Migrations/0006_section_keys.sql): beside its entries, each chunk keeps the
    // runs of its items' month and parent-folder keys (`SectionGrouping`), so a layout with
    // sections reads a few runs per chunk instead of a date and a path per item:
    //     varint m, m times: varint offset of the run's first entry, varint month (YYYYMM)
    //     varint f, f times: varint offset, UInt64 folder key (little-endian)

    /// An item's place in an order.
    typealias SortKey = OrderKey

    struct Chunk {
        var rowID: Int64
        var lo: SortKey
        var count: Int
    }

    /// What a refresh will do to one order.
    enum Plan {
        case nothing
        /// Read these runs of consecutive chunks again (indices into the order's chunk list).
        case merge(chunks: [Chunk], runs: [ClosedRange<Int>])
        case rebuild
    }

    // MARK: Reading

    /// Whether the order data reflects the catalog's generation.
    static func isFresh(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT order_data.generation = catalog.generation FROM order_data, catalog") ?? false
    }

    /// The items of `order` from position `offset` on, or nil when the order data is stale.
    static func read(_ db: Database, order: ItemOrder, offset: Int) throws -> [LayoutInputRow]? {
        var rows: [LayoutInputRow] = []
        guard try forEach(db, order: order, offset: offset, reserve: { rows.reserveCapacity($0) }, { rows.append(contentsOf: $0) }) else {
            return nil
        }
        return rows
    }

    /// The same, a chunk at a time (decoded into one reused buffer), after `reserve` is told how
    /// many items there are; false, handing nothing, when the order data is stale.
    static func forEach(_ db: Database, order: ItemOrder, offset: Int, reserve: (Int) -> Void,
                        _ body: (UnsafeBufferPointer<LayoutInputRow>) throws -> Void) throws -> Bool {
        guard try isFresh(db) else { return false }
        let chunks = try self.chunks(db, order: order)
        reserve(max(0, chunks.reduce(0) { $0 + $1.count } - offset))
        var piece: [LayoutInputRow] = []
        piece.reserveCapacity(chunks.map(\.count).max() ?? 0)
        var start = 0
        var handed = 0
        let entries = try BulkStatement(db, sql: "SELECT entries FROM order_chunks WHERE rowid = ?1")
        for chunk in chunks {
            defer { start += chunk.count }
            guard start + chunk.count > offset else { continue }
            piece.removeAll(keepingCapacity: true)
            entries.bind(1, chunk.rowID)
            try entries.forEachRow(db) { row in
                row.withBlob(0) { bytes in
                    guard let entries = Entries(bytes, count: chunk.count) else { return }
                    for entry in max(0, offset - start)..<chunk.count {
                        piece.append(entries[entry])
                    }
                }
            }
            handed += piece.count
            try piece.withUnsafeBufferPointer { try body($0) }
        }
        guard handed == max(0, start - offset) else { throw StoreError.database("order data of \(order.rawValue) order is corrupt") }
        return true
    }

    /// How many items there are: while the order data is current, the sum of its chunk list's
    /// counts (a few thousand rows at 10,000,000 items), else a count of the items, which reads
    /// a whole index.
    static func itemCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT CASE WHEN (SELECT order_data.generation = catalog.generation FROM order_data, catalog)
                THEN (SELECT coalesce(sum(count), 0) FROM order_chunks WHERE item_order = ?)
                ELSE (SELECT count(*) FROM items) END
            """, arguments: [ItemOrder.date.rawValue]) ?? 0
    }

    /// The position of item `id` in `order`; `.some(nil)` when there is no such item, nil when
    /// the order data is stale. Reads the chunk list and one chunk.
    static func index(_ db: Database, ofItem id: Int64, order: ItemOrder) throws -> Int?? {
        guard try isFresh(db) else { return nil }
        guard let row = try Row.fetchOne(db, sql: "SELECT sort_date, key FROM items WHERE id = ?", arguments: [id]) else { return .some(nil) }
        let key = sortKey(order: order, date: row[0], key: row[1])
        let chunks = try self.chunks(db, order: order)
        guard !chunks.isEmpty else { return .some(nil) }
        let position = chunkIndex(of: key, in: chunks)
        let before = chunks[..<position].reduce(0) { $0 + $1.count }
        let bytes = try Data.fetchOne(db, sql: "SELECT entries FROM order_chunks WHERE rowid = ?", arguments: [chunks[position].rowID]) ?? Data()
        let found: Int? = bytes.withUnsafeBytes { raw in
            Entries(raw, count: chunks[position].count).flatMap { entries in (0..<entries.count).first { entries.id(at: $0) == id } }
        }
        guard let found else { throw StoreError.database("order data of \(order.rawValue) order misses item \(id)") }
        return .some(before + found)
    }

    /// The sections of `order` by `grouping`: where each run of equal keys starts. Nil when the
    /// order data is stale or was written before it kept section keys.
    static func sectionRuns(_ db: Database, order: ItemOrder, grouping: SectionGrouping) throws -> [SectionRun]? {
        guard try isFresh(db) else { return nil }
        var runs: [SectionRun] = []
        var base = 0
        var complete = true
        let statement = try BulkStatement(db, sql: """
            SELECT count, sections FROM order_chunks WHERE item_order = ?1 ORDER BY lo_date DESC, lo_key
            """)
        statement.bind(1, order.rawValue)
        try statement.forEachRow(db) { row in
            guard complete else { return }
            let count = Int(row.int64(0))
            guard let chunkRuns = row.withBlob(1, { SectionBlob.decode($0) }) else {
                complete = false
                return
            }
            for (offset, key) in grouping == .folder ? chunkRuns.folders : chunkRuns.months {
                let key = grouping == .year ? key / 100 : key
                if runs.last?.key != key { runs.append(SectionRun(position: base + offset, key: key)) }
            }
            base += count
        }
        return complete ? runs : nil
    }

    /// The ids at `positions` of `order` (sorted, each within the order), from the chunk list
    /// and the chunks that hold them; nil when the order data is stale.
    static func ids(_ db: Database, at positions: [Int], order: ItemOrder) throws -> [Int: Int64]? {
        guard try isFresh(db) else { return nil }
        var found: [Int: Int64] = [:]
        var start = 0
        var next = 0
        let entries = try BulkStatement(db, sql: "SELECT entries FROM order_chunks WHERE rowid = ?1")
        for chunk in try chunks(db, order: order) {
            defer { start += chunk.count }
            guard next < positions.count else { break }
            guard positions[next] < start + chunk.count else { continue }
            entries.bind(1, chunk.rowID)
            var whole = false
            try entries.forEachRow(db) { row in
                row.withBlob(0) { bytes in
                    guard let entries = Entries(bytes, count: chunk.count) else { return }
                    whole = true
                    while next < positions.count, positions[next] < start + chunk.count {
                        let entry = positions[next] - start
                        if entry >= 0 { found[positions[next]] = entries.id(at: entry) }
                        next += 1
                    }
                }
            }
            guard whole else { throw StoreError.database("order data of \(order.rawValue) order is corrupt") }
        }
        return found
    }

    /// The chunks of `order`, in order, without their entries.
    static func chunks(_ db: Database, order: ItemOrder) throws -> [Chunk] {
        var chunks: [Chunk] = []
        let statement = try BulkStatement(db, sql: """
            SELECT rowid, lo_date, lo_key, count FROM order_chunks WHERE item_order = ?1 ORDER BY lo_date DESC, lo_key
            """)
        statement.bind(1, order.rawValue)
        try statement.forEachRow(db) { row in
            chunks.append(Chunk(rowID: row.int64(0), lo: SortKey(date: row.bytes(1), key: row.bytes(2)), count: Int(row.int64(3))))
        }
        return chunks
    }

    /// The chunk whose key range holds `key`.
    static func chunkIndex(of key: SortKey, in chunks: [Chunk]) -> Int {
        OrderChunking.chunkIndex(of: key, in: chunks.map(\.lo))
    }

    static func sortKey(order: ItemOrder, date: String, key: Data) -> SortKey {
        SortKey(date: order == .date ? Array(date.utf8) : [], key: [UInt8](key))
    }

    /// A chunk's entries, in either of two encodings, told apart by the blob's length:
    /// - wide, 16 bytes an entry: id (Int64), width, height (UInt32), little-endian;
    /// - narrow, when the chunk has two entries or more, every id is within 2³²−1 of the
    ///   smallest and every side fits 16 bits (nearly every chunk): the smallest id (Int64),
    ///   then 8 bytes an entry, one little-endian UInt64 of the id less the smallest (bits 0-31),
    ///   the width (32-47) and the height (48-63). Half the bytes to write and read; chunks
    ///   written wide before stay readable as they are.
    struct Entries {
        static let wideSize = 16
        static let narrowSize = 8
        let bytes: UnsafeRawBufferPointer
        let count: Int
        /// The smallest id, for a narrow chunk; nil for a wide one.
        private let base: Int64?

        /// The entries of a chunk of `count`, nil when the blob's length fits neither encoding.
        init?(_ bytes: UnsafeRawBufferPointer, count: Int) {
            (self.bytes, self.count) = (bytes, count)
            if bytes.count == count * Self.wideSize {
                base = nil
            } else if count >= 2 && bytes.count == 8 + count * Self.narrowSize {
                base = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: Int64.self))
            } else {
                return nil
            }
        }

        subscript(entry: Int) -> LayoutInputRow {
            guard let base else {
                let at = entry * Self.wideSize
                return LayoutInputRow(id: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int64.self)),
                                      width: Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self))),
                                      height: Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self))))
            }
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 + entry * Self.narrowSize, as: UInt64.self))
            return LayoutInputRow(id: base + Int64(word & 0xFFFF_FFFF), width: Int(word >> 32 & 0xFFFF), height: Int(word >> 48))
        }

        func id(at entry: Int) -> Int64 {
            guard let base else { return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: entry * Self.wideSize, as: Int64.self)) }
            return base + Int64(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 + entry * Self.narrowSize, as: UInt64.self)) & 0xFFFF_FFFF)
        }
    }

    /// A chunk's entries as a writer gathers them, wide, with what choosing the narrow encoding
    /// for them needs (`Entries`).
    struct EntryBuffer {
        private(set) var wide: [UInt8] = []
        private(set) var count = 0
        private var smallestID = Int64.max
        private var largestID = Int64.min
        private var largestSide: UInt32 = 0

        init() {
            wide.reserveCapacity(OrderData.chunkSize * Entries.wideSize)
        }

        /// Appends one entry.
        mutating func append(id: Int64, width: Int64, height: Int64) {
            let (width, height) = OrderChunking.fitted(width, height)
            // One append of the 16 bytes: the width in the low half of the second word, the height in its high half.
            var entry = (id.littleEndian, (UInt64(height) << 32 | UInt64(width)).littleEndian)
            withUnsafeBytes(of: &entry) { wide.append(contentsOf: $0) }
            (smallestID, largestID, largestSide) = (min(smallestID, id), max(largestID, id), max(largestSide, width, height))
            count += 1
        }

        /// The entries' blob: narrow where they fit it, else wide.
        func encoded() -> [UInt8] {
            let (span, overflow) = largestID.subtractingReportingOverflow(smallestID)
            guard count >= 2, largestSide <= UInt32(UInt16.max), !overflow, span <= Int64(UInt32.max) else { return wide }
            var narrow = [UInt8](repeating: 0, count: 8 + count * Entries.narrowSize)
            narrow.withUnsafeMutableBytes { out in
                out.storeBytes(of: smallestID.littleEndian, toByteOffset: 0, as: Int64.self)
                wide.withUnsafeBytes { entries in
                    for entry in 0..<count {
                        let id = Int64(littleEndian: entries.loadUnaligned(fromByteOffset: entry * Entries.wideSize, as: Int64.self))
                        let size = UInt64(littleEndian: entries.loadUnaligned(fromByteOffset: entry * Entries.wideSize + 8, as: UInt64.self))
                        let word = UInt64(id - smallestID) | (size & 0xFFFF) << 32 | (size >> 32) << 48
                        out.storeBytes(of: word.littleEndian, toByteOffset: 8 + entry * Entries.narrowSize, as: UInt64.self)
                    }
                }
            }
            return narrow
        }

        /// Empty, keeping the buffer's memory.
        mutating func removeAll() {
            wide.removeAll(keepingCapacity: true)
            (count, smallestID, largestID, largestSide) = (0, .max, .min, 0)
        }
    }
}
