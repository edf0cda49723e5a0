import CatalogModel
import Foundation
import GRDB

/// An import's rows cut into SQLite's chunks (ImportedOrder): the chunk writer, made without a
/// database, cuts them.
extension OrderData.ChunkWriter: OrderChunkCutter {
    mutating func append(id: Int64, width: UInt32, height: UInt32, date: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) {
        let order = order
        // Cutting without a database does not throw.
        try! append(id: id, width: Int64(width), height: Int64(height), date: date, itemKey: key) {
            OrderData.SortKey(order: order, date: Array(date), key: Array(key))
        }
    }

    mutating func finish() -> [OrderData.CutChunk] {
        try! flush()
        return cut
    }

    var bytes: Int { cutBytes }
}

extension OrderData {
    /// Starts cutting `imported`, the rows of an import into an empty catalog, into both orders'
    /// chunks (`ImportedOrder.cut(firstID:lastID:items:firstKey:lastKey:)`), once they are all written; `items` is
    /// how many items the catalog holds.
    static func startCutting(_ db: Database, _ imported: ImportedOrder<ChunkWriter>, items: Int) throws {
        imported.close()
        guard let ends = try Row.fetchOne(db, sql: """
            SELECT first.id, first.key, last.id, last.key
            FROM items AS first, items AS last
            WHERE first.id = (SELECT min(id) FROM items) AND last.id = (SELECT max(id) FROM items)
            """) else { return }
        let (firstKey, lastKey): (Data, Data) = (ends[1], ends[3])
        imported.cut(firstID: ends[0], lastID: ends[2], items: items, firstKey: [UInt8](firstKey), lastKey: [UInt8](lastKey))
    }

    /// Writes both orders again from the chunks cut from `imported`: what `refresh(_:force: true)`
    /// writes from the indexes, chunk for chunk. False, writing nothing, when none were cut (then
    /// the caller refreshes).
    static func rebuild(_ db: Database, from imported: ImportedOrder<ChunkWriter>) throws -> Bool {
        guard let cut = imported.chunks(),
              let generation = try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") else { return false }
        for order in ItemOrder.allCases {
            let chunks = order == .date ? cut.date : cut.path
            try db.execute(sql: "DELETE FROM order_chunks WHERE item_order = ?", arguments: [order.rawValue])
            let writer = try ChunkWriter(db, order: order)
            for chunk in chunks { try writer.write(chunk, db) }
        }
        try markCurrent(db, generation: generation)
        return true
    }
}
