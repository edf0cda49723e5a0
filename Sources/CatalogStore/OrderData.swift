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

    // MARK: Keeping it

    /// Whether the order data is marked stale (-1: never built, or outdated by a migration).
    static func isStale(_ db: Database) throws -> Bool {
        try (Int64.fetchOne(db, sql: "SELECT generation FROM order_data") ?? 0) < 0
    }

    /// Brings the order data to the catalog's generation, inside the caller's write transaction.
    /// Without `force`, only when the order data was fresh before this transaction and the
    /// changes rewrite at most `budget(changed:)` entries; otherwise it is left behind for a forced
    /// refresh (the end of a scan, an import). Returns whether the order data is fresh afterwards.
    @discardableResult
    static func refresh(_ db: Database, force: Bool) throws -> Bool {
        guard let state = try Row.fetchOne(db, sql: "SELECT order_data.generation, max_item_id, catalog.generation FROM order_data, catalog")
        else { return false }
        let (built, maxItemID, generation): (Int64, Int64, Int64) = (state[0], state[1], state[2])
        if built == generation { return true }
        if !force && (built < 0 || built != generation - 1) { return false }

        let pending = try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM order_changes) + (SELECT count(*) FROM items WHERE id > ?)",
                                       arguments: [maxItemID]) ?? 0
        let total = built < 0 ? Int.max : try chunks(db, order: .date).reduce(0) { $0 + $1.count }
        var plans: [(ItemOrder, Plan)] = []
        switch OrderChunking.approach(built: built, generation: generation, force: force, pending: pending, total: total) {
        case .current: return true
        case .leave: return false
        case .stamp: break
        case .rebuild:
            plans = ItemOrder.allCases.map { ($0, .rebuild) }
        case .merge:
            var changed: [SortKey] = []
            changed.reserveCapacity(pending)
            let log = try BulkStatement(db, sql: "SELECT sort_date, key FROM order_changes UNION ALL SELECT sort_date, key FROM items WHERE id > ?1")
            log.bind(1, maxItemID)
            try log.forEachRow(db) { row in changed.append(SortKey(date: row.bytes(0), key: row.bytes(1))) }
            for order in ItemOrder.allCases {
                let (plan, rewritten) = try self.plan(db, order: order, changed: changed, total: total)
                if !force && rewritten > OrderChunking.budget(changed: pending) { return false }
                plans.append((order, plan))
            }
        }
        var sizes: ItemSizes?
        for (order, plan) in plans {
            switch plan {
            case .nothing: break
            case .rebuild:
                if sizes == nil { sizes = try ItemSizes(db, months: plans.contains { if case (.path, .rebuild) = $0 { true } else { false } }) }
                try rebuild(db, order: order, sizes: sizes!)
            case .merge(let chunks, let runs): try merge(db, order: order, chunks: chunks, runs: runs)
            }
        }
        try markCurrent(db, generation: generation)
        return true
    }

    /// Records that the order data now holds the items of `generation`: no change is pending,
    /// and items added later have larger ids than any now.
    static func markCurrent(_ db: Database, generation: Int64) throws {
        try db.execute(sql: "DELETE FROM order_changes")
        try db.execute(sql: "UPDATE order_data SET generation = ?, max_item_id = (SELECT coalesce(max(id), 0) FROM items)",
                       arguments: [generation])
    }

    /// Which chunks of `order` hold a changed key, and how many entries rewriting them costs.
    /// Past a quarter of the entries, one pass over the whole index in order costs less.
    static func plan(_ db: Database, order: ItemOrder, changed: [SortKey], total: Int) throws -> (Plan, rewritten: Int) {
        let chunks = try self.chunks(db, order: order)
        let (runs, rewritten) = OrderChunking.plan(order: order, starts: chunks.map(\.lo), counts: chunks.map(\.count), changed: changed, total: total)
        guard let runs else { return (.rebuild, rewritten) }
        return (.merge(chunks: chunks, runs: runs), rewritten)
    }

    /// Reads each run of chunks again from the items, from the run's first key up to the key of
    /// the chunk after it, and writes it back cut into chunks.
    static func merge(_ db: Database, order: ItemOrder, chunks: [Chunk], runs: [ClosedRange<Int>]) throws {
        let delete = try BulkStatement(db, sql: "DELETE FROM order_chunks WHERE rowid = ?1")
        var writer = try ChunkWriter(db, order: order)
        for run in runs {
            for index in run {
                delete.bind(1, chunks[index].rowID)
                try delete.run(db)
            }
            let lower = run.lowerBound == 0 ? nil : chunks[run.lowerBound].lo
            let upper = run.upperBound + 1 < chunks.count ? chunks[run.upperBound + 1].lo : nil
            for (sql, arguments) in rangeQueries(order: order, from: lower, to: upper) {
                let statement = try BulkStatement(db, sql: sql)
                for (position, argument) in arguments.enumerated() { statement.bind(Int32(position + 1), blob: argument) }
                try statement.forEachRow(db) { row in try writer.append(row) }
            }
            try writer.flush()
        }
    }

    /// Writes the whole order again: the order from its covering index (ids and sort keys, no
    /// row lookups) and the sizes from one pass over the items in rowid order. The key index
    /// holds no dates: the path order takes each entry's month from that pass too.
    static func rebuild(_ db: Database, order: ItemOrder, sizes: ItemSizes) throws {
        try db.execute(sql: "DELETE FROM order_chunks WHERE item_order = ?", arguments: [order.rawValue])
        var writer = try ChunkWriter(db, order: order)
        // With the months from the sizes pass, neither order works them out again, and the path
        // order reads its key index alone (the date order reads its dates for its chunks' keys).
        let dated = order == .date || !sizes.hasMonths
        let statement = try BulkStatement(db, sql: "SELECT id, key\(dated ? ", sort_date" : "") FROM items ORDER BY \(order.orderBy)")
        try statement.forEachRow(db) { row in
            let id = row.int64(0)
            let (width, height) = sizes[id]
            let month = sizes.hasMonths ? sizes.month(id) : row.withBlob(2) { SectionGrouping.month(ofDate: $0) }
            try row.withBlob(1) { key in
                try writer.append(id: id, width: width, height: height, month: month, itemKey: key) {
                    SortKey(date: order == .date ? row.bytes(2) : [], key: Array(key))
                }
            }
        }
        try writer.flush()
    }

    /// Every item's display size by id, and, when `months` asks and ids are nearly dense, its
    /// month key (SectionGrouping): an array indexed by id while ids are dense enough.
    struct ItemSizes {
        private var dense: [UInt64] = []
        private var sparse: [Int64: UInt64] = [:]
        private var months: [UInt32] = []
        /// Whether `month(_:)` answers; else each order works its items' months out from their dates.
        let hasMonths: Bool

        init(_ db: Database, months wanted: Bool) throws {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0
            let maxID = try Int.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM items") ?? 0
            let useDense = maxID <= max(4 * count, 1 << 20)
            // Months cost 4 bytes per id more: only while ids are nearly dense, so that an
            // import of 10,000,000 rows stays within its memory bound however many ids earlier
            // upserts used up (every upsert takes one).
            hasMonths = wanted && useDense && maxID <= count + count / 4 + (1 << 20)
            if useDense { dense = [UInt64](repeating: 0, count: maxID + 1) } else { sparse.reserveCapacity(count) }
            if hasMonths { months = [UInt32](repeating: 0, count: maxID + 1) }
            let statement = try BulkStatement(db, sql: hasMonths ? "SELECT id, width, height, sort_date FROM items" : "SELECT id, width, height FROM items")
            try statement.forEachRow(db) { row in
                let id = row.int64(0)
                let (width, height) = OrderChunking.fitted(row.int64(1), row.int64(2))
                let packed = UInt64(width) << 32 | UInt64(height)
                if useDense { dense[Int(id)] = packed } else { sparse[id] = packed }
                // YYYYMM, the month's two digits unchecked: at most 999,999.
                if hasMonths { months[Int(id)] = UInt32(row.withBlob(3) { SectionGrouping.month(ofDate: $0) }) }
            }
        }

        subscript(id: Int64) -> (width: Int64, height: Int64) {
            let packed = dense.isEmpty ? sparse[id] ?? 0 : dense[Int(id)]
            return (Int64(packed >> 32), Int64(packed & 0xFFFF_FFFF))
        }

        func month(_ id: Int64) -> UInt64 {
            UInt64(months[Int(id)])
        }
    }

    /// The queries, run in turn, that list the items from `lower` (included; nil: the start)
    /// to `upper` (excluded; nil: the end) in `order`, each a range of one index: date order
    /// takes one query per boundary date and one for the dates between.
    static func rangeQueries(order: ItemOrder, from lower: SortKey?, to upper: SortKey?) -> [(String, [[UInt8]])] {
        let columns = "SELECT id, width, height, sort_date, key FROM items"
        switch order {
        case .path:
            var conditions: [String] = []
            var arguments: [[UInt8]] = []
            if let lower { conditions.append("key >= ?\(arguments.count + 1)"); arguments.append(lower.key) }
            if let upper { conditions.append("key < ?\(arguments.count + 1)"); arguments.append(upper.key) }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            return [("\(columns)\(filter) ORDER BY key", arguments)]
        case .date:
            // Dates are TEXT; bound as blobs they would compare below every text, so CAST.
            let date = "CAST(?1 AS TEXT)"
            if let lower, let upper, lower.date == upper.date {
                return [("\(columns) WHERE sort_date = \(date) AND key >= ?2 AND key < ?3 ORDER BY key", [lower.date, lower.key, upper.key])]
            }
            var queries: [(String, [[UInt8]])] = []
            if let lower { queries.append(("\(columns) WHERE sort_date = \(date) AND key >= ?2 ORDER BY key", [lower.date, lower.key])) }
            switch (lower, upper) {
            case let (lower?, upper?):
                queries.append(("\(columns) WHERE sort_date < \(date) AND sort_date > CAST(?2 AS TEXT) ORDER BY sort_date DESC, key",
                                [lower.date, upper.date]))
            case let (lower?, nil):
                queries.append(("\(columns) WHERE sort_date < \(date) ORDER BY sort_date DESC, key", [lower.date]))
            case let (nil, upper?):
                queries.append(("\(columns) WHERE sort_date > \(date) ORDER BY sort_date DESC, key", [upper.date]))
            case (nil, nil):
                queries.append(("\(columns) ORDER BY sort_date DESC, key", []))
            }
            if let upper { queries.append(("\(columns) WHERE sort_date = \(date) AND key < ?2 ORDER BY key", [upper.date, upper.key])) }
            return queries
        }
    }

    /// One chunk as cut: its first entry's sort key, its entries and its section runs.
    struct CutChunk {
        var lo: SortKey
        var count: Int
        var entries: [UInt8]
        var sections: [UInt8]
    }

    /// Cuts rows (id, width, height, sort_date, key) into chunks, with the runs of their section
    /// keys, and inserts them; or, made without a database, keeps them in `cut` (an import's
    /// rows are cut on a thread of its own while SQLite builds an index: ImportedOrder).
    struct ChunkWriter {
        let order: ItemOrder
        private let db: Database?
        private let insert: BulkStatement?
        private(set) var cut: [CutChunk] = []
        /// About the memory the chunks in `cut` take.
        private(set) var cutBytes = 0
        var entries = EntryBuffer()
        var lo = SortKey(date: [], key: [])
        var sections = SectionBlob()

        init(_ db: Database, order: ItemOrder) throws {
            self.db = db
            self.order = order
            insert = try BulkStatement(db, sql: """
                INSERT INTO order_chunks (item_order, lo_date, lo_key, count, entries, sections) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
        }

        init(order: ItemOrder) {
            (self.order, db, insert) = (order, nil, nil)
        }

        /// Appends a row (id, width, height, sort_date, key).
        mutating func append(_ row: BulkStatement.RowView) throws {
            let byDate = order == .date
            let (id, width, height) = (row.int64(0), row.int64(1), row.int64(2))
            try row.withBlob(3) { date in
                try row.withBlob(4) { key in
                    try append(id: id, width: width, height: height, date: date, itemKey: key) {
                        SortKey(date: byDate ? Array(date) : [], key: Array(key))
                    }
                }
            }
        }

        /// Appends an item with its sort date and key; `sortKey` is asked for only when the
        /// item starts a chunk.
        mutating func append(id: Int64, width: Int64, height: Int64, date: UnsafeRawBufferPointer, itemKey: UnsafeRawBufferPointer,
                             sortKey: () -> SortKey) throws {
            try append(id: id, width: width, height: height, month: SectionGrouping.month(ofDate: date), itemKey: itemKey, sortKey: sortKey)
        }

        /// The same, with the item's month key already made from its date.
        mutating func append(id: Int64, width: Int64, height: Int64, month: UInt64, itemKey: UnsafeRawBufferPointer,
                             sortKey: () -> SortKey) throws {
            if entries.count == 0 { lo = sortKey() }
            sections.note(entry: entries.count, month: month, key: itemKey)
            entries.append(id: id, width: width, height: height)
            if entries.count == OrderData.chunkSize { try flush() }
        }

        mutating func flush() throws {
            guard entries.count > 0 else { return }
            let chunk = CutChunk(lo: lo, count: entries.count, entries: entries.encoded(), sections: sections.encoded())
            if let db {
                try write(chunk, db)
            } else {
                cutBytes += chunk.entries.capacity + chunk.sections.capacity + chunk.lo.date.count + chunk.lo.key.count + 256
                cut.append(chunk)
            }
            entries.removeAll()
            sections = SectionBlob(reusing: sections)
        }

        /// Inserts a chunk (cut by this writer or another of the same order).
        func write(_ chunk: CutChunk, _ db: Database) throws {
            guard let insert else { preconditionFailure("a chunk writer without a database") }
            insert.bind(1, order.rawValue)
            insert.bind(2, String(decoding: chunk.lo.date, as: UTF8.self))
            insert.bind(3, blob: chunk.lo.key)
            insert.bind(4, chunk.count)
            insert.bind(5, blob: chunk.entries)
            insert.bind(6, blob: chunk.sections)
            try insert.run(db)
        }
    }
}
