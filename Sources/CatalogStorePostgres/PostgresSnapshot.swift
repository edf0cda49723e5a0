import CatalogModel
import Foundation
import PostgresNIO

/// Reads inside one REPEATABLE READ transaction: everything a page needs comes from the same
/// committed state, and a scan's writes never block it.
struct PostgresSnapshot: CatalogSnapshot {
    let session: PostgresSession
    /// The store's order data in memory (a snapshot made without it holds the chunks it reads
    /// only while it lives).
    var orderCache = OrderDataCache()

    func generation() throws -> Int64 {
        try session.value("SELECT generation FROM catalog", as: Int64.self) ?? 0
    }

    func items(order: ItemOrder, limit: Int?, offset: Int) throws -> [ItemRow] {
        try PostgresStore.items(session, order: order, limit: limit, offset: offset)
    }

    /// While the order data is current, the sum of its chunk list's counts (a few thousand rows
    /// at 10,000,000 items), else a count of the items, which reads a whole index; one statement,
    /// so one snapshot even outside a transaction.
    func itemCount() throws -> Int {
        try session.value("""
            SELECT CASE WHEN (SELECT o.generation = c.generation FROM order_data o, catalog c)
                THEN (SELECT coalesce(sum(count), 0)::int8 FROM order_chunks WHERE item_order = 'date')
                ELSE (SELECT count(*)::int8 FROM items) END
            """, as: Int.self) ?? 0
    }

    func layout(configuration: String) throws -> StoredLayout? {
        try session.rows(PostgresQuery(unsafeSQL: "\(PostgresStore.layoutColumns) WHERE configuration = $1",
                                       binds: try PostgresStore.binds(configuration))).first.map(PostgresStore.storedLayout)
    }

    /// The windows `range` of a layout, in order, from the segments that hold them.
    func windows(layoutID: Int64, range: ClosedRange<Int>) throws -> [[UInt8]] {
        var windows: [[UInt8]] = []
        for row in try session.rows("""
            SELECT first_window, window_count, bytes FROM layout_segments
            WHERE layout_id = \(layoutID) AND first_window > \(range.lowerBound - LayoutSegment.windowsPerSegment)
              AND first_window <= \(range.upperBound) ORDER BY first_window
            """) {
            let (first, count, bytes) = try row.decode((Int, Int, Data).self)
            windows += try Self.windows(range, ofSegment: bytes, first: first, count: count)
        }
        return windows
    }

    /// The windows of `range` that a segment (`count` windows from window `first`) holds.
    static func windows(_ range: ClosedRange<Int>, ofSegment bytes: Data, first: Int, count: Int) throws -> ArraySlice<[UInt8]> {
        windows(range, of: try segment(bytes, count: count), first: first)
    }

    /// Every window of a segment whose row says it holds `count`.
    static func segment(_ bytes: Data, count: Int) throws -> [[UInt8]] {
        let all = try LayoutSegment.decodeAll([UInt8](bytes))
        guard all.count == count else { throw LayoutSegment.corrupt("\(all.count) windows, the row says \(count)") }
        return all
    }

    /// The windows of `range` among a segment's, the first of them window `first`.
    static func windows(_ range: ClosedRange<Int>, of all: [[UInt8]], first: Int) -> ArraySlice<[UInt8]> {
        let low = max(range.lowerBound, first) - first
        let high = min(range.upperBound, first + all.count - 1) - first
        guard low <= high else { return [] }
        return all[low...high]
    }

    func allWindows(layoutID: Int64) throws -> [[UInt8]] {
        var windows: [[UInt8]] = []
        for row in try session.rows("SELECT bytes FROM layout_segments WHERE layout_id = \(layoutID) ORDER BY first_window") {
            windows += try LayoutSegment.decodeAll([UInt8](try row.decode(Data.self)))
        }
        return windows
    }

    func windows(layoutID: Int64, holdingIndex index: Int) throws -> [[UInt8]] {
        var windows: [[UInt8]] = []
        for row in try session.rows("""
            SELECT bytes FROM layout_segments WHERE layout_id = \(layoutID) AND min_index <= \(index) AND max_index >= \(index)
            ORDER BY first_window
            """) {
            let bytes = [UInt8](try row.decode(Data.self))
            let all = try LayoutSegment.decodeAll(bytes)
            let entries = bytes.withUnsafeBytes { raw in
                LayoutSegment.entries(UnsafeRawBufferPointer(rebasing: raw[4..<(4 + LayoutSegment.entrySize * all.count)]), count: all.count)
            }
            for (position, entry) in entries.enumerated() where entry.minIndex <= index && entry.maxIndex >= index {
                windows.append(all[position])
            }
        }
        return windows
    }

    func keys(ids: [Int64]) throws -> [Int64: ItemKey] {
        guard !ids.isEmpty else { return [:] }
        let packed = try session.value(PostgresQuery(unsafeSQL: "SELECT \(StoredWindowKeys.Packed.select(from: "items")) WHERE i.id = ANY($1)",
                                                     binds: try PostgresStore.binds(ids)), as: Data.self)
        return try packed.map(StoredWindowKeys.Packed.keys) ?? [:]
    }

    /// Items in `order` with their display sizes: from the order data when it is current, else
    /// streamed from the order's index.
    func layoutInput(order: ItemOrder, offset: Int) throws -> [LayoutInputRow] {
        if let rows = try orderData(order: order, offset: offset) { return rows }
        let rows = RowCollector<LayoutInputRow>()
        try session.forEachRow(PostgresQuery(unsafeSQL: """
            SELECT id, width::int, height::int FROM items ORDER BY \(PostgresStore.orderBy(order)) OFFSET $1
            """, binds: try PostgresStore.binds(Int64(offset)))) { row in
            let (id, width, height) = try row.decode((Int64, Int, Int).self)
            rows.append(LayoutInputRow(id: id, width: width, height: height))
        }
        return rows.take()
    }

    /// The items of `order` from position `offset` on, from the order data (in memory for the
    /// chunks this process holds), or nil when it lags behind the catalog.
    func orderData(order: ItemOrder, offset: Int) throws -> [LayoutInputRow]? {
        guard let loaded = try orderCache.load(session, order: order) else { return nil }
        var rows: [LayoutInputRow] = []
        rows.reserveCapacity(max(0, loaded.reduce(0) { $0 + $1.chunk.count } - offset))
        var start = 0
        for (chunk, contents) in loaded {
            defer { start += chunk.count }
            guard start + chunk.count > offset else { continue }
            contents.entries.withUnsafeBytes { raw in
                for entry in max(0, offset - start)..<chunk.count { rows.append(PostgresOrderData.decode(raw, at: entry)) }
            }
        }
        return rows
    }

    /// Where each section of `order` starts: from the order data's runs when it is current (runs
    /// of equal keys joined across chunks), else the database numbers the order and compares
    /// each item's section with the one before, so only the starts cross the connection.
    func sectionRuns(order: ItemOrder, grouping: SectionGrouping) throws -> [SectionRun] {
        var runs: [SectionRun] = []
        func add(_ position: Int, _ key: UInt64) {
            let key = grouping == .year ? key / 100 : key
            if runs.last?.key != key { runs.append(SectionRun(position: position, key: key)) }
        }
        if let loaded = try orderCache.load(session, order: order) {
            var base = 0
            for (chunk, contents) in loaded {
                for run in grouping == .folder ? contents.folders : contents.months { add(base + run.position, run.key) }
                base += chunk.count
            }
            return runs
        }
        let section = grouping == .folder ? PostgresOrderData.folderSQL : PostgresOrderData.monthSQL
        let value = grouping == .folder ? "decode(section, 'escape')" : "int8send(section)"
        let starts = RowCollector<(Int, Data)>()
        try PostgresOrderData.sortingWholeTable(session) {
            try session.forEachRow(PostgresQuery(unsafeSQL: """
                SELECT n, \(value) FROM (
                    SELECT row_number() OVER w - 1 AS n, section, lag(section) OVER w AS before
                    FROM (SELECT sort_date, key, \(section) AS section FROM items) AS keyed
                    WINDOW w AS (ORDER BY \(PostgresStore.orderBy(order)))
                ) AS numbered WHERE n = 0 OR section IS DISTINCT FROM before ORDER BY n
                """)) { row in
                starts.append(try row.decode((Int, Data).self))
            }
        }
        for (position, bytes) in starts.take() {
            add(position, grouping == .folder
                ? SectionGrouping.folderKey(of: bytes + [UInt8(ascii: "/")])
                : UInt64(bitPattern: bytes.withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }))
        }
        return runs
    }

    /// The keys of the items at `positions` of `order`: their ids from the order data when it is
    /// current, else one query a position.
    func keys(atPositions positions: [Int], order: ItemOrder) throws -> [Int: Data] {
        if let loaded = try orderCache.load(session, order: order) {
            var ids: [Int: Int64] = [:]
            var start = 0
            var chunks = loaded.makeIterator()
            var current = chunks.next()
            for position in Set(positions).sorted() {
                while let (chunk, _) = current, position >= start + chunk.count {
                    start += chunk.count
                    current = chunks.next()
                }
                guard let (_, contents) = current, position >= start else { break }
                ids[position] = contents.entries.withUnsafeBytes { PostgresOrderData.decode($0, at: position - start).id }
            }
            let keys = try self.keys(ids: Array(ids.values))
            return ids.compactMapValues { keys[$0]?.key }
        }
        var keys: [Int: Data] = [:]
        for position in Set(positions) {
            if let key = try session.value(PostgresQuery(unsafeSQL: """
                SELECT key FROM items ORDER BY \(PostgresStore.orderBy(order)) LIMIT 1 OFFSET $1
                """, binds: try PostgresStore.binds(Int64(position))), as: Data.self) {
                keys[position] = key
            }
        }
        return keys
    }

    func onlyAppended(since generation: Int64, count: Int, order: ItemOrder) throws -> Bool {
        let unchanged = try session.value("SELECT count(*)::int8 FROM items WHERE changed_generation <= \(generation)", as: Int.self) ?? 0
        guard unchanged == count else { return false }
        let newInPrefix = try session.value(PostgresQuery(unsafeSQL: """
            SELECT count(*)::int8 FROM (SELECT changed_generation FROM items ORDER BY \(PostgresStore.orderBy(order)) LIMIT $1) AS prefix
            WHERE changed_generation > $2
            """, binds: try PostgresStore.binds(Int64(count), generation)), as: Int.self) ?? 0
        return newInPrefix == 0
    }

    func loggedChanges(since generation: Int64) throws -> Set<Int64>? {
        guard let keptFrom = try session.value("SELECT kept_from FROM change_log", as: Int64.self), generation >= keptFrom else { return nil }
        return Set(try session.rows("SELECT DISTINCT item_id FROM item_changes WHERE generation > \(generation) AND kind <> 3").map { try $0.decode(Int64.self) })
    }

    /// The position of item `id` in `order`: from the order data when it is current (its chunk
    /// found by its sort key), else by counting the items before it.
    func index(ofItem id: Int64, order: ItemOrder) throws -> Int? {
        guard let row = try session.rows("SELECT sort_date::text, key FROM items WHERE id = \(id)").first else { return nil }
        let (date, key) = try row.decode((String, Data).self)
        if let loaded = try orderCache.load(session, order: order) {
            guard !loaded.isEmpty else { return nil }
            let place = OrderChunking.chunkIndex(of: OrderKey(order: order, date: Array(date.utf8), key: [UInt8](key)), in: loaded.map(\.chunk.lo))
            let before = loaded[..<place].reduce(0) { $0 + $1.chunk.count }
            let (chunk, contents) = loaded[place]
            let found = contents.entries.withUnsafeBytes { raw in (0..<chunk.count).first { PostgresOrderData.decode(raw, at: $0).id == id } }
            guard let found else { throw StoreError.database("order data of \(order.rawValue) order misses item \(id)") }
            return before + found
        }
        switch order {
        case .date:
            return try session.value("""
                SELECT count(*)::int8 FROM items WHERE sort_date > \(date) OR (sort_date = \(date) AND key < \(key))
                """, as: Int.self)
        case .path:
            return try session.value("SELECT count(*)::int8 FROM items WHERE key < \(key)", as: Int.self)
        }
    }
}
