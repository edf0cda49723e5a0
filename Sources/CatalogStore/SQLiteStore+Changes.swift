package import CatalogModel
import Foundation
import GRDB

extension SQLiteStore {
    /// The order at generation `since` and now, from the change log (Migrations/0007_change_log.sql),
    /// in one read: one pass over the order's index, which gives the order now, while the order
    /// then is the items unchanged since (in the same relative order) merged with the updated
    /// and removed items at the places their state at `since` puts them. O(n + c log c) for c
    /// logged changes.
    package func orderChange(since generation: Int64, order: ItemOrder) throws(StoreError) -> OrderChange? {
        try read { db in
            let now = try Int64.fetchOne(db, sql: "SELECT generation FROM catalog") ?? 0
            let keptFrom = try Int64.fetchOne(db, sql: "SELECT kept_from FROM change_log") ?? now
            guard generation <= now, generation >= keptFrom else { return nil }
            if generation == now { return OrderChange(from: now, to: now, old: [], new: [], changed: []) }
            guard let maxItemID = try Int64.fetchOne(db, sql: "SELECT max_item_id FROM generations WHERE generation = ?",
                                                     arguments: [generation]) else { return nil }
            // Each logged item's state at `since`: its first change after it.
            var before: [Int64: LoggedState] = [:]
            let log = try BulkStatement(db, sql: """
                SELECT item_id, old_sort_date, old_key, old_width, old_height FROM item_changes
                WHERE generation > ?1 AND item_id <= ?2 ORDER BY generation, rowid
                """)
            log.bind(1, generation)
            log.bind(2, maxItemID)
            try log.forEachRow(db) { row in
                let id = row.int64(0)
                if before[id] == nil {
                    let date = row.bytes(1)
                    before[id] = LoggedState(id: id, key: OrderData.SortKey(date: order == .date ? date : [], key: row.bytes(2)),
                                             date: date, width: row.int64(3), height: row.int64(4))
                }
            }
            // The old places, in the order.
            let placed = before.values.sorted { $0.key.precedes($1.key) }
            var next = 0
            var old: [Int64] = []
            var new: [Int64] = []
            // A capacity hint without counting the table: the largest id given out bounds the count.
            let count = try Int.fetchOne(db, sql: "SELECT max(seq) FROM sqlite_sequence WHERE name = 'items'") ?? 0
            old.reserveCapacity(count + placed.count)
            new.reserveCapacity(count)
            let items = try BulkStatement(db, sql: order == .date
                ? "SELECT id, sort_date, key FROM items ORDER BY \(order.orderBy)"
                : "SELECT id, x'', key FROM items ORDER BY \(order.orderBy)")
            try items.forEachRow(db) { row in
                let id = row.int64(0)
                new.append(id)
                if id > maxItemID || before[id] != nil { return } // added since, or placed by its old state
                while next < placed.count, row.withBlob(1, { date in row.withBlob(2) { key in placed[next].key.precedes(date: date, key: key) } }) {
                    old.append(placed[next].id)
                    next += 1
                }
                old.append(id)
            }
            while next < placed.count {
                old.append(placed[next].id)
                next += 1
            }
            // Which of the logged items that are still here differ from their state at `since`
            // (a change and its undoing cancel out).
            var changed: Set<Int64> = []
            let current = try db.makeStatement(sql: "SELECT key, sort_date, width, height FROM items WHERE id = ?")
            for state in before.values {
                guard let row = try Row.fetchOne(current, arguments: [state.id]) else { continue } // removed
                let key: Data = row[0]
                let date: String = row[1]
                let width: Int64 = row[2]
                let height: Int64 = row[3]
                if [UInt8](key) != state.key.key || Array(date.utf8) != state.date || width != state.width || height != state.height {
                    changed.insert(state.id)
                }
            }
            return OrderChange(from: generation, to: now, old: old, new: new, changed: changed)
        }
    }
}

/// A logged item's place and display size at the generation a change set starts from.
private struct LoggedState {
    var id: Int64
    var key: OrderData.SortKey
    var date: [UInt8]
    var width: Int64
    var height: Int64
}

extension OrderData.SortKey {
    /// Whether `self` comes before the entry with this date and key (raw column bytes).
    func precedes(date other: UnsafeRawBufferPointer, key otherKey: UnsafeRawBufferPointer) -> Bool {
        if !date.elementsEqual(other) { return other.lexicographicallyPrecedes(date) }
        return key.lexicographicallyPrecedes(otherKey)
    }
}
