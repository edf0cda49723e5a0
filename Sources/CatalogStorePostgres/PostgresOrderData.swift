import CatalogModel
import Foundation
import NIOCore
import PostgresNIO
import Synchronization

/// Order data on PostgreSQL (Migrations/postgres/0003_order_data.sql): per item order, every
/// item's id and display size in that order, in chunks of about `OrderChunking.chunkSize`
/// entries keyed by their first entry's sort key, as the SQLite store keeps them. A layout of a
/// configuration never seen reads the chunks (from this process's memory when it has them), not
/// 10M item rows.
///
/// Kept in the transactions that change items, as on SQLite (`OrderChunking` decides): the
/// chunks whose key ranges hold a change are deleted and their range written again from the
/// items, cut into chunks by the database itself (row_number, string_agg), so no item row
/// crosses the connection; changes spread over most chunks wait for the refresh at the end of
/// the scan, which writes each order again in one statement. An import into an empty catalog
/// cuts its rows into chunks itself as it copies them (`ChunkCutter`, ImportedOrder), the same
/// chunks, without sorting the items again.
/// Beside its entries, each chunk keeps where its sections start, by month and by parent
/// folder, found by the same statement (`lag` over the order).
enum PostgresOrderData {
    /// id (int8), width, height (int4), big-endian: what int8send and int4send give.
    static let entrySize = 16

    /// A chunk as listed, without its entries.
    struct Chunk: Sendable {
        var id: Int64
        var lo: OrderKey
        var count: Int
    }

    /// A chunk's entries and where its sections start (positions within the chunk), read once.
    struct Contents: Sendable {
        var entries: Data
        var months: [SectionRun]
        /// Keyed as `SectionGrouping.folderKey` keys them.
        var folders: [SectionRun]
    }

    /// An item's month section key in SQL, as `SectionGrouping.month(ofDate:)` gives it.
    static let monthSQL = month(of: "sort_date")

    /// The month section key of the date `text` (an SQL expression); it reads the first 7
    /// characters only.
    static func month(of text: String) -> String {
        "CASE WHEN \(text) ~ '^[0-9]{4}-[0-9]{2}' THEN (substr(\(text), 1, 4) || substr(\(text), 6, 2))::int8 ELSE 0 END"
    }
    /// An item's parent folder in SQL: its key's bytes up to the last '/', escaped (`encode`'s
    /// escape format keeps every '/' and writes no other, so the cut is where the bytes' is).
    /// An import key without a '/' (most are) costs no escaping.
    static let folderSQL = """
        CASE WHEN position('/'::bytea in key) = 0 THEN '' ELSE \
        (SELECT left(e, length(e) - strpos(reverse(e), '/')) FROM encode(key, 'escape') AS e) END
        """

    /// Whether the order data reflects the catalog's generation.
    static func isCurrent(_ session: PostgresSession) throws -> Bool {
        try session.value("SELECT o.generation = c.generation FROM order_data o, catalog c", as: Bool.self) ?? false
    }

    // MARK: Keeping it

    /// Brings the order data to the catalog's generation inside the caller's write transaction,
    /// or leaves it behind for a forced refresh (`OrderChunking.approach`); returns whether it is
    /// current afterwards.
    @discardableResult
    static func refresh(_ session: PostgresSession, force: Bool) throws -> Bool {
        // One refresh at a time: a forced one (the end of a scan, a first open) does not hold the
        // catalog's row lock that writers take first. Locked before the state is read, so the
        // statements below, each a new snapshot at READ COMMITTED, see what the last one wrote.
        try session.execute("SELECT 1 FROM order_data FOR UPDATE")
        guard let state = try session.rows("SELECT o.generation, o.max_item_id, c.generation FROM order_data o, catalog c").first else { return false }
        let (built, maxItemID, generation) = try state.decode((Int64, Int64, Int64).self)
        if built == generation { return true }
        if !force && (built < 0 || built != generation - 1) { return false }
        let pending = try session.value("""
            SELECT ((SELECT count(*) FROM order_changes) + (SELECT count(*) FROM items WHERE id > \(maxItemID)))::int8
            """, as: Int.self) ?? 0
        let total = built < 0 ? Int.max
            : try session.value("SELECT coalesce(sum(count), 0)::int8 FROM order_chunks WHERE item_order = 'date'", as: Int.self) ?? 0
        switch OrderChunking.approach(built: built, generation: generation, force: force, pending: pending, total: total) {
        case .current: return true
        case .leave: return false
        case .stamp: break
        case .rebuild:
            for order in ItemOrder.allCases { try rebuild(session, order: order) }
        case .merge:
            var changed: [OrderKey] = []
            for row in try session.rows("""
                SELECT sort_date::text, key FROM order_changes UNION ALL SELECT sort_date::text, key FROM items WHERE id > \(maxItemID)
                """) {
                let (date, key) = try row.decode((String, Data).self)
                changed.append(OrderKey(date: Array(date.utf8), key: [UInt8](key)))
            }
            var work: [(order: ItemOrder, chunks: [Chunk], runs: [ClosedRange<Int>]?)] = []
            for order in ItemOrder.allCases {
                let chunks = try self.chunks(session, order: order)
                let (runs, rewritten) = OrderChunking.plan(order: order, starts: chunks.map(\.lo), counts: chunks.map(\.count),
                                                           changed: changed, total: total)
                if !force && rewritten > OrderChunking.budget(changed: pending) { return false }
                work.append((order, chunks, runs))
            }
            for (order, chunks, runs) in work {
                guard let runs else {
                    try rebuild(session, order: order)
                    continue
                }
                for run in runs {
                    try session.execute("DELETE FROM order_chunks WHERE id = ANY(\(run.map { chunks[$0].id }))")
                    let lower = run.lowerBound == 0 ? nil : chunks[run.lowerBound].lo
                    let upper = run.upperBound + 1 < chunks.count ? chunks[run.upperBound + 1].lo : nil
                    try write(session, order: order, from: lower, to: upper)
                }
            }
        }
        try markCurrent(session, generation: generation)
        return true
    }

    /// Records that the order data reflects `generation`, every change since merged.
    private static func markCurrent(_ session: PostgresSession, generation: Int64) throws {
        try session.execute("DELETE FROM order_changes")
        try session.execute("UPDATE order_data SET generation = \(generation), max_item_id = (SELECT coalesce(max(id), 0) FROM items)")
    }

    /// Writes the whole order again. One pass over the table and a sort in memory (or in a few
    /// runs on disk past 256 MB) beats walking the order's index, whose every entry is a random
    /// read of its row: 2.3 s against 3.9 s for 1,000,000 items in date order.
    static func rebuild(_ session: PostgresSession, order: ItemOrder) throws {
        try session.execute("DELETE FROM order_chunks WHERE item_order = \(order.rawValue)")
        try sortingWholeTable(session) { try write(session, order: order, from: nil, to: nil) }
    }

    /// Runs `body`, a statement over every item in an order, as one pass over the table and a
    /// sort; the rest of the caller's transaction reads by index again.
    static func sortingWholeTable<T>(_ session: PostgresSession, _ body: () throws -> T) throws -> T {
        try session.script("SET LOCAL work_mem = '256MB'")
        try session.script("SET LOCAL enable_indexscan = off")
        try session.script("SET LOCAL enable_bitmapscan = off")
        let result = try body()
        try session.script("RESET enable_indexscan")
        try session.script("RESET enable_bitmapscan")
        try session.script("RESET work_mem")
        return result
    }

    /// Writes the items of `order` from `lower` (included; nil: the start) to `upper` (excluded;
    /// nil: the end) as chunks, in one statement.
    static func write(_ session: PostgresSession, order: ItemOrder, from lower: OrderKey?, to upper: OrderKey?) throws {
        var binds = PostgresBindings()
        func bind(_ bytes: [UInt8], asText: Bool) throws -> String {
            if asText { binds.append(String(decoding: bytes, as: UTF8.self)) } else { try binds.append(Data(bytes)) }
            return "$\(binds.count)"
        }
        var parts: [String] = []
        switch order {
        case .path:
            var conditions: [String] = []
            if let lower { conditions.append("key >= \(try bind(lower.key, asText: false))") }
            if let upper { conditions.append("key < \(try bind(upper.key, asText: false))") }
            parts.append(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
        case .date:
            // One range of the (sort_date DESC, key) index each: the boundary dates by key, the dates between whole.
            if let lower, let upper, lower.date == upper.date {
                parts.append("WHERE sort_date = \(try bind(lower.date, asText: true)) AND key >= \(try bind(lower.key, asText: false)) AND key < \(try bind(upper.key, asText: false))")
            } else {
                let lowerDate = try lower.map { try bind($0.date, asText: true) }
                let upperDate = try upper.map { try bind($0.date, asText: true) }
                if let lower, let lowerDate { parts.append("WHERE sort_date = \(lowerDate) AND key >= \(try bind(lower.key, asText: false))") }
                let between = switch (lowerDate, upperDate) {
                case let (low?, high?): "WHERE sort_date < \(low) AND sort_date > \(high)"
                case let (low?, nil): "WHERE sort_date < \(low)"
                case let (nil, high?): "WHERE sort_date > \(high)"
                case (nil, nil): ""
                }
                parts.append(between)
                if let upper, let upperDate { parts.append("WHERE sort_date = \(upperDate) AND key < \(try bind(upper.key, asText: false))") }
            }
        }
        let date = order == .date ? "sort_date" : "''::text COLLATE \"C\""
        let ranged = parts.map { "SELECT id, width, height, sort_date, key FROM items \($0)" }.joined(separator: " UNION ALL ")
        let size = OrderChunking.chunkSize
        let first = "n % \(size) = 0"
        // Sections are worked out after the sort (a window's arguments and its level's columns
        // are), and only where a run starts is its key carried on to the grouping. Each item's
        // folder, and in path order its month, is worked out once, before the window (as its
        // argument and lag's, it would be worked out twice). In date order the month changes
        // only every few thousand items: the window carries the date's first 7 characters, and
        // the month is worked out only where they differ from the item before's (its regular
        // expression costs about 0.2 s a million items). At 1,000,000 items, date order 3.5 s →
        // 2.8 s, path order 3.1 s → 2.7 s (BENCHMARKS.md).
        let (carried, month) = order == .date
            ? ("left(sort_date, 7) AS month",
               "CASE WHEN \(first) OR (month IS DISTINCT FROM month_before AND \(Self.month(of: "month")) <> \(Self.month(of: "month_before"))) THEN \(Self.month(of: "month")) END")
            : ("\(monthSQL) AS month", "CASE WHEN \(first) OR month IS DISTINCT FROM month_before THEN month END")
        try session.execute(PostgresQuery(unsafeSQL: """
            INSERT INTO order_chunks (item_order, lo_date, lo_key, count, entries, month_starts, months, folder_starts, folders)
            SELECT '\(order.rawValue)', (array_agg(lo_date) FILTER (WHERE \(first)))[1], (array_agg(key) FILTER (WHERE \(first)))[1], count(*),
                   string_agg(int8send(id) || int4send(width) || int4send(height), ''::bytea ORDER BY n),
                   array_agg((n % \(size))::int4 ORDER BY n) FILTER (WHERE month IS NOT NULL), array_agg(month ORDER BY n) FILTER (WHERE month IS NOT NULL),
                   array_agg((n % \(size))::int4 ORDER BY n) FILTER (WHERE folder IS NOT NULL),
                   array_agg(decode(folder, 'escape') ORDER BY n) FILTER (WHERE folder IS NOT NULL)
            FROM (SELECT n, id, width, height, lo_date, key, \(month) AS month,
                         CASE WHEN \(first) OR folder IS DISTINCT FROM folder_before THEN folder END AS folder
                  FROM (SELECT id, width, height, \(date) AS lo_date, key, row_number() OVER w - 1 AS n,
                               month, lag(month) OVER w AS month_before, folder, lag(folder) OVER w AS folder_before
                        FROM (SELECT id, width, height, sort_date, key, \(carried), \(folderSQL) AS folder
                              FROM (\(ranged)) AS r OFFSET 0) AS ranged
                        WINDOW w AS (ORDER BY \(PostgresStore.orderBy(order)))) AS numbered) AS started
            GROUP BY n / \(size)
            """, binds: binds))
    }

    // MARK: An import's rows

    /// One chunk as the client cut it, its columns as `write(_:order:from:to:)` makes them; its
    /// folders' bytes one after the other, to take no more memory than they need.
    struct CutChunk: Sendable, Equatable {
        var lo: OrderKey
        var count = 0
        var entries: [UInt8] = []
        var monthStarts: [Int32] = []
        var months: [Int64] = []
        var folderStarts: [Int32] = []
        /// Where each folder ends in `folderBytes`; it starts where the one before ends.
        var folderEnds: [Int32] = []
        var folderBytes: [UInt8] = []

        /// The `folders` column.
        var folders: [ByteBuffer] {
            folderEnds.indices.map { index in
                ByteBuffer(bytes: folderBytes[(index == 0 ? 0 : Int(folderEnds[index - 1]))..<Int(folderEnds[index])])
            }
        }

        /// The last folder noted.
        var lastFolder: ArraySlice<UInt8> {
            folderBytes[(folderEnds.count < 2 ? 0 : Int(folderEnds[folderEnds.count - 2]))...]
        }

        /// About the memory it takes.
        var bytes: Int {
            entries.capacity + 4 * monthStarts.capacity + 8 * months.capacity + 4 * folderStarts.capacity
                + 4 * folderEnds.capacity + folderBytes.capacity + lo.date.count + lo.key.count + 256
        }
    }

    /// Cuts an order's rows, given in that order, into chunks as `write(_:order:from:to:)` cuts
    /// them in SQL (an import's rows: ImportedOrder): `OrderChunking.chunkSize` entries a chunk,
    /// each chunk's first entry and every one whose month or folder differs from the entry
    /// before's starting a run.
    struct ChunkCutter: OrderChunkCutter {
        let order: ItemOrder
        private var cut: [CutChunk] = []
        private var chunk = CutChunk(lo: OrderKey(date: [], key: []))
        private var month: UInt64 = 0
        private(set) var bytes = 0

        init(order: ItemOrder) {
            self.order = order
        }

        mutating func append(id: Int64, width: UInt32, height: UInt32, date: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) {
            let position = chunk.count
            if position == 0 {
                chunk.lo = OrderKey(date: order == .date ? Array(date) : [], key: Array(key))
                chunk.entries.reserveCapacity(OrderChunking.chunkSize * entrySize)
            }
            // Rows an import copied into `items`: their sizes fit an int4.
            var entry = (id.bigEndian, Int32(truncatingIfNeeded: width).bigEndian, Int32(truncatingIfNeeded: height).bigEndian)
            withUnsafeBytes(of: &entry) { chunk.entries.append(contentsOf: $0) }
            let month = SectionGrouping.month(ofDate: date)
            if position == 0 || month != self.month {
                chunk.monthStarts.append(Int32(position))
                chunk.months.append(Int64(bitPattern: month))
                self.month = month
            }
            let end = key.lastIndex(of: UInt8(ascii: "/")) ?? 0
            let folder = UnsafeRawBufferPointer(rebasing: key[..<end])
            if position == 0 || !folder.elementsEqual(chunk.lastFolder) {
                chunk.folderStarts.append(Int32(position))
                chunk.folderBytes.append(contentsOf: folder)
                chunk.folderEnds.append(Int32(chunk.folderBytes.count))
            }
            chunk.count += 1
            if chunk.count == OrderChunking.chunkSize { flush() }
        }

        mutating func finish() -> [CutChunk] {
            flush()
            return cut
        }

        private mutating func flush() {
            guard chunk.count > 0 else { return }
            bytes += chunk.bytes
            cut.append(chunk)
            chunk = CutChunk(lo: OrderKey(date: [], key: []))
        }
    }

    /// Starts cutting `imported`, the rows of an import into an empty catalog, into both orders'
    /// chunks (`ImportedOrder.cut(firstID:lastID:items:firstKey:lastKey:)`), once they are all
    /// copied; `items` is how many items the catalog holds.
    static func startCutting(_ session: PostgresSession, _ imported: ImportedOrder<ChunkCutter>, items: Int) throws {
        imported.close()
        guard let ends = try session.rows("""
            SELECT first.id, first.key, last.id, last.key FROM items AS first, items AS last
            WHERE first.id = (SELECT min(id) FROM items) AND last.id = (SELECT max(id) FROM items)
            """).first else { return }
        let (firstID, firstKey, lastID, lastKey) = try ends.decode((Int64, Data, Int64, Data).self)
        imported.cut(firstID: firstID, lastID: lastID, items: items, firstKey: [UInt8](firstKey), lastKey: [UInt8](lastKey))
    }

    /// Writes both orders again from the chunks cut from `imported`: what `refresh(_:force: true)`
    /// writes from the items, chunk for chunk. False, writing nothing, when none were cut (then
    /// the caller refreshes).
    static func rebuild(_ session: PostgresSession, from imported: ImportedOrder<ChunkCutter>) throws -> Bool {
        guard let cut = imported.chunks(),
              let generation = try session.value("SELECT generation FROM catalog", as: Int64.self) else { return false }
        try session.execute("SELECT 1 FROM order_data FOR UPDATE")
        for order in ItemOrder.allCases {
            try session.execute("DELETE FROM order_chunks WHERE item_order = \(order.rawValue)")
            // A few chunks a statement: one round trip for about 128K entries.
            let chunks = order == .date ? cut.date : cut.path
            for start in stride(from: 0, to: chunks.count, by: insertedAtOnce) {
                var binds = PostgresBindings()
                var rows: [String] = []
                for chunk in chunks[start..<min(start + insertedAtOnce, chunks.count)] {
                    let first = binds.count
                    binds.append(order.rawValue)
                    binds.append(String(decoding: chunk.lo.date, as: UTF8.self))
                    binds.append(ByteBuffer(bytes: chunk.lo.key))
                    binds.append(Int32(chunk.count))
                    binds.append(ByteBuffer(bytes: chunk.entries))
                    binds.append(chunk.monthStarts)
                    binds.append(chunk.months)
                    binds.append(chunk.folderStarts)
                    binds.append(chunk.folders)
                    rows.append("(" + (first + 1...first + 9).map { "$\($0)" }.joined(separator: ", ") + ")")
                }
                try session.execute(PostgresQuery(unsafeSQL: """
                    INSERT INTO order_chunks (item_order, lo_date, lo_key, count, entries, month_starts, months, folder_starts, folders)
                    VALUES \(rows.joined(separator: ", "))
                    """, binds: binds))
            }
        }
        try markCurrent(session, generation: generation)
        return true
    }

    /// Chunks inserted by one statement.
    private static let insertedAtOnce = 32

    // MARK: Reading

    /// The chunks of `order`, in order, without their entries.
    static func chunks(_ session: PostgresSession, order: ItemOrder) throws -> [Chunk] {
        try session.rows("""
            SELECT id, lo_date::text, lo_key, count::int8 FROM order_chunks WHERE item_order = \(order.rawValue) ORDER BY lo_date DESC, lo_key
            """).map { row in
            let (id, date, key, count) = try row.decode((Int64, String, Data, Int).self)
            return Chunk(id: id, lo: OrderKey(date: Array(date.utf8), key: [UInt8](key)), count: count)
        }
    }

    /// The id of the item at `position` of `order`, from the chunk list and the one chunk that
    /// holds it; nil when the order data lags behind the catalog, `.some(nil)` past the end.
    static func id(_ session: PostgresSession, atPosition position: Int, order: ItemOrder) throws -> Int64?? {
        guard try isCurrent(session) else { return nil }
        var start = 0
        for chunk in try chunks(session, order: order) {
            defer { start += chunk.count }
            guard position < start + chunk.count else { continue }
            guard let entries = try session.value("SELECT entries FROM order_chunks WHERE id = \(chunk.id)", as: Data.self),
                  entries.count == chunk.count * entrySize else {
                throw StoreError.database("order data of \(order.rawValue) order is corrupt (chunk \(chunk.id))")
            }
            return .some(entries.withUnsafeBytes { decode($0, at: position - start).id })
        }
        return .some(nil)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, at entry: Int) -> LayoutInputRow {
        let base = entry * entrySize
        return LayoutInputRow(id: Int64(bigEndian: bytes.loadUnaligned(fromByteOffset: base, as: Int64.self)),
                              width: Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: base + 8, as: Int32.self))),
                              height: Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: base + 12, as: Int32.self))))
    }
}

/// The order data a store keeps in memory, one `OrderDataCache` per change-listener epoch.
final class OrderDataCaches: Sendable {
    private let kept = Mutex<(epoch: Int64, cache: OrderDataCache)?>(nil)

    /// The cache to read with while the change listener is at `epoch`: a new one when the epoch
    /// moved (another database may be behind the URL now, dropped and made again, restored or
    /// failed over to, whose chunks reuse the ids; a snapshot still reading the old one fills
    /// the cache it took, which is dropped); while the listener is not connected (nil), a new
    /// one that holds what it reads for one snapshot only.
    func current(epoch: Int64?) -> OrderDataCache {
        guard let epoch else { return OrderDataCache() }
        return kept.withLock { kept in
            if let kept, kept.epoch == epoch { return kept.cache }
            let cache = OrderDataCache()
            kept = (epoch, cache)
            return cache
        }
    }
}

/// A server's order data in memory, by chunk id: a chunk is never changed, only deleted and
/// written anew, so one this process holds is good for as long as the order lists it.
/// Revalidating costs one read of the chunk list (a few thousand short rows at 10M items);
/// only chunks a change wrote since are read again. 16 bytes per item per order laid out, and
/// 16 per section start (by month and by folder): up to twice as much again in path order when
/// months change at nearly every item.
final class OrderDataCache: Sendable {
    typealias Loaded = [(chunk: PostgresOrderData.Chunk, contents: PostgresOrderData.Contents)]
    private let held = Mutex<[ItemOrder: [Int64: PostgresOrderData.Contents]]>([:])

    /// The current order data of `order`: its chunks and their contents, or nil when it lags
    /// behind the catalog's generation (the readers lay out from the rows meanwhile).
    func load(_ session: PostgresSession, order: ItemOrder) throws -> Loaded? {
        guard try PostgresOrderData.isCurrent(session) else { return nil }
        let chunks = try PostgresOrderData.chunks(session, order: order)
        var contents = held.withLock { $0[order] ?? [:] }
        let missing = chunks.map(\.id).filter { contents[$0] == nil }
        if !missing.isEmpty {
            let read = Accumulator<[Int64: PostgresOrderData.Contents]>([:])
            try session.forEachRow("""
                SELECT id, entries, month_starts, months, folder_starts, folders FROM order_chunks WHERE id = ANY(\(missing))
                """) { row in
                let (id, entries, monthStarts, months, folderStarts, folders) = try row.decode((Int64, Data, [Int32], [Int64], [Int32], [ByteBuffer]).self)
                guard monthStarts.count == months.count, folderStarts.count == folders.count,
                      Self.areStarts(monthStarts, of: entries), Self.areStarts(folderStarts, of: entries) else {
                    throw StoreError.database("order data of \(order.rawValue) order is corrupt (sections of chunk \(id))")
                }
                let chunk = PostgresOrderData.Contents(
                    entries: entries,
                    months: zip(monthStarts, months).map { SectionRun(position: Int($0), key: UInt64(bitPattern: $1)) },
                    folders: zip(folderStarts, folders).map { start, folder in
                        SectionRun(position: Int(start), key: SectionGrouping.folderKey(of: Data(folder.readableBytesView) + [UInt8(ascii: "/")]))
                    })
                read.update { $0[id] = chunk }
            }
            contents.merge(read.take()) { _, new in new }
        }
        var kept: [Int64: PostgresOrderData.Contents] = [:]
        var loaded: Loaded = []
        for chunk in chunks {
            guard let held = contents[chunk.id], held.entries.count == chunk.count * PostgresOrderData.entrySize else {
                throw StoreError.database("order data of \(order.rawValue) order is corrupt (chunk \(chunk.id))")
            }
            kept[chunk.id] = held
            loaded.append((chunk, held))
        }
        held.withLock { $0[order] = kept }
        return loaded
    }

    /// Whether `starts` can be where a chunk with these entries' runs start: from 0, rising,
    /// within the chunk.
    private static func areStarts(_ starts: [Int32], of entries: Data) -> Bool {
        let count = entries.count / PostgresOrderData.entrySize
        return starts.first == 0 && zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 } && Int(starts.last ?? 0) < count
    }
}
