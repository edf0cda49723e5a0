package import CatalogModel
import Foundation
import GRDB

extension SQLiteStore {
    /// The order at generation `since` and now, from the change log (Migrations/0007_change_log.sql),
    /// in one read: the log, then one pass over the order's index (`OrderChangeBuilder`).
    package func orderChange(since generation: Int64, order: ItemOrder) throws(StoreError) -> OrderChange? {
        try read { db in
            let now = try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0
            let keptFrom = try Int64.fetchOne(db, sql: "SELECT kept_from FROM change_log") ?? now
            guard generation <= now, generation >= keptFrom else { return nil }
            if generation == now { return OrderChange(from: now, to: now, old: [], new: [], changed: []) }
            guard let maxItemID = try Int64.fetchOne(db, sql: "SELECT max_item_id FROM generations WHERE generation = ?",
                                                     arguments: [generation]) else { return nil }
            // A capacity hint without counting the table: the largest id given out bounds the count.
            let count = try Int.fetchOne(db, sql: "SELECT max(seq) FROM sqlite_sequence WHERE name = 'items'") ?? 0
            var builder = OrderChangeBuilder(order: order, maxItemID: maxItemID, capacity: count)
            let log = try BulkStatement(db, sql: """
                SELECT item_id, old_sort_date, old_key, old_width, old_height, kind FROM item_changes
                WHERE generation > ?1 AND item_id <= ?2 ORDER BY generation, rowid
                """)
            log.bind(1, generation)
            log.bind(2, maxItemID)
            try log.forEachRow(db) { row in
                builder.logged(id: row.int64(0), state: .init(key: row.bytes(2), date: row.bytes(1), width: row.int64(3), height: row.int64(4)),
                               contentOnly: row.int64(5) == 3)
            }
            let items = try BulkStatement(db, sql: order == .date
                ? "SELECT id, sort_date, key FROM items ORDER BY \(order.orderBy)"
                : "SELECT id, x'', key FROM items ORDER BY \(order.orderBy)")
            try items.forEachRow(db) { row in
                row.withBlob(1) { date in row.withBlob(2) { key in builder.item(id: row.int64(0), date: date, key: key) } }
            }
            var current: [Int64: OrderChangeBuilder.State] = [:]
            let state = try db.makeStatement(sql: "SELECT key, sort_date, width, height FROM items WHERE id = ?")
            for id in builder.loggedIDs {
                guard let row = try Row.fetchOne(state, arguments: [id]) else { continue } // removed
                let key: Data = row[0]
                let date: String = row[1]
                current[id] = .init(key: [UInt8](key), date: Array(date.utf8), width: row[2], height: row[3])
            }
            return builder.finish(from: generation, to: now, current: current)
        }
    }
}
