package import CatalogModel
package import Foundation
import GRDB

extension SQLiteStore {
    /// The root's id, creating its row on first use.
    package func rootID(for path: Data) throws(StoreError) -> Int64 {
        try write { db in
            try db.execute(sql: "INSERT INTO roots (path) VALUES (?) ON CONFLICT(path) DO NOTHING", arguments: [path])
            return try Int64.fetchOne(db, sql: "SELECT id FROM roots WHERE path = ?", arguments: [path])!
        }
    }

    package func rootPaths() throws(StoreError) -> [Data] {
        try read { db in try Data.fetchAll(db, sql: "SELECT path FROM roots") }
    }

    /// Every file known under the folder `prefix` (which ends with "/").
    package func knownFiles(under prefix: Data) throws(StoreError) -> [KnownFile] {
        var upper = prefix
        upper[upper.count - 1] += 1 // "/" + 1: the first key past the folder
        return try read { db in
            var files: [KnownFile] = [] // not counted first: a count reads every row's page too
            let statement = try BulkStatement(db, sql: """
                SELECT path, device, inode, size, mtime_ns, fingerprint, status, item_id, CASE WHEN status = 2 THEN error END
                FROM files WHERE path >= ?1 AND path < ?2
                """)
            statement.bind(1, blob: prefix)
            statement.bind(2, blob: upper)
            try statement.forEachRow(db) { row in
                let path = row.blob(0)
                files.append(KnownFile(
                    path: path, stat: FileStat(device: row.int64(1), inode: row.int64(2), size: row.int64(3), mtimeNanoseconds: row.int64(4)),
                    fingerprint: row.optionalInt64(5), status: Int(row.int64(6)), itemID: row.optionalInt64(7), error: row.optionalText(8)))
            }
            return files
        }
    }

    /// Writes file changes in one transaction; returns how many items were added, updated, removed.
    /// The generation is incremented once if any item changed.
    ///
    /// Foreign keys are off: the files' references hold by construction (the root is the scan's,
    /// an item id is one just written or the file's own), and an item deleted here has its files'
    /// references cleared by hand, as `ON DELETE SET NULL` would. With them on, the checks were
    /// 6 % of a first scan's instructions (callgrind, 10,000 files: 1.352 G against 1.274 G).
    @discardableResult
    package func apply(_ changes: [FileChange], rootID: Int64) throws(StoreError) -> (added: Int, updated: Int, removed: Int, refused: Int) {
        guard !changes.isEmpty else { return (0, 0, 0, 0) }
        return try writeWithoutForeignKeys { db in
            // Bumped on the first change to an item: batches of unsupported or failed files
            // change only file records and leave the generation alone.
            var bumped: Int64? = nil
            func generation() throws -> Int64 {
                if let bumped { return bumped }
                let next = try Self.nextGeneration(db)
                bumped = next
                return next
            }
            var counts = (added: 0, updated: 0, removed: 0, refused: 0)
            // No RETURNING on the statements run once per file: SQLite collects RETURNING rows in
            // an ephemeral table, opened and closed per statement, which cost more than the
            // row's own B-tree inserts. The id comes from last_insert_rowid, or is already known.
            let insertItem = try BulkStatement(db, sql: """
                INSERT OR IGNORE INTO items (key, source, format, pixel_width, pixel_height, orientation, width, height, bytes,
                                             capture_date, modified_at, sort_date, changed_generation)
                VALUES (?1, 0, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                """)
            // When the insert was ignored: an item already has the path as its key (or a fact
            // breaks a CHECK, which this statement then reports). An imported item's is left
            // as it is: no row comes back.
            let upsertItem = try BulkStatement(db, sql: """
                INSERT INTO items (key, source, format, pixel_width, pixel_height, orientation, width, height, bytes,
                                   capture_date, modified_at, sort_date, changed_generation)
                VALUES (?1, 0, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                ON CONFLICT(key) DO UPDATE SET source = 0, format = excluded.format, pixel_width = excluded.pixel_width,
                    pixel_height = excluded.pixel_height, orientation = excluded.orientation, width = excluded.width,
                    height = excluded.height, bytes = excluded.bytes, capture_date = excluded.capture_date,
                    modified_at = excluded.modified_at, sort_date = excluded.sort_date,
                    changed_generation = excluded.changed_generation
                WHERE items.source = 0
                RETURNING id
                """)
            let updateItem = try BulkStatement(db, sql: """
                UPDATE items SET key = ?1, format = ?2, pixel_width = ?3, pixel_height = ?4, orientation = ?5, width = ?6,
                    height = ?7, bytes = ?8, capture_date = ?9, modified_at = ?10, sort_date = ?11, changed_generation = ?12
                WHERE id = ?13
                """)
            let deleteItem = try BulkStatement(db, sql: "DELETE FROM items WHERE id = ?1")
            let unlinkFiles = try BulkStatement(db, sql: "UPDATE files SET item_id = NULL WHERE item_id = ?1") // ON DELETE SET NULL
            let upsertFile = try BulkStatement(db, sql: """
                INSERT OR REPLACE INTO files (path, root_id, device, inode, size, mtime_ns, fingerprint, status, item_id, error)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                """)
            // A known image this scan could not read: failed, with its item, facts and stat kept.
            let keepFailed = try BulkStatement(db, sql: "UPDATE files SET status = 2, error = ?2 WHERE path = ?1")
            let importedKey = try BulkStatement(db, sql: "SELECT id FROM items WHERE key = ?1 AND source = 1")
            for change in changes {
                if change.keepsItem, case .failed(let reason) = change.outcome {
                    keepFailed.bind(1, blob: change.path)
                    keepFailed.bind(2, reason)
                    try keepFailed.run(db)
                    continue
                }
                var itemID: Int64? = nil
                switch change.outcome {
                case .image(let facts):
                    // Until the generation has moved: an imported item's key is refused before
                    // it moves, so a batch of nothing else leaves the generation where it was.
                    if bumped == nil, change.itemID == nil {
                        importedKey.bind(1, blob: change.path)
                        if try importedKey.run(db) != nil {
                            counts.refused += 1
                            break
                        }
                    }
                    func bindFacts(_ statement: BulkStatement) throws {
                        statement.bind(1, blob: change.path)
                        statement.bind(2, facts.format)
                        statement.bind(3, facts.pixelWidth)
                        statement.bind(4, facts.pixelHeight)
                        statement.bind(5, facts.orientation)
                        statement.bind(6, facts.width)
                        statement.bind(7, facts.height)
                        statement.bind(8, facts.bytes)
                        statement.bind(9, facts.captureDate)
                        statement.bind(10, facts.modifiedAt)
                        statement.bind(11, facts.captureDate ?? facts.modifiedAt)
                        statement.bind(12, try generation())
                    }
                    if let existing = change.itemID {
                        try bindFacts(updateItem)
                        updateItem.bind(13, existing)
                        try updateItem.run(db)
                        if db.changesCount > 0 { itemID = existing }
                    }
                    if itemID != nil {
                        counts.updated += 1
                    } else {
                        try bindFacts(insertItem)
                        try insertItem.run(db)
                        if db.changesCount > 0 {
                            itemID = db.lastInsertedRowID
                        } else {
                            try bindFacts(upsertItem)
                            itemID = try upsertItem.run(db)
                        }
                        if itemID == nil { counts.refused += 1 } else { counts.added += 1 }
                    }
                case .unsupported, .failed:
                    if let existing = change.itemID {
                        _ = try generation() // before the change: the change log records it at the new generation
                        deleteItem.bind(1, existing)
                        try deleteItem.run(db)
                        counts.removed += db.changesCount
                        unlinkFiles.bind(1, existing)
                        try unlinkFiles.run(db)
                    }
                }
                var error: String? = nil
                var status = change.outcome.status
                if case .failed(let reason) = change.outcome { error = reason }
                if case .image = change.outcome, itemID == nil { (status, error) = (2, FileOutcome.importedKeyReason) }
                upsertFile.bind(1, blob: change.path)
                upsertFile.bind(2, rootID)
                upsertFile.bind(3, change.stat.device)
                upsertFile.bind(4, change.stat.inode)
                upsertFile.bind(5, change.stat.size)
                upsertFile.bind(6, change.stat.mtimeNanoseconds)
                upsertFile.bind(7, change.fingerprint)
                upsertFile.bind(8, status)
                upsertFile.bind(9, itemID)
                upsertFile.bind(10, error)
                try upsertFile.run(db)
            }
            if bumped != nil { try OrderData.refresh(db, force: false) }
            return counts
        }
    }

    /// Removes files that are gone, and their items, in one transaction.
    @discardableResult
    package func remove(paths: [Data]) throws(StoreError) -> Int {
        guard !paths.isEmpty else { return 0 }
        return try write { db in
            var removedItems = 0
            var bumped = false
            let itemOf = try db.makeStatement(sql: "SELECT item_id FROM files WHERE path = ?")
            let deleteItem = try db.makeStatement(sql: "DELETE FROM items WHERE id = ?")
            let deleteFile = try db.makeStatement(sql: "DELETE FROM files WHERE path = ?")
            for path in paths {
                if let item = try Int64.fetchOne(itemOf, arguments: [path]) {
                    if !bumped { // before the first change: the change log records it at the new generation
                        _ = try Self.nextGeneration(db)
                        bumped = true
                    }
                    try deleteItem.execute(arguments: [item])
                    removedItems += db.changesCount
                }
                try deleteFile.execute(arguments: [path])
            }
            if bumped { try OrderData.refresh(db, force: false) }
            return removedItems
        }
    }

    /// Records that a scan of the root ended, completely or not.
    package func finishScan(rootID: Int64, complete: Bool) throws(StoreError) {
        try write { db in
            try db.execute(sql: """
                UPDATE roots SET last_scanned_at = \(Self.isoNowSQL), last_scan_complete = ? WHERE id = ?
                """, arguments: [complete, rootID])
        }
    }
}

extension SQLiteStore {
    /// Files found at other paths, in one transaction: the generation moves once (a folder of
    /// a thousand files renamed is one change, not a thousand), and the order data is brought
    /// up once.
    package func move(_ moves: [FileMove]) throws(StoreError) -> [Bool] {
        guard !moves.isEmpty else { return [] }
        return try write { db in
            var bumped = false
            // Before the first change to an item: the change log records it at the new generation.
            func bump() throws {
                if !bumped { _ = try Self.nextGeneration(db) }
                bumped = true
            }
            let importedKey = try db.makeStatement(sql: "SELECT id FROM items WHERE key = ? AND source = 1")
            let deleteFile = try db.makeStatement(sql: "DELETE FROM files WHERE path = ?")
            let refuseFile = try db.makeStatement(sql: """
                UPDATE files SET path = ?, root_id = coalesce(?, root_id), status = 2, item_id = NULL, error = ? WHERE path = ?
                """)
            let deleteItem = try db.makeStatement(sql: "DELETE FROM items WHERE id = ?")
            let moveFile = try db.makeStatement(sql: "UPDATE files SET path = ?, root_id = coalesce(?, root_id) WHERE path = ?")
            let moveItem = try db.makeStatement(sql: "UPDATE items SET key = ?, changed_generation = (SELECT generation FROM catalog) WHERE id = ?")
            let fileNow = try db.makeStatement(sql: "UPDATE files SET device = ?, inode = ?, size = ?, mtime_ns = ?, fingerprint = ? WHERE path = ?")
            // Read this time: an image kept through a failed read is no longer failing.
            let fileRead = try db.makeStatement(sql: "UPDATE files SET status = 0, error = NULL WHERE path = ? AND status = 2")
            // One statement an item: the change log records one change for it.
            let moveItemNow = try db.makeStatement(sql: """
                UPDATE items SET key = ?, format = ?, pixel_width = ?, pixel_height = ?, orientation = ?, width = ?, height = ?,
                    bytes = ?, capture_date = ?, modified_at = ?, sort_date = ?, changed_generation = (SELECT generation FROM catalog)
                WHERE id = ?
                """)
            var moved: [Bool] = []
            moved.reserveCapacity(moves.count)
            for move in moves {
                try deleteFile.execute(arguments: [move.to])
                if let itemID = move.itemID, try Int64.fetchOne(importedKey, arguments: [move.to]) != nil {
                    try bump()
                    try refuseFile.execute(arguments: [move.to, move.rootID, FileOutcome.importedKeyReason, move.from])
                    try deleteItem.execute(arguments: [itemID])
                    moved.append(false)
                } else {
                    try moveFile.execute(arguments: [move.to, move.rootID, move.from])
                    if let itemID = move.itemID {
                        try bump()
                        if let f = move.facts {
                            try moveItemNow.execute(arguments: [move.to, f.format, f.pixelWidth, f.pixelHeight, f.orientation, f.width, f.height,
                                                                f.bytes, f.captureDate, f.modifiedAt, f.captureDate ?? f.modifiedAt, itemID])
                            try fileRead.execute(arguments: [move.to])
                        } else {
                            try moveItem.execute(arguments: [move.to, itemID])
                        }
                    }
                    moved.append(true)
                }
                // The file as it is now: the next scan finds it unchanged.
                if let stat = move.stat {
                    try fileNow.execute(arguments: [stat.device, stat.inode, stat.size, stat.mtimeNanoseconds, move.fingerprint, move.to])
                }
            }
            if bumped { try OrderData.refresh(db, force: false) }
            return moved
        }
    }

    /// Brings the order data up to the items in one transaction, rebuilding it if the scan's
    /// batches left it behind; a no-op when it is current.
    package func refreshOrderData() throws(StoreError) {
        _ = try write { db in try Self.unmapped(db) { try OrderData.refresh(db, force: true) } }
    }

    /// Nothing to do: a page's items are read through the file's memory map, where a page of
    /// the table costs what it costs to touch memory.
    package func clusterItems(order: ItemOrder) throws(StoreError) -> Bool { false }
}
