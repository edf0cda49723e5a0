package import CatalogModel
import Foundation
import GRDB

/// Reads inside one read transaction: everything a page needs comes from the same committed
/// state, so a page never mixes two generations, and a running scan never blocks it.
struct SQLiteSnapshot: CatalogSnapshot {
    let db: Database

    package func generation() throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT generation FROM catalog")) ?? 0
    }

    package func items(order: ItemOrder, limit: Int?, offset: Int) throws -> [ItemRow] {
        try SQLiteStore.items(db, order: order, limit: limit, offset: offset)
    }

    package func itemCount() throws -> Int {
        try OrderData.itemCount(db)
    }

    package func layout(configuration: String) throws -> StoredLayout? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT id, configuration, generation, item_count, content_height, header, bytes, compute_seconds, last_used_at
            FROM layouts WHERE configuration = ? AND writer IS NULL
            """), arguments: [configuration]).map(SQLiteStore.storedLayout)
    }

    /// The windows `range` of a layout, in order (missing windows are left out): from each
    /// segment that holds some, its directory and those windows' bytes, never the rest.
    package func windows(layoutID: Int64, range: ClosedRange<Int>) throws -> [[UInt8]] {
        let segments = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, first_window, window_count FROM layout_segments
            WHERE layout_id = ? AND first_window > ? AND first_window <= ? ORDER BY first_window
            """), arguments: [layoutID, range.lowerBound - LayoutSegment.windowsPerSegment, range.upperBound])
        var windows: [[UInt8]] = []
        for row in segments {
            let first: Int = row[1]
            let count: Int = row[2]
            let low = max(range.lowerBound, first) - first
            let high = min(range.upperBound, first + count - 1) - first
            guard low <= high else { continue }
            let reader = try LayoutSegment.Reader(db, rowID: row[0])
            guard reader.count == count else { throw LayoutSegment.corrupt("\(reader.count) windows, the row says \(count)") }
            windows += try reader.windows(low...high)
        }
        return windows
    }

    /// Every window of a layout, in order.
    package func allWindows(layoutID: Int64) throws -> [[UInt8]] {
        var windows: [[UInt8]] = []
        let cursor = try Data.fetchCursor(db, sql: "SELECT bytes FROM layout_segments WHERE layout_id = ? ORDER BY first_window",
                                          arguments: [layoutID])
        while let bytes = try cursor.next() { windows += try LayoutSegment.decodeAll([UInt8](bytes)) }
        return windows
    }

    /// The windows that may hold item `index` (their index range covers it), in order.
    package func windows(layoutID: Int64, holdingIndex index: Int) throws -> [[UInt8]] {
        let segments = try Int64.fetchAll(db, sql: """
            SELECT id FROM layout_segments WHERE layout_id = ? AND min_index <= ? AND max_index >= ? ORDER BY first_window
            """, arguments: [layoutID, index, index])
        var windows: [[UInt8]] = []
        for rowID in segments {
            let reader = try LayoutSegment.Reader(db, rowID: rowID)
            for (position, entry) in reader.entries.enumerated() where entry.minIndex <= index && entry.maxIndex >= index {
                windows += try reader.windows(position...position)
            }
        }
        return windows
    }

    /// Keys (paths or import keys) of the given items.
    package func keys(ids: [Int64]) throws -> [Int64: ItemKey] {
        guard !ids.isEmpty else { return [:] }
        var keys: [Int64: ItemKey] = [:]
        keys.reserveCapacity(ids.count)
        // One statement whatever the number of ids (a JSON array), prepared once per connection:
        // a server asks this for every page it reads.
        let statement = try BulkStatement(cached: db, sql: """
            SELECT i.id, i.key, f.device, f.inode, f.size, f.mtime_ns, i.url, i.title FROM items i LEFT JOIN files f ON f.item_id = i.id
            WHERE i.id IN (SELECT value FROM json_each(?1))
            """)
        var list = "["
        for (position, id) in ids.enumerated() {
            if position > 0 { list += "," }
            list += String(id)
        }
        statement.bind(1, list + "]")
        try statement.forEachRow(db) { row in
            let file = row.optionalInt64(2).map {
                FileIdentity(device: $0, inode: row.int64(3), size: row.int64(4), mtimeNanoseconds: row.int64(5))
            }
            keys[row.int64(0)] = ItemKey(key: row.blob(1), file: file, url: row.optionalText(6), title: row.optionalText(7))
        }
        return keys
    }

    /// Items in `order` with their display sizes: the input of a layout.
    package func layoutInput(order: ItemOrder, offset: Int) throws -> [LayoutInputRow] {
        if let rows = try orderData(order: order, offset: offset) { return rows }
        return try layoutInputFromItems(order: order, offset: offset)
    }

    package func forEachLayoutInput(order: ItemOrder, offset: Int, reserve: (Int) -> Void,
                                    _ body: (UnsafeBufferPointer<LayoutInputRow>) throws -> Void) throws {
        if try OrderData.forEach(db, order: order, offset: offset, reserve: reserve, body) { return }
        let rows = try layoutInputFromItems(order: order, offset: offset)
        reserve(rows.count)
        try rows.withUnsafeBufferPointer { try body($0) }
    }

    /// The layout input read from every item row: while the order data is behind (mid-scan).
    private func layoutInputFromItems(order: ItemOrder, offset: Int) throws -> [LayoutInputRow] {
        var rows: [LayoutInputRow] = []
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, width, height FROM items ORDER BY \(order.orderBy) LIMIT -1 OFFSET ?",
                                         arguments: [offset])
        while let row = try cursor.next() { rows.append(LayoutInputRow(id: row[0], width: row[1], height: row[2])) }
        return rows
    }

    package func orderData(order: ItemOrder, offset: Int) throws -> [LayoutInputRow]? {
        try OrderData.read(db, order: order, offset: offset)
    }

    /// Where each section of `order` begins: from the order data's runs when it is current,
    /// else from every item's date and key.
    package func sectionRuns(order: ItemOrder, grouping: SectionGrouping) throws -> [SectionRun] {
        if let runs = try OrderData.sectionRuns(db, order: order, grouping: grouping) { return runs }
        var runs: [SectionRun] = []
        var position = 0
        let statement = try BulkStatement(db, sql: "SELECT sort_date, key FROM items ORDER BY \(order.orderBy)")
        try statement.forEachRow(db) { row in
            let key: UInt64 = switch grouping {
            case .year: row.withBlob(0) { SectionGrouping.month(ofDate: $0) } / 100
            case .month: row.withBlob(0) { SectionGrouping.month(ofDate: $0) }
            case .folder: row.withBlob(1) { SectionGrouping.folderKey(of: $0) }
            }
            if runs.last?.key != key { runs.append(SectionRun(position: position, key: key)) }
            position += 1
        }
        return runs
    }

    /// The keys (paths or import keys) of the items at `positions` of `order`.
    package func keys(atPositions positions: [Int], order: ItemOrder) throws -> [Int: Data] {
        let sorted = Array(Set(positions)).sorted()
        var ids = try OrderData.ids(db, at: sorted, order: order)
        if ids == nil {
            var found: [Int: Int64] = [:]
            for position in sorted {
                found[position] = try Int64.fetchOne(db, sql: "SELECT id FROM items ORDER BY \(order.orderBy) LIMIT 1 OFFSET ?", arguments: [position])
            }
            ids = found
        }
        let keys = try self.keys(ids: Array(ids!.values))
        return ids!.compactMapValues { keys[$0]?.key }
    }

    /// Whether the catalog changed since `generation` only by items added after the first
    /// `count` items of `order` (so a layout of those can be extended in place).
    package func onlyAppended(since generation: Int64, count: Int, order: ItemOrder) throws -> Bool {
        let unchanged = try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE changed_generation <= ?", arguments: [generation]) ?? 0
        guard unchanged == count else { return false } // something was removed, updated or moved
        let newInPrefix = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM (SELECT changed_generation FROM items ORDER BY \(order.orderBy) LIMIT ?) WHERE changed_generation > ?
            """, arguments: [count, generation]) ?? 0
        return newInPrefix == 0
    }

    package func loggedChanges(since generation: Int64) throws -> Set<Int64>? {
        guard let keptFrom = try Int64.fetchOne(db, sql: "SELECT kept_from FROM change_log"), generation >= keptFrom else { return nil }
        return Set(try Int64.fetchAll(db, sql: "SELECT DISTINCT item_id FROM item_changes WHERE generation > ? AND kind <> 3", arguments: [generation]))
    }

    /// The position of item `id` in `order`, or nil if there is no such item.
    package func index(ofItem id: Int64, order: ItemOrder) throws -> Int? {
        if let found = try OrderData.index(db, ofItem: id, order: order) { return found }
        guard let row = try Row.fetchOne(db, sql: "SELECT sort_date, key FROM items WHERE id = ?", arguments: [id]) else { return nil }
        let date: String = row[0]
        let key: Data = row[1]
        switch order {
        case .date:
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE sort_date > ? OR (sort_date = ? AND key < ?)",
                                    arguments: [date, date, key])
        case .path:
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE key < ?", arguments: [key])
        }
    }
}

extension SQLiteStore {
    /// Runs `body` with a snapshot of the catalog (one read transaction). SQLite errors become
    /// `StoreError`; the body's own errors pass through as they are.
    package func withSnapshot<T: Sendable>(_ body: (any CatalogSnapshot) throws -> T) throws -> T {
        try checkSameFile() // as `read`: a page of a new configuration was laid out from the replaced file
        do {
            return try readRollingBack { db in try body(SQLiteSnapshot(db: db)) }
        } catch let error as DatabaseError {
            throw wrap(error)
        }
    }

    static func storedLayout(_ row: Row) -> StoredLayout {
        StoredLayout(id: row[0], configuration: row[1], generation: row[2], itemCount: row[3], contentHeight: row[4],
                     header: [UInt8](row[5] as Data), bytes: row[6], computeSeconds: row[7], lastUsedAt: row[8])
    }
}
