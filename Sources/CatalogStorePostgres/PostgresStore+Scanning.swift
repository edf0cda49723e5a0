package import CatalogModel
package import Foundation
import PostgresNIO

extension PostgresStore {
    package func rootID(for path: Data) throws(StoreError) -> Int64 {
        try write { session in
            try session.execute("INSERT INTO roots (path) VALUES (\(path)) ON CONFLICT (path) DO NOTHING")
            return try session.value("SELECT id FROM roots WHERE path = \(path)", as: Int64.self)!
        }
    }

    package func knownFiles(under prefix: Data) throws(StoreError) -> [KnownFile] {
        var upper = prefix
        upper[upper.count - 1] += 1 // "/" + 1: the first key past the folder
        let bounds = (prefix, upper)
        return try read(onPrimary: true) { session in
            let files = RowCollector<KnownFile>()
            try session.forEachRow("""
                SELECT path, device, inode, size, mtime_ns, fingerprint, status::int, item_id, CASE WHEN status = 2 THEN error END
                FROM files WHERE path >= \(bounds.0) AND path < \(bounds.1)
                """) { row in
                let (path, device, inode, size, mtime, fingerprint, status, itemID, error) = try row.decode(
                    (Data, Int64, Int64, Int64, Int64, Int64?, Int, Int64?, String?).self)
                files.append(KnownFile(path: path, stat: FileStat(device: device, inode: inode, size: size, mtimeNanoseconds: mtime),
                                       fingerprint: fingerprint, status: status, itemID: itemID, error: error))
            }
            return files.take()
        }
    }

    /// One statement per file: the item updated (when the file had one) or upserted by path,
    /// and the file's row pointing at it; an imported item's key is not taken over (no item
    /// comes back, and the file is stored as failed, $20 its reason).
    private static let writeImage = """
        WITH updated AS (
            UPDATE items SET key = $1, format = $2, pixel_width = $3, pixel_height = $4, orientation = $5, width = $6,
                height = $7, bytes = $8, capture_date = $9, modified_at = $10, sort_date = $11, changed_generation = $12
            WHERE id = $13 RETURNING id
        ), inserted AS (
            INSERT INTO items (key, source, format, pixel_width, pixel_height, orientation, width, height, bytes,
                               capture_date, modified_at, sort_date, changed_generation)
            SELECT $1, 0, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 WHERE NOT EXISTS (SELECT 1 FROM updated)
            ON CONFLICT (key) DO UPDATE SET source = 0, format = excluded.format, pixel_width = excluded.pixel_width,
                pixel_height = excluded.pixel_height, orientation = excluded.orientation, width = excluded.width,
                height = excluded.height, bytes = excluded.bytes, capture_date = excluded.capture_date,
                modified_at = excluded.modified_at, sort_date = excluded.sort_date,
                changed_generation = excluded.changed_generation
            WHERE items.source = 0
            RETURNING id
        ), item AS (
            SELECT coalesce((SELECT id FROM updated), (SELECT id FROM inserted)) AS id
        )
        INSERT INTO files (path, root_id, device, inode, size, mtime_ns, fingerprint, status, item_id, error)
        SELECT $1, $14, $15, $16, $17, $18, $19, CASE WHEN id IS NULL THEN 2 ELSE 0 END, id, CASE WHEN id IS NULL THEN $20 END FROM item
        ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, device = excluded.device, inode = excluded.inode,
            size = excluded.size, mtime_ns = excluded.mtime_ns, fingerprint = excluded.fingerprint, status = excluded.status,
            item_id = excluded.item_id, error = excluded.error
        RETURNING (SELECT count(*)::int8 FROM updated), item_id IS NULL
        """

    private static let writeFile = """
        INSERT INTO files (path, root_id, device, inode, size, mtime_ns, fingerprint, status, item_id, error)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9)
        ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, device = excluded.device, inode = excluded.inode,
            size = excluded.size, mtime_ns = excluded.mtime_ns, fingerprint = excluded.fingerprint, status = excluded.status,
            item_id = NULL, error = excluded.error
        """

    @discardableResult
    package func apply(_ changes: [FileChange], rootID: Int64) throws(StoreError) -> (added: Int, updated: Int, removed: Int, refused: Int) {
        guard !changes.isEmpty else { return (0, 0, 0, 0) }
        return try write { session in
            var bumped: Int64? = nil
            func generation() throws -> Int64 {
                if let bumped { return bumped }
                let next = try Self.nextGeneration(session)
                bumped = next
                return next
            }
            var counts = (added: 0, updated: 0, removed: 0, refused: 0)
            for change in changes {
                let stat = change.stat
                switch change.outcome {
                case .image(let facts):
                    let binds = try Self.binds(
                        change.path, facts.format, Int32(facts.pixelWidth), Int32(facts.pixelHeight), Int16(facts.orientation),
                        Int32(facts.width), Int32(facts.height), facts.bytes, facts.captureDate, facts.modifiedAt,
                        facts.captureDate ?? facts.modifiedAt, try generation(), change.itemID ?? -1, rootID, stat.device, stat.inode,
                        stat.size, stat.mtimeNanoseconds, change.fingerprint, FileOutcome.importedKeyReason)
                    let (updated, refused) = try session.rows(PostgresQuery(unsafeSQL: Self.writeImage, binds: binds)).first?
                        .decode((Int, Bool).self) ?? (0, false)
                    if updated > 0 { counts.updated += 1 } else if refused { counts.refused += 1 } else { counts.added += 1 }
                case .unsupported, .failed:
                    if let existing = change.itemID {
                        _ = try generation() // before the change: the change log records it at the new generation
                        counts.removed += try session.execute("DELETE FROM items WHERE id = \(existing)")
                    }
                    var error: String? = nil
                    if case .failed(let reason) = change.outcome { error = reason }
                    try session.execute(PostgresQuery(unsafeSQL: Self.writeFile, binds: try Self.binds(
                        change.path, rootID, stat.device, stat.inode, stat.size, stat.mtimeNanoseconds, change.fingerprint,
                        Int16(change.outcome.status), error)))
                }
            }
            if bumped != nil { try PostgresOrderData.refresh(session, force: false) }
            return counts
        }
    }

    @discardableResult
    package func remove(paths: [Data]) throws(StoreError) -> Int {
        guard !paths.isEmpty else { return 0 }
        return try write { session in
            var removedItems = 0
            var bumped = false
            for path in paths {
                if let item = try session.value("SELECT item_id FROM files WHERE path = \(path)", as: Int64.self) {
                    if !bumped {
                        _ = try Self.nextGeneration(session)
                        bumped = true
                    }
                    removedItems += try session.execute("DELETE FROM items WHERE id = \(item)")
                }
                try session.execute("DELETE FROM files WHERE path = \(path)")
            }
            if bumped { try PostgresOrderData.refresh(session, force: false) }
            return removedItems
        }
    }

    package func finishScan(rootID: Int64, complete: Bool) throws(StoreError) {
        try write { session in
            try session.execute(PostgresQuery(unsafeSQL: """
                UPDATE roots SET last_scanned_at = \(Self.isoNowSQL), last_scan_complete = $1 WHERE id = $2
                """, binds: try Self.binds(complete, rootID)))
        }
    }

    /// Files found at other paths, in one transaction that moves the generation once (see the seam).
    package func move(_ moves: [FileMove]) throws(StoreError) -> [Bool] {
        guard !moves.isEmpty else { return [] }
        return try write { session in
            var generation: Int64?
            // Before the first change to an item: the change log records it at the new generation.
            func bump() throws -> Int64 {
                if let generation { return generation }
                let next = try Self.nextGeneration(session)
                generation = next
                return next
            }
            var moved: [Bool] = []
            moved.reserveCapacity(moves.count)
            for move in moves {
                let (from, to) = (move.from, move.to)
                try session.execute("DELETE FROM files WHERE path = \(to)")
                if let itemID = move.itemID, try session.value("SELECT id FROM items WHERE key = \(to) AND source = 1", as: Int64.self) != nil {
                    _ = try bump()
                    try session.execute("""
                        UPDATE files SET path = \(to), root_id = coalesce(\(move.rootID), root_id), status = 2, item_id = NULL,
                            error = \(FileOutcome.importedKeyReason)
                        WHERE path = \(from)
                        """)
                    try session.execute("DELETE FROM items WHERE id = \(itemID)")
                    moved.append(false)
                } else {
                    try session.execute("UPDATE files SET path = \(to), root_id = coalesce(\(move.rootID), root_id) WHERE path = \(from)")
                    if let itemID = move.itemID {
                        let generation = try bump()
                        if let f = move.facts { // one statement an item: the change log records one change for it
                            try session.execute("""
                                UPDATE items SET key = \(to), format = \(f.format), pixel_width = \(f.pixelWidth), pixel_height = \(f.pixelHeight),
                                    orientation = \(f.orientation), width = \(f.width), height = \(f.height), bytes = \(f.bytes),
                                    capture_date = \(f.captureDate), modified_at = \(f.modifiedAt), sort_date = \(f.captureDate ?? f.modifiedAt),
                                    changed_generation = \(generation)
                                WHERE id = \(itemID)
                                """)
                        } else {
                            try session.execute("UPDATE items SET key = \(to), changed_generation = \(generation) WHERE id = \(itemID)")
                        }
                    }
                    moved.append(true)
                }
                // The file as it is now: the next scan finds it unchanged.
                if let stat = move.stat {
                    try session.execute("""
                        UPDATE files SET device = \(stat.device), inode = \(stat.inode), size = \(stat.size), mtime_ns = \(stat.mtimeNanoseconds),
                            fingerprint = \(move.fingerprint) WHERE path = \(to)
                        """)
                }
            }
            if generation != nil { try PostgresOrderData.refresh(session, force: false) }
            return moved
        }
    }

    /// Brings the order data up to date after a scan that left it behind (a rebuild of each
    /// order, or a merge of the chunks the scan's changes land in).
    package func refreshOrderData() throws(StoreError) {
        let current = try read(onPrimary: true) { session in try PostgresOrderData.isCurrent(session) }
        if !current { try write { session in try PostgresOrderData.refresh(session, force: true) } }
    }

    /// Rewrites `items` in `order`'s index order (CLUSTER, which takes the table's exclusive
    /// lock while it runs), then gathers the planner's statistics again, which the new layout
    /// of the table changes. Each its own statement, outside a transaction: the items, their
    /// ids and the generation are unchanged, so no server hears of it.
    package func clusterItems(order: ItemOrder) throws(StoreError) -> Bool {
        let index = order == .date ? "items_by_date" : "items_key_key"
        let lock = try lockForWriting() // no import drops the index meanwhile
        defer { withExtendedLifetime(lock) {} }
        do {
            try connections.withSession { session in
                _ = try session.execute(PostgresQuery(unsafeSQL: "CLUSTER items USING " + index))
                _ = try session.execute("ANALYZE items")
            }
        } catch {
            throw wrap(error)
        }
        return true
    }
}
