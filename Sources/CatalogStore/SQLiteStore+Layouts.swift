package import CatalogModel
import Foundation
import GRDB

extension SQLiteStore {
    /// Stores a layout computed at catalog generation `generation` with all its `windows`, in
    /// segments of up to 64 windows a row, replacing any layout of the same configuration. With
    /// `previous`, the segments that hold only its first `keeping` windows stay as stored (an
    /// extension rewrites only what changed). Returns false, storing nothing, if the catalog has
    /// moved on.
    @discardableResult
    package func saveLayout(configuration: String, order: ItemOrder, generation: Int64, itemCount: Int, contentHeight: Double,
                            header: [UInt8], windows: LayoutWindows, replacing previous: Int64?, keeping: Int,
                            computeSeconds: Double) throws(StoreError) -> Bool {
        try write { db in
            guard try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") == generation else { return false }
            let perSegment = LayoutSegment.windowsPerSegment
            var id: Int64
            var kept = 0 // segments left as stored
            if let previous, try Int64.fetchOne(db, sql: "SELECT id FROM layouts WHERE id = ? AND configuration = ?",
                                                  arguments: [previous, configuration]) != nil {
                id = previous
                kept = min(keeping, windows.count) / perSegment
                try db.execute(sql: "DELETE FROM layout_segments WHERE layout_id = ? AND first_window >= ?", arguments: [id, kept * perSegment])
            } else {
                try db.execute(sql: "DELETE FROM layouts WHERE configuration = ?", arguments: [configuration])
                try db.execute(sql: """
                    INSERT INTO layouts (configuration, item_order, generation, item_count, content_height, header, bytes, compute_seconds)
                    VALUES (?, ?, 0, 0, 0, x'', 0, 0)
                    """, arguments: [configuration, order.rawValue])
                id = db.lastInsertedRowID
            }
            let put = try BulkStatement(db, sql: """
                INSERT INTO layout_segments (layout_id, first_window, window_count, min_index, max_index, bytes)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
            for first in stride(from: kept * perSegment, to: windows.count, by: perSegment) {
                let range = first..<min(first + perSegment, windows.count)
                let segment = LayoutSegment.encode(windows, range)
                put.bind(1, id)
                put.bind(2, first)
                put.bind(3, range.count)
                put.bind(4, segment.minIndex)
                put.bind(5, segment.maxIndex)
                try segment.bytes.withUnsafeBytes { bytes in
                    put.bind(6, unsafeBlob: bytes)
                    try put.run(db)
                }
            }
            let segmentBytes = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(length(bytes)), 0) FROM layout_segments WHERE layout_id = ?",
                                                  arguments: [id]) ?? 0
            try db.execute(sql: """
                UPDATE layouts SET generation = ?, item_count = ?, content_height = ?, header = ?, bytes = ?, compute_seconds = ?,
                    last_used_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                WHERE id = ?
                """, arguments: [generation, itemCount, contentHeight, Data(header), segmentBytes + Int64(header.count), computeSeconds, id])
            try Self.evictLayouts(db, keeping: id)
            return true
        }
    }

    /// Stored layouts, most recently used first.
    package func layouts() throws(StoreError) -> [StoredLayout] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, configuration, generation, item_count, content_height, header, bytes, compute_seconds, last_used_at
                FROM layouts ORDER BY last_used_at DESC, configuration
                """).map(Self.storedLayout)
        }
    }

    /// Removes the least recently used layouts other than `kept` until the rest fit the budget.
    static func evictLayouts(_ db: Database, keeping kept: Int64) throws {
        let budget = try Int64.fetchOne(db, sql: "SELECT layout_budget_bytes FROM catalog") ?? 0
        var total = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(bytes), 0) FROM layouts") ?? 0
        guard total > budget else { return }
        for row in try Row.fetchAll(db, sql: "SELECT id, bytes FROM layouts WHERE id != ? ORDER BY last_used_at, id", arguments: [kept]) {
            guard total > budget else { break }
            try db.execute(sql: "DELETE FROM layouts WHERE id = ?", arguments: [row[0] as Int64])
            total -= row[1]
        }
    }

    /// Removes the stored layout of one configuration; returns whether there was one.
    package func dropLayout(configuration: String) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM layouts WHERE configuration = ?", arguments: [configuration])
            return db.changesCount > 0
        }
    }

    /// Bytes of stored layouts the catalog keeps.
    package func layoutBudget() throws(StoreError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT layout_budget_bytes FROM catalog") ?? 0 }
    }

    /// Sets the budget and removes least recently used layouts past it (all of them for 0).
    package func setLayoutBudget(_ bytes: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE catalog SET layout_budget_bytes = ?", arguments: [max(0, bytes)])
            try Self.evictLayouts(db, keeping: -1)
        }
    }

    /// Removes every stored layout; returns how many.
    @discardableResult
    package func dropLayouts() throws(StoreError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM layouts")
            return db.changesCount
        }
    }

    /// Records that a layout served a page, at most once a minute (a page is otherwise read-only).
    package func touchLayout(id: Int64, lastUsedAt: String) throws(StoreError) {
        guard lastUsedAt < Self.isoNow(minus: 60) else { return }
        try write { db in
            try db.execute(sql: "UPDATE layouts SET last_used_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?", arguments: [id])
        }
    }

    /// Removes stale layouts that cannot be extended in place (something was removed, updated,
    /// or inserted before their last item); extendable ones stay until their next use.
    @discardableResult
    package func pruneStaleLayouts() throws(StoreError) -> Int {
        try write { db in try Self.pruneStaleLayouts(db) }
    }

    /// Removes the stale layouts that can neither be extended in place (items only appended)
    /// nor laid out again from their first changed item (the change log reaches back to them).
    static func pruneStaleLayouts(_ db: Database) throws -> Int {
        let generation = try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0
        let keptFrom = try Int64.fetchOne(db, sql: "SELECT kept_from FROM change_log") ?? generation
        var removed = 0
        for row in try Row.fetchAll(db, sql: "SELECT id, item_order, generation, item_count FROM layouts WHERE generation < ?",
                                    arguments: [generation]) {
            let order = ItemOrder(rawValue: row[1]) ?? .date
            if (row[2] as Int64) < keptFrom, try !SQLiteSnapshot(db: db).onlyAppended(since: row[2], count: row[3], order: order) {
                try db.execute(sql: "DELETE FROM layouts WHERE id = ?", arguments: [row[0] as Int64])
                removed += 1
            }
        }
        return removed
    }

    static func isoNow(minus seconds: TimeInterval) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date().addingTimeInterval(-seconds))
    }
}
