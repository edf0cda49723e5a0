package import CatalogModel
import Foundation
import GRDB

extension SQLiteStore {
    static let itemColumns = """
        id, key, source, format, pixel_width, pixel_height, orientation, width, height, bytes, sort_date, url, title
        """

    static func itemRow(_ row: Row) -> ItemRow {
        ItemRow(id: row[0], key: row[1], isImported: (row[2] as Int) == 1, format: row[3], pixelWidth: row[4],
                pixelHeight: row[5], orientation: row[6], width: row[7], height: row[8], bytes: row[9],
                date: row[10], url: row[11], title: row[12])
    }

    /// Items in `order`, skipping `offset`, at most `limit` (nil: all).
    package func items(order: ItemOrder, limit: Int? = nil, offset: Int = 0) throws(StoreError) -> [ItemRow] {
        try read { db in try Self.items(db, order: order, limit: limit, offset: offset) }
    }

    static func items(_ db: Database, order: ItemOrder, limit: Int?, offset: Int) throws -> [ItemRow] {
        var items: [ItemRow] = []
        try forEachItem(db, order: order, limit: limit, offset: offset) { items.append($0) }
        return items
    }

    /// The same items handed to `body` one at a time, in one read transaction, as the cursor reads them.
    package func forEachItem(order: ItemOrder, limit: Int?, offset: Int, _ body: (ItemRow) -> Void) throws(StoreError) {
        try read { db in try Self.forEachItem(db, order: order, limit: limit, offset: offset, body) }
    }

    /// From this offset on, a list starts at the item the order data puts there (its chunk list
    /// and one chunk) instead of stepping over every item before it: the gallery asks for the
    /// item at a position it has not loaded (the End key, the viewer stepping past what is loaded).
    static let seekingFrom = OrderData.chunkSize

    static func forEachItem(_ db: Database, order: ItemOrder, limit: Int?, offset: Int, _ body: (ItemRow) -> Void) throws {
        var remaining = limit ?? Int.max
        guard remaining > 0 else { return }
        var queries: [(String, StatementArguments)] = [
            ("SELECT \(itemColumns) FROM items ORDER BY \(order.orderBy) LIMIT ? OFFSET ?", [limit ?? -1, offset]),
        ]
        if offset >= seekingFrom, let found = try OrderData.ids(db, at: [offset], order: order) {
            guard let id = found[offset] else { return } // past the end
            queries = order.seekQueries(columns: itemColumns).map { ($0, [id]) }
        }
        for (sql, arguments) in queries {
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while remaining > 0, let row = try rows.next() {
                body(itemRow(row))
                remaining -= 1
            }
        }
    }

    /// One item by id, or nil.
    package func item(id: Int64) throws(StoreError) -> ItemRow? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.itemColumns) FROM items WHERE id = ?", arguments: [id]).map(Self.itemRow)
        }
    }

    /// The database's and the WAL's size and modification time: every commit writes the WAL, every
    /// checkpoint the database, so an unchanged stamp means nothing was committed since.
    package func changeStamp() -> (stamp: [Int64], lastChange: Int64)? {
        var stamp: [Int64] = []
        var lastChange: Int64 = 0
        for suffix in ["", "-wal"] {
            var info = stat()
            guard stat(path + suffix, &info) == 0 else { return nil }
            let modified = WallClock.nanoseconds(info.st_mtim)
            stamp += [Int64(info.st_size), modified, Int64(info.st_ino)]
            lastChange = max(lastChange, modified)
        }
        return (stamp, lastChange)
    }

    /// How many items there are.
    package func itemCount() throws(StoreError) -> Int {
        try read { db in try OrderData.itemCount(db) }
    }

    package func webOrigins(limit: Int) throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT origin FROM web_origins ORDER BY origin LIMIT ?", arguments: [limit]) }
    }

    /// The file behind a scanned item as its last scan saw it.
    package func file(ofItem id: Int64) throws(StoreError) -> ItemFile? {
        try read { db in
            try Row.fetchOne(db, sql: "\(Self.itemFileColumns) WHERE i.id = ? AND i.source = 0", arguments: [id]).map(Self.itemFile)
        }
    }

    package func itemFiles(after id: Int64, limit: Int) throws(StoreError) -> [ItemFile] {
        try read { db in
            try Row.fetchAll(db, sql: "\(Self.itemFileColumns) WHERE i.id > ? AND i.source = 0 ORDER BY i.id LIMIT ?",
                             arguments: [id, limit]).map(Self.itemFile)
        }
    }

    private static let itemFileColumns = """
        SELECT i.id, f.path, f.device, f.inode, f.size, f.mtime_ns, i.format, i.orientation
        FROM items i JOIN files f ON f.item_id = i.id
        """

    private static func itemFile(_ row: Row) -> ItemFile {
        ItemFile(itemID: row[0], path: row[1], device: row[2], inode: row[3], size: row[4], mtimeNanoseconds: row[5], format: row[6],
                 orientation: row[7])
    }

    /// Files that failed, by path.
    package func fileErrors() throws(StoreError) -> [FileError] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT path, error FROM files WHERE status = 2 ORDER BY path").map {
                FileError(path: $0[0], reason: $0[1] ?? "unknown error")
            }
        }
    }

    package func failedFileCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM files WHERE status = 2") ?? 0 }
    }

    package func stats() throws(StoreError) -> CatalogStats {
        // The sizes of the files, not of a link to them (`--db` may name a link).
        let onDisk = ["", "-wal", "-shm", ".layouts"].map { filesPath + $0 }.reduce(Int64(0)) { total, file in
            var status = stat()
            return total + (stat(file, &status) == 0 ? Int64(status.st_size) : 0)
        }
        return try read { db in
            // One pass over the items, counted here: a GROUP BY sorted every row in a temporary
            // B-tree first (3.7 s at 10,000,000 items), and the imported ones took a second pass.
            var byFormat: [String: Int] = [:]
            var imported = 0
            var run: (format: [UInt8], count: Int) = ([], 0)
            func endRun() {
                if run.count > 0 { byFormat[String(decoding: run.format, as: UTF8.self), default: 0] += run.count }
            }
            let items = try BulkStatement(db, sql: "SELECT coalesce(format, 'imported'), source = 1 FROM items")
            try items.forEachRow(db) { row in
                imported += Int(row.int64(1))
                row.withBlob(0) { format in
                    if run.count > 0, run.format.elementsEqual(format) {
                        run.count += 1
                    } else {
                        endRun()
                        run = ([UInt8](format), 1)
                    }
                }
            }
            endRun()
            let files = try Row.fetchOne(db, sql: """
                SELECT count(*), sum(status = 1), sum(status = 2) FROM files
                """)!
            return CatalogStats(
                path: path, bytesOnDisk: onDisk,
                generation: try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0,
                items: byFormat.values.reduce(0, +), itemsByFormat: byFormat,
                importedItems: imported,
                files: files[0], unsupportedFiles: files[1] ?? 0, failedFiles: files[2] ?? 0)
        }
    }
}
