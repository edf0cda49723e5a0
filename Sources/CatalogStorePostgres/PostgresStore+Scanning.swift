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

    package func rootPaths() throws(StoreError) -> [Data] {
        try read(onPrimary: true) { session in
            let paths = RowCollector<Data>()
            try session.forEachRow("SELECT path FROM roots") { row in paths.append(try row.decode(Data.self)) }
            return paths.take()
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

    /// A batch in a few statements, each over all of its files (arrays that `unnest` turns into
    /// rows), not one statement a file: a round trip and a plan per file made a first scan of
    /// 100,000 files take 50 s against SQLite's 1.4 s (BENCHMARKS.md). In order: the items of
    /// files that are no longer images removed; the items files keep updated by id; the rest
    /// upserted by path (an imported item's key not taken over: no item comes back, and the file
    /// is stored as failed); every file's row written. A batch that names a path or an item twice
    /// is written a run at a time, each run without repeats, in order: within a run no row
    /// depends on another.
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
            for run in Self.runsWithoutRepeats(changes, paths: { [$0.path] }, item: \.itemID) {
                let run = try Self.applyRun(session, run, rootID: rootID, generation: generation, moved: { bumped != nil })
                counts.added += run.added
                counts.updated += run.updated
                counts.removed += run.removed
                counts.refused += run.refused
            }
            if bumped != nil { try PostgresOrderData.refresh(session, force: false) }
            return counts
        }
    }

    /// `changes` cut where a path or an item comes again.
    private static func runsWithoutRepeats<Change>(_ changes: [Change], paths: (Change) -> [Data],
                                                   item: (Change) -> Int64?) -> [ArraySlice<Change>] {
        var runs: [ArraySlice<Change>] = []
        var start = changes.startIndex
        var seenPaths = Set<Data>(), seenItems = Set<Int64>()
        for (index, change) in zip(changes.indices, changes) {
            let (ownPaths, ownItem) = (paths(change), item(change))
            if ownPaths.contains(where: seenPaths.contains) || ownItem.map(seenItems.contains) == true {
                runs.append(changes[start..<index])
                start = index
                seenPaths.removeAll(keepingCapacity: true)
                seenItems.removeAll(keepingCapacity: true)
            }
            seenPaths.formUnion(ownPaths)
            if let ownItem { seenItems.insert(ownItem) }
        }
        runs.append(changes[start...])
        return runs
    }

    private static func applyRun(_ session: PostgresSession, _ run: ArraySlice<FileChange>, rootID: Int64,
                                 generation: () throws -> Int64,
                                 moved: () -> Bool) throws -> (added: Int, updated: Int, removed: Int, refused: Int) {
        var counts = (added: 0, updated: 0, removed: 0, refused: 0)
        // Files that are no longer images: their items go, before the change (the change log
        // records it at the new generation).
        let dropped = run.compactMap { change -> Int64? in
            if case .image = change.outcome { return nil }
            return change.keepsItem ? nil : change.itemID
        }
        if !dropped.isEmpty {
            _ = try generation()
            counts.removed = try session.execute("DELETE FROM items WHERE id = ANY(\(dropped))")
        }
        var images = run.filter { if case .image = $0.outcome { true } else { false } }
        var itemOfPath: [Data: Int64] = [:]
        if !moved(), case let paths = images.filter({ $0.itemID == nil }).map({ ByteBuffer(bytes: $0.path) }), !paths.isEmpty {
            // Until the generation has moved: imported items' keys are refused before it moves,
            // so a batch of nothing else leaves the generation where it was.
            var imported = Set<Data>()
            for row in try session.rows("SELECT key FROM items WHERE key = ANY(\(paths)) AND source = 1") {
                imported.insert(try row.decode(Data.self))
            }
            images.removeAll { imported.contains($0.path) }
            counts.refused += imported.count
        }
        if !images.isEmpty {
            let generation = try generation()
            // The items files keep (their own, or that of the file they moved from), by id.
            let kept = images.filter { $0.itemID != nil }
            if !kept.isEmpty {
                for (id, key) in try Self.updateItems(session, ids: kept.map { $0.itemID! }, facts: ImageColumns(kept), generation: generation) {
                    itemOfPath[key] = id
                    counts.updated += 1
                }
            }
            // The rest by path, in the batch's order (so are their ids): a new item, or the one
            // a scan stored at that path before; an imported item's key comes back with no row.
            let rest = images.filter { itemOfPath[$0.path] == nil }
            if !rest.isEmpty {
                let facts = ImageColumns(rest)
                for row in try session.rows("""
                    INSERT INTO items (key, source, format, pixel_width, pixel_height, orientation, width, height, bytes,
                                       capture_date, modified_at, sort_date, changed_generation)
                    SELECT path, 0, format, pw, ph, orientation, width, height, bytes, capture, modified,
                           coalesce(capture, modified), \(generation)
                    FROM (SELECT n, path, format, pw, ph, orientation, width, height, bytes,
                                 CASE WHEN has_capture THEN capture END AS capture, modified
                          FROM unnest(\(facts.paths), \(facts.formats), \(facts.pixelWidths), \(facts.pixelHeights),
                                      \(facts.orientations), \(facts.widths), \(facts.heights), \(facts.bytes),
                                      \(facts.captureDates), \(facts.hasCaptureDate), \(facts.modified))
                            WITH ORDINALITY AS u(path, format, pw, ph, orientation, width, height, bytes, capture, has_capture,
                                                 modified, n)) AS f
                    ORDER BY n
                    ON CONFLICT (key) DO UPDATE SET source = 0, format = excluded.format, pixel_width = excluded.pixel_width,
                        pixel_height = excluded.pixel_height, orientation = excluded.orientation, width = excluded.width,
                        height = excluded.height, bytes = excluded.bytes, capture_date = excluded.capture_date,
                        modified_at = excluded.modified_at, sort_date = excluded.sort_date,
                        changed_generation = excluded.changed_generation
                    WHERE items.source = 0
                    RETURNING id, key
                    """) {
                    let (id, key) = try row.decode((Int64, Data).self)
                    itemOfPath[key] = id
                    counts.added += 1
                }
                counts.refused += rest.count - counts.added
            }
        }
        // Every file's row: an image's with its item (or failed, its key an imported item's),
        // the others with their status and reason.
        var files = FileColumns()
        var keptPaths: [ByteBuffer] = [], keptReasons: [String] = []
        for change in run {
            if change.keepsItem, case .failed(let reason) = change.outcome {
                // A known image this scan could not read: failed, its item, facts and stat kept.
                keptPaths.append(ByteBuffer(bytes: change.path))
                keptReasons.append(reason)
                continue
            }
            switch change.outcome {
            case .image:
                if let item = itemOfPath[change.path] {
                    files.append(change, status: 0, itemID: item, error: nil)
                } else {
                    files.append(change, status: 2, itemID: nil, error: FileOutcome.importedKeyReason)
                }
            case .unsupported:
                files.append(change, status: 1, itemID: nil, error: nil)
            case .failed(let reason):
                files.append(change, status: 2, itemID: nil, error: reason)
            }
        }
        try session.execute("""
            INSERT INTO files (path, root_id, device, inode, size, mtime_ns, fingerprint, status, item_id, error)
            SELECT path, \(rootID), device, inode, size, mtime, CASE WHEN has_fingerprint THEN fingerprint END, status,
                   CASE WHEN has_item THEN item_id END, CASE WHEN has_error THEN error END
            FROM unnest(\(files.paths), \(files.devices), \(files.inodes), \(files.sizes), \(files.mtimes), \(files.fingerprints),
                        \(files.hasFingerprint), \(files.statuses), \(files.itemIDs), \(files.hasItem), \(files.errors), \(files.hasError))
              AS f(path, device, inode, size, mtime, fingerprint, has_fingerprint, status, item_id, has_item, error, has_error)
            ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, device = excluded.device, inode = excluded.inode,
                size = excluded.size, mtime_ns = excluded.mtime_ns, fingerprint = excluded.fingerprint, status = excluded.status,
                item_id = excluded.item_id, error = excluded.error
            """)
        if !keptPaths.isEmpty {
            try session.execute("""
                UPDATE files SET status = 2, error = f.error FROM unnest(\(keptPaths), \(keptReasons)) AS f(path, error)
                WHERE files.path = f.path
                """)
        }
        return counts
    }

    /// Items `ids` given the facts of their files (a path each, their new key); returns the
    /// id and key of each item still there.
    private static func updateItems(_ session: PostgresSession, ids: [Int64], facts: ImageColumns,
                                    generation: Int64) throws -> [(id: Int64, key: Data)] {
        try session.rows("""
            UPDATE items SET key = f.path, format = f.format, pixel_width = f.pw, pixel_height = f.ph,
                orientation = f.orientation, width = f.width, height = f.height, bytes = f.bytes,
                capture_date = f.capture, modified_at = f.modified, sort_date = coalesce(f.capture, f.modified),
                changed_generation = \(generation)
            FROM (SELECT id, path, format, pw, ph, orientation, width, height, bytes,
                         CASE WHEN has_capture THEN capture END AS capture, modified
                  FROM unnest(\(ids), \(facts.paths), \(facts.formats), \(facts.pixelWidths), \(facts.pixelHeights),
                              \(facts.orientations), \(facts.widths), \(facts.heights), \(facts.bytes), \(facts.captureDates),
                              \(facts.hasCaptureDate), \(facts.modified))
                    AS u(id, path, format, pw, ph, orientation, width, height, bytes, capture, has_capture, modified)) AS f
            WHERE items.id = f.id
            RETURNING items.id, items.key
            """).map { row in
            let (id, key) = try row.decode((Int64, Data).self)
            return (id, key)
        }
    }

    /// Image facts as one array a column, for `unnest` (NULLs as a flag beside a placeholder:
    /// PostgresNIO's arrays hold no NULL).
    private struct ImageColumns {
        var paths: [ByteBuffer] = [], formats: [String] = [], pixelWidths: [Int32] = [], pixelHeights: [Int32] = []
        var orientations: [Int16] = [], widths: [Int32] = [], heights: [Int32] = [], bytes: [Int64] = []
        var captureDates: [String] = [], hasCaptureDate: [Bool] = [], modified: [String] = []

        init(_ changes: [FileChange]) {
            self.init(changes.compactMap { change in
                if case .image(let facts) = change.outcome { (change.path, facts) } else { nil }
            })
        }

        /// Each file's path and facts.
        init(_ files: [(path: Data, facts: ImageFacts)]) {
            for (path, facts) in files {
                paths.append(ByteBuffer(bytes: path))
                formats.append(facts.format)
                pixelWidths.append(Int32(clamping: facts.pixelWidth))
                pixelHeights.append(Int32(clamping: facts.pixelHeight))
                orientations.append(Int16(clamping: facts.orientation))
                widths.append(Int32(clamping: facts.width))
                heights.append(Int32(clamping: facts.height))
                bytes.append(facts.bytes)
                captureDates.append(facts.captureDate ?? "")
                hasCaptureDate.append(facts.captureDate != nil)
                modified.append(facts.modifiedAt)
            }
        }
    }

    /// Files' rows as one array a column, for `unnest`.
    private struct FileColumns {
        var paths: [ByteBuffer] = [], devices: [Int64] = [], inodes: [Int64] = [], sizes: [Int64] = [], mtimes: [Int64] = []
        var fingerprints: [Int64] = [], hasFingerprint: [Bool] = [], statuses: [Int16] = []
        var itemIDs: [Int64] = [], hasItem: [Bool] = [], errors: [String] = [], hasError: [Bool] = []

        mutating func append(_ change: FileChange, status: Int16, itemID: Int64?, error: String?) {
            paths.append(ByteBuffer(bytes: change.path))
            devices.append(change.stat.device)
            inodes.append(change.stat.inode)
            sizes.append(change.stat.size)
            mtimes.append(change.stat.mtimeNanoseconds)
            fingerprints.append(change.fingerprint ?? 0)
            hasFingerprint.append(change.fingerprint != nil)
            statuses.append(status)
            itemIDs.append(itemID ?? 0)
            hasItem.append(itemID != nil)
            errors.append(error ?? "")
            hasError.append(error != nil)
        }
    }

    /// Files gone, and their items, in two statements over all of `paths`.
    @discardableResult
    package func remove(paths: [Data]) throws(StoreError) -> Int {
        guard !paths.isEmpty else { return 0 }
        let keys = paths.map { ByteBuffer(bytes: $0) }
        return try write { session in
            var removedItems = 0
            // Before the first change to an item: the change log records it at the new generation.
            let itemsGo = try session.value("""
                SELECT EXISTS (SELECT 1 FROM files WHERE path = ANY(\(keys)) AND item_id IS NOT NULL)
                """, as: Bool.self) == true
            if itemsGo {
                _ = try Self.nextGeneration(session)
                removedItems = try session.execute("DELETE FROM items WHERE id IN (SELECT item_id FROM files WHERE path = ANY(\(keys)))")
            }
            try session.execute("DELETE FROM files WHERE path = ANY(\(keys))")
            if itemsGo { try PostgresOrderData.refresh(session, force: false) }
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

    /// Files found at other paths, in one transaction that moves the generation once (see the
    /// seam), a few statements over all of them, as `apply` writes (a renamed folder of 10,000
    /// files took 8 s a statement per file). A batch that names a path or an item twice is
    /// moved a run at a time, in order, each run without repeats.
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
            for run in Self.runsWithoutRepeats(moves, paths: { [$0.from, $0.to] }, item: \.itemID) {
                moved += try Self.moveRun(session, Array(run), bump: bump)
            }
            if generation != nil { try PostgresOrderData.refresh(session, force: false) }
            return moved
        }
    }

    private static func moveRun(_ session: PostgresSession, _ run: [FileMove], bump: () throws -> Int64) throws -> [Bool] {
        // Whatever was at the new paths before is replaced.
        let tos = run.map { ByteBuffer(bytes: $0.to) }
        try session.execute("DELETE FROM files WHERE path = ANY(\(tos))")
        // A file with an item moved onto an imported item's key: the imported item stays, the
        // file is stored as failed, and its own item goes (as `apply` refuses such a file).
        let keyed = run.filter { $0.itemID != nil }.map { ByteBuffer(bytes: $0.to) }
        var importedKeys = Set<Data>()
        if !keyed.isEmpty {
            for row in try session.rows("SELECT key FROM items WHERE key = ANY(\(keyed)) AND source = 1") {
                importedKeys.insert(try row.decode(Data.self))
            }
        }
        let refused = run.map { $0.itemID != nil && importedKeys.contains($0.to) }
        func files(_ moves: [FileMove]) -> (from: [ByteBuffer], to: [ByteBuffer], root: [Int64], hasRoot: [Bool]) {
            (moves.map { ByteBuffer(bytes: $0.from) }, moves.map { ByteBuffer(bytes: $0.to) }, moves.map { $0.rootID ?? 0 },
             moves.map { $0.rootID != nil })
        }
        let refusedMoves = zip(run, refused).filter(\.1).map(\.0)
        if !refusedMoves.isEmpty {
            _ = try bump()
            let m = files(refusedMoves)
            try session.execute("""
                UPDATE files SET path = m.target, root_id = CASE WHEN m.has_root THEN m.root ELSE files.root_id END, status = 2,
                    item_id = NULL, error = \(FileOutcome.importedKeyReason)
                FROM unnest(\(m.from), \(m.to), \(m.root), \(m.hasRoot)) AS m(source, target, root, has_root)
                WHERE files.path = m.source
                """)
            try session.execute("DELETE FROM items WHERE id = ANY(\(refusedMoves.map { $0.itemID! }))")
        }
        let kept = zip(run, refused).filter { !$0.1 }.map(\.0)
        if !kept.isEmpty {
            let m = files(kept)
            try session.execute("""
                UPDATE files SET path = m.target, root_id = CASE WHEN m.has_root THEN m.root ELSE files.root_id END
                FROM unnest(\(m.from), \(m.to), \(m.root), \(m.hasRoot)) AS m(source, target, root, has_root)
                WHERE files.path = m.source
                """)
            // One statement an item: the change log records one change for it.
            let changed = kept.filter { $0.itemID != nil && $0.facts != nil }
            if !changed.isEmpty {
                _ = try updateItems(session, ids: changed.map { $0.itemID! }, facts: ImageColumns(changed.map { ($0.to, $0.facts!) }),
                                    generation: try bump())
                // Read this time: an image kept through a failed read is no longer failing.
                try session.execute("""
                    UPDATE files SET status = 0, error = NULL WHERE path = ANY(\(changed.map { ByteBuffer(bytes: $0.to) })) AND status = 2
                    """)
            }
            let renamed = kept.filter { $0.itemID != nil && $0.facts == nil }
            if !renamed.isEmpty {
                try session.execute("""
                    UPDATE items SET key = m.target, changed_generation = \(try bump())
                    FROM unnest(\(renamed.map { $0.itemID! }), \(renamed.map { ByteBuffer(bytes: $0.to) })) AS m(id, target)
                    WHERE items.id = m.id
                    """)
            }
        }
        // The files as they are now: the next scan finds them unchanged.
        let now = run.filter { $0.stat != nil }
        if !now.isEmpty {
            try session.execute("""
                UPDATE files SET device = m.device, inode = m.inode, size = m.size, mtime_ns = m.mtime,
                    fingerprint = CASE WHEN m.has_fingerprint THEN m.fingerprint END
                FROM unnest(\(now.map { ByteBuffer(bytes: $0.to) }), \(now.map { $0.stat!.device }), \(now.map { $0.stat!.inode }),
                            \(now.map { $0.stat!.size }), \(now.map { $0.stat!.mtimeNanoseconds }), \(now.map { $0.fingerprint ?? 0 }),
                            \(now.map { $0.fingerprint != nil }))
                  AS m(path, device, inode, size, mtime, fingerprint, has_fingerprint)
                WHERE files.path = m.path
                """)
        }
        return refused.map { !$0 }
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
