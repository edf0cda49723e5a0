package import CatalogModel
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Stores a layout computed at `generation` in segments of up to 64 windows a row, as the
    /// SQLite store does; false, storing nothing, if the catalog has moved on. The row lock on
    /// `catalog` keeps the generation from moving until the commit.
    @discardableResult
    package func saveLayout(configuration: String, order: ItemOrder, generation: Int64, windows: LayoutWindows,
                            replacing previous: (id: Int64, generation: Int64)?, keeping: Int) throws(StoreError) -> LayoutSave {
        // Either rolls the transaction back: a stream whose computation failed, or another
        // store of the same configuration that began first and committed meanwhile.
        var gaveUp: LayoutSave?
        do {
            return try storeLayout(configuration: configuration, order: order, generation: generation, windows: windows,
                                   replacing: previous, keeping: keeping, gaveUp: &gaveUp)
        } catch {
            if let gaveUp { return gaveUp }
            throw error
        }
    }

    private func storeLayout(configuration: String, order: ItemOrder, generation: Int64, windows: LayoutWindows,
                             replacing previous: (id: Int64, generation: Int64)?, keeping: Int,
                             gaveUp: inout LayoutSave?) throws(StoreError) -> LayoutSave {
        try write { session in
            // A scan or import writing holds the row until it commits, and then the generation
            // has moved on: a locked row is a catalog moving on, not one to wait for (a large
            // import held every new layout, and the requests computing them, for minutes).
            guard try session.value("SELECT generation FROM catalog FOR SHARE SKIP LOCKED", as: Int64.self) == generation else {
                return .catalogMovedOn
            }
            let perSegment = LayoutSegment.windowsPerSegment
            var id: Int64
            var kept = 0
            // The layout extended, as it was read: one extended in place since keeps its id. Its
            // row locked first, so that two stores extending it do not both replace its segments
            // from the same window on (the second's inserts met the first's: a duplicate key);
            // the second, once the first commits, finds it extended already.
            let extending = try previous.flatMap { previous in
                try session.value("""
                    SELECT generation FROM layouts WHERE id = \(previous.id) AND configuration = \(configuration) FOR UPDATE
                    """, as: Int64.self)
            }
            if extending == generation { return .replaced } // another store extended it to this generation meanwhile
            if let previous, extending == previous.generation {
                id = previous.id
                kept = min(keeping, windows.count ?? 0) / perSegment
                try session.execute("DELETE FROM layout_segments WHERE layout_id = \(id) AND first_window >= \(kept * perSegment)")
            } else {
                try session.execute("DELETE FROM layouts WHERE configuration = \(configuration)")
                do {
                    // Waits for another transaction's row of the same configuration, if any.
                    id = try session.value("""
                        INSERT INTO layouts (configuration, item_order, generation, item_count, content_height, header, bytes, compute_seconds)
                        VALUES (\(configuration), \(order.rawValue), 0, 0, 0, '', 0, 0) RETURNING id
                        """, as: Int64.self)!
                } catch where PostgresConnections.sqlState(error) == "23505" {
                    gaveUp = .replaced // that store committed its layout
                    throw error
                }
            }
            // Many segments a statement (about 4 MB): a layout of 10,000,000 items has thousands.
            var batch = SegmentBatch()
            let summary: LayoutWindows.Summary
            do {
                try LayoutSegment.forEachSegment(of: windows, from: kept * perSegment) { range, segment in
                    batch.append(first: range.lowerBound, count: range.count, minIndex: segment.minIndex, maxIndex: segment.maxIndex,
                                 bytes: segment.bytes)
                    if batch.size >= 4 << 20 { try batch.insert(session, layoutID: id) }
                }
                summary = try windows.summary()
            } catch let stopped as LayoutSegmentStream.Stopped {
                gaveUp = .abandoned
                throw stopped
            }
            try batch.insert(session, layoutID: id)
            let segmentBytes = try session.value("""
                SELECT coalesce(sum(length(bytes)), 0)::int8 FROM layout_segments WHERE layout_id = \(id)
                """, as: Int64.self) ?? 0
            try session.execute("""
                UPDATE layouts SET generation = \(generation), item_count = \(Int64(summary.itemCount)), content_height = \(summary.contentHeight),
                    header = \(Data(summary.header)), bytes = \(segmentBytes + Int64(summary.header.count)), compute_seconds = \(summary.computeSeconds),
                    last_used_at = \(unescaped: Self.isoNowSQL)
                WHERE id = \(id)
                """)
            try Self.evictLayouts(session, keeping: id)
            return .stored
        }
    }

    /// Segments to insert with one statement, as arrays `unnest` turns into rows.
    private struct SegmentBatch {
        var firsts: [Int32] = []
        var counts: [Int32] = []
        var minIndices: [Int64] = []
        var maxIndices: [Int64] = []
        var bytes: [ByteBuffer] = []
        var size = 0

        mutating func append(first: Int, count: Int, minIndex: Int64, maxIndex: Int64, bytes segment: [UInt8]) {
            firsts.append(Int32(first))
            counts.append(Int32(count))
            minIndices.append(minIndex)
            maxIndices.append(maxIndex)
            bytes.append(ByteBuffer(bytes: segment))
            size += segment.count
        }

        mutating func insert(_ session: PostgresSession, layoutID: Int64) throws {
            guard !firsts.isEmpty else { return }
            try session.execute("""
                INSERT INTO layout_segments (layout_id, first_window, window_count, min_index, max_index, bytes)
                SELECT \(layoutID), * FROM unnest(\(firsts), \(counts), \(minIndices), \(maxIndices), \(bytes))
                """)
            self = SegmentBatch()
        }
    }

    /// Removes the least recently used layouts other than `kept` until the rest fit the budget,
    /// one at a time, passing over a layout another store holds (two stores evicting each
    /// other's layouts would otherwise wait for each other: a deadlock).
    static func evictLayouts(_ session: PostgresSession, keeping kept: Int64) throws {
        // One store at a time from here to its commit: a sum does not see another transaction's
        // layout not committed yet, and two servers storing at once each found they fitted (1.7
        // MB stored of a 1 MB budget). The next one's sum, once it has the lock, sees this one's.
        try session.script("SELECT pg_advisory_xact_lock(\(layoutBudgetLock))")
        let budget = try session.value("SELECT layout_budget_bytes FROM catalog", as: Int64.self) ?? 0
        var total = try session.value("SELECT coalesce(sum(bytes), 0)::int8 FROM layouts", as: Int64.self) ?? 0
        while total > budget, let bytes = try session.value("""
            DELETE FROM layouts WHERE id = (SELECT id FROM layouts WHERE id <> \(kept) ORDER BY last_used_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING bytes
            """, as: Int64.self) {
            total -= bytes
        }
    }

    package func dropLayout(configuration: String) throws(StoreError) -> Bool {
        try write { session in try session.execute("DELETE FROM layouts WHERE configuration = \(configuration)") > 0 }
    }

    package func layoutBudget() throws(StoreError) -> Int64 {
        try read { session in try session.value("SELECT layout_budget_bytes FROM catalog", as: Int64.self) ?? 0 }
    }

    package func setLayoutBudget(_ bytes: Int64) throws(StoreError) {
        try write { session in
            try session.execute("UPDATE catalog SET layout_budget_bytes = \(max(0, bytes))")
            try Self.evictLayouts(session, keeping: -1)
        }
    }

    @discardableResult
    package func dropLayouts() throws(StoreError) -> Int {
        try write { session in try session.execute("DELETE FROM layouts") }
    }

    /// Records that a layout served a page, at most once a minute.
    package func touchLayout(id: Int64, lastUsedAt: String) throws(StoreError) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard lastUsedAt < formatter.string(from: Date().addingTimeInterval(-60)) else { return }
        try write { session in
            try session.execute("UPDATE layouts SET last_used_at = \(unescaped: Self.isoNowSQL) WHERE id = \(id)")
        }
    }

    @discardableResult
    package func pruneStaleLayouts() throws(StoreError) -> Int {
        try write { session in try Self.pruneStaleLayouts(session) }
    }

    /// Removes the stale layouts that can neither be extended in place nor laid out again from
    /// their first changed item (the change log reaches back to them).
    static func pruneStaleLayouts(_ session: PostgresSession) throws -> Int {
        let generation = try session.value("SELECT generation FROM catalog", as: Int64.self) ?? 0
        let keptFrom = try session.value("SELECT kept_from FROM change_log", as: Int64.self) ?? generation
        var removed = 0
        for row in try session.rows("SELECT id, item_order, generation, item_count FROM layouts WHERE generation < \(generation)") {
            let (id, orderName, layoutGeneration, count) = try row.decode((Int64, String, Int64, Int).self)
            let order = ItemOrder(rawValue: orderName) ?? .date
            if layoutGeneration < keptFrom, try !PostgresSnapshot(session: session).onlyAppended(since: layoutGeneration, count: count, order: order) {
                try session.execute("DELETE FROM layouts WHERE id = \(id)")
                removed += 1
            }
        }
        return removed
    }
}
