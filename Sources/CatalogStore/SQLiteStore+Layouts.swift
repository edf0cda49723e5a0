package import CatalogModel
import Foundation
import GRDB
import Synchronization

extension SQLiteStore {
    /// Stores a layout computed at catalog generation `generation` with all its `windows`, in
    /// segments of up to 64 windows a row, replacing any layout of the same configuration. With
    /// `previous`, the segments that hold only its first `keeping` windows stay as stored (an
    /// extension rewrites only what changed). Returns false, storing nothing, if the catalog has
    /// moved on, readers kept the file busy past `LayoutFile.busySeconds`, or another writer
    /// replaced or removed the layout while it was written.
    ///
    /// Written in pieces, each its own commit (`LayoutFile.Pieces`): a commit takes the file's
    /// exclusive lock, and readers of other layouts wait for it. One transaction for a whole
    /// layout held them from its first spilled page to its commit (0.12-0.17 s at 10,000,000
    /// items, more under load); a piece holds them for its own commit. Until its last piece the
    /// layout's row is marked with this writer (`layouts.writer`, Migrations/layouts/0002), and
    /// readers pass it by.
    @discardableResult
    package func saveLayout(configuration: String, order: ItemOrder, generation: Int64, windows: LayoutWindows,
                            replacing previous: (id: Int64, generation: Int64)?, keeping: Int) throws(StoreError) -> LayoutSave {
        try checkSameFile() // a layout of a catalog deleted since never goes into the new one's file
        let writer = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
        do {
            return try layoutQueue.inDatabase { db in
                // Waits for readers of the file count against one budget, whatever the store
                // spills or commits when.
                try layoutWait.within(layoutWait.storeBudget) {
                    var written: Int64?
                    do {
                        return try saveLayout(db, writer: writer, written: &written, configuration: configuration, order: order,
                                              generation: generation, windows: windows, replacing: previous, keeping: keeping)
                    } catch {
                        // The pieces committed so far go with their row, if the file lets it
                        // within a wait of its own (a store that failed busy has spent its
                        // budget); otherwise they are left for a later store (`abandonedSeconds`).
                        if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                        if let written {
                            try? layoutWait.within(layoutWait.cleanupBudget) {
                                try db.inTransaction(.immediate) {
                                    try db.execute(sql: "DELETE FROM layouts WHERE id = ? AND writer = ?", arguments: [written, writer])
                                    return .commit
                                }
                            }
                        }
                        if let replaced = error as? LayoutFile.Pieces.Replaced { return replaced.byAnotherStore ? .replaced : .dropped }
                        if error is LayoutSegmentStream.Stopped { return .abandoned }
                        if LayoutFile.isBusy(error) { return .busy }
                        throw error
                    }
                }
            }
        } catch {
            throw wrap(error, damaged: .layouts)
        }
    }

    /// `saveLayout` on the file's connection, out of any transaction: sets `written` to the
    /// layout's row once that row is committed, marked `writer`.
    private func saveLayout(_ db: Database, writer: Data, written: inout Int64?, configuration: String, order: ItemOrder,
                            generation: Int64, windows: LayoutWindows, replacing previous: (id: Int64, generation: Int64)?,
                            keeping: Int) throws -> LayoutSave {
        let perSegment = LayoutSegment.windowsPerSegment
        // Pieces that fit the connection's cache commit without spilling: the exclusive lock is
        // taken at the commit only. A connection that waits for the disk pays a sync per commit,
        // so its pieces are larger.
        let unsynced = try Int.fetchOne(db, sql: "PRAGMA synchronous") == 0
        let pieceBytes = layoutPieces.bytes(unsynced: unsynced)
        try db.execute(sql: "BEGIN IMMEDIATE")
        // The catalog and the layout file commit apart, so the catalog's generation is read
        // here, under the layout file's write lock: every layout in the file was stored at the
        // catalog's generation of its moment, and one of a generation that has passed is never
        // begun (generations only rise).
        let (current, budget) = try pool.read { catalog in
            (try Int64.fetchOne(catalog, sql: "SELECT generation FROM catalog"),
             try Int64.fetchOne(catalog, sql: "SELECT layout_budget_bytes FROM catalog") ?? 0)
        }
        guard current == generation else {
            try db.execute(sql: "ROLLBACK")
            return .catalogMovedOn
        }
        // Rows of writers that stopped mid-store (a process killed) and never came back.
        try db.execute(sql: """
            DELETE FROM layouts WHERE writer IS NOT NULL AND last_used_at < ?
            """, arguments: [Self.isoNow(minus: TimeInterval(LayoutFile.Pieces.abandonedSeconds))])
        var id: Int64
        var kept = 0 // segments left as stored
        // The layout extended, as it was read: one extended in place since keeps its id.
        if let previous, try Int64.fetchOne(db, sql: """
            SELECT id FROM layouts WHERE id = ? AND configuration = ? AND generation = ? AND writer IS NULL
            """, arguments: [previous.id, configuration, previous.generation]) != nil {
            id = previous.id
            kept = min(keeping, windows.count ?? 0) / perSegment
            try db.execute(sql: "UPDATE layouts SET writer = ?, last_used_at = \(Self.isoNowSQL) WHERE id = ?", arguments: [writer, id])
            try db.execute(sql: "DELETE FROM layout_segments WHERE layout_id = ? AND first_window >= ?", arguments: [id, kept * perSegment])
        } else {
            // Another writer's row of the same configuration goes too: the last to begin wins.
            try db.execute(sql: "DELETE FROM layouts WHERE configuration = ?", arguments: [configuration])
            try db.execute(sql: """
                INSERT INTO layouts (configuration, item_order, generation, item_count, content_height, header, bytes, compute_seconds, writer)
                VALUES (?, ?, 0, 0, 0, x'', 0, 0, ?)
                """, arguments: [configuration, order.rawValue, writer])
            id = db.lastInsertedRowID
        }
        try db.execute(sql: "COMMIT")
        written = id
        layoutPieces.committed()

        let mine = try BulkStatement(db, sql: "SELECT count(*) FROM layouts WHERE id = ?1 AND writer = ?2")
        /// Begins a piece: the row must still be this writer's (another may have replaced it, a
        /// `layouts --drop` removed it), or the segments would be written for nothing.
        func begin() throws {
            try db.execute(sql: "BEGIN IMMEDIATE")
            mine.bind(1, id)
            mine.bind(2, blob: writer)
            guard try mine.run(db) == 1 else {
                let others = try Int.fetchOne(db, sql: "SELECT count(*) FROM layouts WHERE configuration = ?", arguments: [configuration]) ?? 0
                throw LayoutFile.Pieces.Replaced(byAnotherStore: others > 0)
            }
        }
        let put = try BulkStatement(db, sql: """
            INSERT INTO layout_segments (layout_id, first_window, window_count, min_index, max_index, bytes)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """)
        // While it takes a stream's segments, this store holds the file's queue until the
        // computation ends (SQLiteStore.readRollingBack). It holds the file's write lock only
        // while it writes: a piece is committed as soon as it is full, and the next begins
        // with the next segment, so that other processes' writes of the file do not wait for
        // the computation (up to half a second at 10,000,000 items) but for a piece.
        let streamed = windows.count == nil
        if streamed {
            streamedStores.wrappingAdd(1, ordering: .relaxed)
            streamedStoresBegun.wrappingAdd(1, ordering: .relaxed)
        }
        defer { if streamed { streamedStores.wrappingSubtract(1, ordering: .relaxed) } }
        var inPiece = false
        var piece = 0
        func commitPiece() throws {
            try db.execute(sql: "COMMIT")
            layoutPieces.committed()
            (inPiece, piece) = (false, 0)
        }
        if !streamed {
            try begin()
            inPiece = true
        }
        try LayoutSegment.forEachSegment(of: windows, from: kept * perSegment) { range, segment in
            if inPiece, piece >= pieceBytes { try commitPiece() }
            if !inPiece {
                try begin()
                inPiece = true
            }
            put.bind(1, id)
            put.bind(2, range.lowerBound)
            put.bind(3, range.count)
            put.bind(4, segment.minIndex)
            put.bind(5, segment.maxIndex)
            try segment.bytes.withUnsafeBytes { bytes in
                put.bind(6, unsafeBlob: bytes)
                try put.run(db)
            }
            piece += segment.bytes.count
            if streamed, piece >= pieceBytes { try commitPiece() }
        }
        if !inPiece { try begin() }
        let summary = try windows.summary()
        let segmentBytes = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(length(bytes)), 0) FROM layout_segments WHERE layout_id = ?",
                                              arguments: [id]) ?? 0
        try db.execute(sql: """
            UPDATE layouts SET generation = ?, item_count = ?, content_height = ?, header = ?, bytes = ?, compute_seconds = ?,
                last_used_at = \(Self.isoNowSQL), writer = NULL
            WHERE id = ?
            """, arguments: [generation, summary.itemCount, summary.contentHeight, Data(summary.header),
                             segmentBytes + Int64(summary.header.count), summary.computeSeconds, id])
        try Self.evictLayouts(db, budget: budget, keeping: id)
        try db.execute(sql: "COMMIT")
        layoutPieces.committed()
        return .stored
    }

    /// Runs `body` in a write transaction of the layout file, waiting up to `seconds` for its
    /// lock (readers hold it while their snapshot lasts, and a writer waiting for them keeps new
    /// readers out), all waits together. If the file stays busy: `fallback`, or the error when
    /// there is none. A transaction that changed nothing is rolled back, not committed: a commit
    /// takes the file's exclusive lock even then, and would wait for readers.
    func writeLayouts<T: Sendable>(orIfBusy fallback: T? = nil, waiting seconds: Int = LayoutFile.busySeconds,
                                   _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try layoutQueue.inDatabase { db in
                // On the queue, so that no other write of this process moves the deadline.
                try layoutWait.within(.seconds(seconds)) {
                    var result: T?
                    try db.inTransaction(.immediate) {
                        let before = db.totalChangesCount
                        result = try body(db)
                        return db.totalChangesCount == before ? .rollback : .commit
                    }
                    return result!
                }
            }
        } catch where fallback != nil && LayoutFile.isBusy(error) {
            return fallback!
        } catch {
            throw wrap(error, damaged: .layouts)
        }
    }

    /// Stored layouts, most recently used first.
    package func layouts() throws(StoreError) -> [StoredLayout] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, configuration, generation, item_count, content_height, header, bytes, compute_seconds, last_used_at
                FROM layouts WHERE writer IS NULL ORDER BY last_used_at DESC, configuration
                """).map(Self.storedLayout)
        }
    }

    /// Removes the least recently used layouts other than `kept` until the rest fit `budget`.
    static func evictLayouts(_ db: Database, budget: Int64, keeping kept: Int64) throws {
        var total = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(bytes), 0) FROM layouts WHERE writer IS NULL") ?? 0
        guard total > budget else { return }
        // A layout another writer is storing is not taken from under it.
        for row in try Row.fetchAll(db, sql: "SELECT id, bytes FROM layouts WHERE id != ? AND writer IS NULL ORDER BY last_used_at, id",
                                    arguments: [kept]) {
            guard total > budget else { break }
            try db.execute(sql: "DELETE FROM layouts WHERE id = ?", arguments: [row[0] as Int64])
            total -= row[1]
        }
    }

    /// Removes the stored layout of one configuration; returns whether there was one.
    package func dropLayout(configuration: String) throws(StoreError) -> Bool {
        try writeLayouts { db in
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
        let budget = max(0, bytes)
        try write { db in try db.execute(sql: "UPDATE catalog SET layout_budget_bytes = ?", arguments: [budget]) }
        try writeLayouts { db in try Self.evictLayouts(db, budget: budget, keeping: -1) }
    }

    /// Removes every stored layout; returns how many. The layout file then gives its pages back
    /// to the disk (a delete only frees them for later stores), unless a reader keeps it busy
    /// past `vacuumSeconds`: the next drop tries again.
    @discardableResult
    package func dropLayouts() throws(StoreError) -> Int {
        let dropped = try writeLayouts { db in
            try db.execute(sql: "DELETE FROM layouts")
            return db.changesCount
        }
        // Outside a transaction, as VACUUM must be; the file is empty, so it writes a few pages.
        try? layoutQueue.inDatabase { db in
            try layoutWait.within(.seconds(Self.vacuumSeconds)) { try db.execute(sql: "VACUUM") }
        }
        return dropped
    }

    /// How long emptying the layout file waits for its readers before it leaves the file as it is.
    static let vacuumSeconds = 1

    /// Records that a layout served a page, at most once a minute (a page is otherwise read-only).
    package func touchLayout(id: Int64, lastUsedAt: String) throws(StoreError) {
        guard lastUsedAt < Self.isoNow(minus: 60) else { return }
        // A bookkeeping write: not worth holding new readers out for long (a waiting writer does).
        try writeLayouts(orIfBusy: (), waiting: 1) { db in
            try db.execute(sql: "UPDATE layouts SET last_used_at = \(Self.isoNowSQL) WHERE id = ?", arguments: [id])
        }
    }

    /// Removes the stale layouts that can neither be extended in place (items only appended)
    /// nor laid out again from their first changed item (the change log reaches back to them).
    /// Which ones is read in one snapshot; they are removed only if still as read (a page may
    /// have stored the configuration again since). Writes to the layout file only when there
    /// is something to remove.
    @discardableResult
    package func pruneStaleLayouts() throws(StoreError) -> Int {
        let stale: [(id: Int64, generation: Int64)] = try read { db in
            let generation = try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0
            let keptFrom = try Int64.fetchOne(db, sql: "SELECT kept_from FROM change_log") ?? generation
            var stale: [(id: Int64, generation: Int64)] = []
            for row in try Row.fetchAll(db, sql: "SELECT id, item_order, generation, item_count FROM layouts WHERE generation < ? AND writer IS NULL",
                                        arguments: [generation]) {
                let order = ItemOrder(rawValue: row[1]) ?? .date
                if (row[2] as Int64) < keptFrom, try !SQLiteSnapshot(db: db).onlyAppended(since: row[2], count: row[3], order: order) {
                    stale.append((row[0], row[2]))
                }
            }
            return stale
        }
        guard !stale.isEmpty else { return 0 }
        // Called once a scan or an import has committed, which a busy layout file must not fail:
        // the stale layouts then stay until the next prune, and no snapshot uses them meanwhile.
        return try writeLayouts(orIfBusy: 0) { db in
            var removed = 0
            for layout in stale {
                try db.execute(sql: "DELETE FROM layouts WHERE id = ? AND generation = ?", arguments: [layout.id, layout.generation])
                removed += db.changesCount
            }
            return removed
        }
    }

    /// The time now in SQL, as `last_used_at` and `last_scanned_at` hold it (`isoNow`'s format).
    static let isoNowSQL = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

    static func isoNow(minus seconds: TimeInterval) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date().addingTimeInterval(-seconds))
    }
}
