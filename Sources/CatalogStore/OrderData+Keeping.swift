import CatalogModel
import Foundation
import GRDB
import GRDBSQLite

/// Keeping the order data: brought to the catalog's generation chunk by chunk (merged again
/// from the items' index) or rebuilt in one pass, and the chunk writer both use.
extension OrderData {
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
