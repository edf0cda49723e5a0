public import Foundation
import GRDB

extension CatalogStore {
    /// The root's id, creating its row on first use.
    public func rootID(for path: Data) throws(StoreError) -> Int64 {
        try write { db in
            try db.execute(sql: "INSERT INTO roots (path) VALUES (?) ON CONFLICT(path) DO NOTHING", arguments: [path])
            return try Int64.fetchOne(db, sql: "SELECT id FROM roots WHERE path = ?", arguments: [path])!
        }
    }

    /// Every file known under the folder `prefix` (which ends with "/"), by path.
    public func knownFiles(under prefix: Data) throws(StoreError) -> [Data: KnownFile] {
        var upper = prefix
        upper[upper.count - 1] += 1 // "/" + 1: the first key past the folder
        return try read { db in
            var files: [Data: KnownFile] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT path, device, inode, size, mtime_ns, fingerprint, status, item_id
                FROM files WHERE path >= ? AND path < ?
                """, arguments: [prefix, upper])
            while let row = try rows.next() {
                let path: Data = row[0]
                files[path] = KnownFile(
                    path: path, stat: FileStat(device: row[1], inode: row[2], size: row[3], mtimeNanoseconds: row[4]),
                    fingerprint: row[5], status: row[6], itemID: row[7])
            }
            return files
        }
    }

    /// Writes file changes in one transaction; returns how many items were added, updated, removed.
    /// The generation is incremented once if any item changed.
    @discardableResult
    public func apply(_ changes: [FileChange], rootID: Int64) throws(StoreError) -> (added: Int, updated: Int, removed: Int) {
        guard !changes.isEmpty else { return (0, 0, 0) }
        return try write { db in
            let generation = try Int64.fetchOne(db, sql: "UPDATE catalog SET generation = generation + 1 RETURNING generation")!
            var counts = (added: 0, updated: 0, removed: 0)
            let upsertItem = try db.makeStatement(sql: """
                INSERT INTO items (key, source, format, pixel_width, pixel_height, orientation, width, height, bytes,
                                   capture_date, modified_at, sort_date, changed_generation)
                VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET source = 0, format = excluded.format, pixel_width = excluded.pixel_width,
                    pixel_height = excluded.pixel_height, orientation = excluded.orientation, width = excluded.width,
                    height = excluded.height, bytes = excluded.bytes, capture_date = excluded.capture_date,
                    modified_at = excluded.modified_at, sort_date = excluded.sort_date,
                    changed_generation = excluded.changed_generation
                RETURNING id
                """)
            let updateItem = try db.makeStatement(sql: """
                UPDATE items SET key = ?, format = ?, pixel_width = ?, pixel_height = ?, orientation = ?, width = ?,
                    height = ?, bytes = ?, capture_date = ?, modified_at = ?, sort_date = ?, changed_generation = ?
                WHERE id = ?
                """)
            let deleteItem = try db.makeStatement(sql: "DELETE FROM items WHERE id = ?")
            let upsertFile = try db.makeStatement(sql: """
                INSERT OR REPLACE INTO files (path, root_id, device, inode, size, mtime_ns, fingerprint, status, item_id, error)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for change in changes {
                var itemID: Int64? = nil
                switch change.outcome {
                case .image(let facts):
                    let sortDate = facts.captureDate ?? facts.modifiedAt
                    let values: [(any DatabaseValueConvertible)?] = [
                        change.path, facts.format, facts.pixelWidth, facts.pixelHeight, facts.orientation, facts.width,
                        facts.height, facts.bytes, facts.captureDate, facts.modifiedAt, sortDate, generation,
                    ]
                    if let existing = change.itemID,
                       try Int64.fetchOne(db, sql: "SELECT id FROM items WHERE id = ?", arguments: [existing]) != nil {
                        updateItem.setUncheckedArguments(StatementArguments(values + [existing]))
                        try updateItem.execute()
                        itemID = existing
                        counts.updated += 1
                    } else {
                        upsertItem.setUncheckedArguments(StatementArguments(values))
                        itemID = try Int64.fetchOne(upsertItem)
                        counts.added += 1
                    }
                case .unsupported, .failed:
                    if let existing = change.itemID {
                        try deleteItem.execute(arguments: [existing])
                        counts.removed += db.changesCount
                    }
                }
                var error: String? = nil
                if case .failed(let reason) = change.outcome { error = reason }
                try upsertFile.execute(arguments: [
                    change.path, rootID, change.stat.device, change.stat.inode, change.stat.size,
                    change.stat.mtimeNanoseconds, change.fingerprint, change.outcome.status, itemID, error,
                ])
            }
            if counts == (0, 0, 0) {
                try db.execute(sql: "UPDATE catalog SET generation = generation - 1") // only file records changed
            }
            return counts
        }
    }

    /// Removes files that are gone, and their items, in one transaction.
    @discardableResult
    public func remove(paths: [Data]) throws(StoreError) -> Int {
        guard !paths.isEmpty else { return 0 }
        return try write { db in
            var removedItems = 0
            let itemOf = try db.makeStatement(sql: "SELECT item_id FROM files WHERE path = ?")
            let deleteItem = try db.makeStatement(sql: "DELETE FROM items WHERE id = ?")
            let deleteFile = try db.makeStatement(sql: "DELETE FROM files WHERE path = ?")
            for path in paths {
                if let item = try Int64.fetchOne(itemOf, arguments: [path]) {
                    try deleteItem.execute(arguments: [item])
                    removedItems += db.changesCount
                }
                try deleteFile.execute(arguments: [path])
            }
            if removedItems > 0 { try db.execute(sql: "UPDATE catalog SET generation = generation + 1") }
            return removedItems
        }
    }

    /// Records that a scan of the root ended, completely or not.
    public func finishScan(rootID: Int64, complete: Bool) throws(StoreError) {
        try write { db in
            try db.execute(sql: """
                UPDATE roots SET last_scanned_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), last_scan_complete = ? WHERE id = ?
                """, arguments: [complete, rootID])
        }
    }
}

extension CatalogStore {
    /// A file renamed within the roots: its item keeps its id and takes the new path.
    public func move(from oldPath: Data, to newPath: Data, itemID: Int64?) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM files WHERE path = ?", arguments: [newPath])
            try db.execute(sql: "UPDATE files SET path = ? WHERE path = ?", arguments: [newPath, oldPath])
            if let itemID {
                let generation = try Int64.fetchOne(db, sql: "UPDATE catalog SET generation = generation + 1 RETURNING generation")!
                try db.execute(sql: "UPDATE items SET key = ?, changed_generation = ? WHERE id = ?", arguments: [newPath, generation, itemID])
            }
        }
    }

    /// A vanished file whose content reappeared at `newPath` (already scanned as a new item):
    /// the old item keeps its id and takes the new file's path and facts; the new item goes.
    public func adopt(newPath: Data, oldPath: Data) throws(StoreError) {
        try write { db in
            guard let oldItem = try Int64.fetchOne(db, sql: "SELECT item_id FROM files WHERE path = ?", arguments: [oldPath]),
                  let newItem = try Int64.fetchOne(db, sql: "SELECT item_id FROM files WHERE path = ?", arguments: [newPath])
            else { return }
            let generation = try Int64.fetchOne(db, sql: "UPDATE catalog SET generation = generation + 1 RETURNING generation")!
            let columns = "format, pixel_width, pixel_height, orientation, width, height, bytes, capture_date, modified_at, sort_date"
            let facts = try Row.fetchOne(db, sql: "SELECT \(columns) FROM items WHERE id = ?", arguments: [newItem])!
            try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [newItem])
            try db.execute(sql: """
                UPDATE items SET key = ?, format = ?, pixel_width = ?, pixel_height = ?, orientation = ?, width = ?, height = ?,
                    bytes = ?, capture_date = ?, modified_at = ?, sort_date = ?, changed_generation = ? WHERE id = ?
                """, arguments: StatementArguments([newPath.databaseValue] + facts.databaseValues + [generation.databaseValue, oldItem.databaseValue]))
            try db.execute(sql: "UPDATE files SET item_id = ? WHERE path = ?", arguments: [oldItem, newPath])
            try db.execute(sql: "DELETE FROM files WHERE path = ?", arguments: [oldPath])
        }
    }
}
