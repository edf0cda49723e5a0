/// The two orders a change set turns one into the other, read from one snapshot: the items'
/// ids in `order` at generation `from` and at `to`, and which items in both changed content.
public struct OrderChange: Sendable {
    public var from: Int64
    public var to: Int64
    /// Ids in the order at `from`.
    public var old: [Int64]
    /// Ids in the order at `to`.
    public var new: [Int64]
    /// Items in both whose key, date or display size differs between the two generations, or
    /// whose content changed (a title, an address, a file rewritten).
    public var changed: Set<Int64>

    package init(from: Int64, to: Int64, old: [Int64], new: [Int64], changed: Set<Int64>) {
        self.from = from
        self.to = to
        self.old = old
        self.new = new
        self.changed = changed
    }
}

/// Builds an `OrderChange` from the change log and one pass over the order now, the same way on
/// every store: the order now is the pass itself; the order then is the items unchanged since
/// (in the same relative order) merged with the updated and removed items at the places their
/// state at `since` puts them. O(n + c log c) for c logged changes.
package struct OrderChangeBuilder: Sendable {
    /// An item's key, sort date and display size.
    package struct State: Sendable {
        package var key: [UInt8]
        package var date: [UInt8]
        package var width: Int64
        package var height: Int64

        package init(key: [UInt8], date: [UInt8], width: Int64, height: Int64) {
            self.key = key
            self.date = date
            self.width = width
            self.height = height
        }
    }

    private let order: ItemOrder
    private let maxItemID: Int64
    /// Each logged item's state at `since`: its first change after it.
    private var before: [Int64: State] = [:]
    /// Logged items whose content changed (a title, an address, a file rewritten) while their
    /// place and size did not (the log's kind 3).
    private var contentChanged: Set<Int64> = []
    private var placed: [(id: Int64, key: OrderKey)] = []
    private var isPlaced = false
    private var next = 0
    private var old: [Int64] = []
    private var new: [Int64] = []

    /// For the order `order`, from a generation whose largest item id was `maxItemID`; `capacity`
    /// is a hint of the item count.
    package init(order: ItemOrder, maxItemID: Int64, capacity: Int) {
        self.order = order
        self.maxItemID = maxItemID
        old.reserveCapacity(capacity)
        new.reserveCapacity(capacity)
    }

    /// One row of the change log since the generation (of an item at or below `maxItemID`), in
    /// the order they were written: an item's first row is its state then.
    package mutating func logged(id: Int64, state: State, contentOnly: Bool = false) {
        if before[id] == nil { before[id] = state }
        if contentOnly { contentChanged.insert(id) }
    }

    /// The logged items, to read their state now for `finish`.
    package var loggedIDs: [Int64] { Array(before.keys) }

    /// The next item of the order now (call after the last `logged`), with its sort date and key
    /// as raw column bytes (the date is not looked at in path order).
    package mutating func item(id: Int64, date: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) {
        placeLogged()
        new.append(id)
        if id > maxItemID || before[id] != nil { return } // added since, or placed by its old state
        let byDate = order == .date
        while next < placed.count, placed[next].key.precedes(date: byDate ? date : UnsafeRawBufferPointer(start: nil, count: 0), key: key) {
            old.append(placed[next].id)
            next += 1
        }
        old.append(id)
    }

    /// The logged items' old places, in the order: sorted once, before the first item.
    private mutating func placeLogged() {
        guard !isPlaced else { return }
        isPlaced = true
        placed = before.map { ($0.key, OrderKey(order: order, date: $0.value.date, key: $0.value.key)) }.sorted { $0.key.precedes($1.key) }
    }

    /// The change from `from` to `to`, given the logged items still in the catalog and their state
    /// now (a change and its undoing cancel out).
    package mutating func finish(from: Int64, to: Int64, current: [Int64: State]) -> OrderChange {
        placeLogged()
        while next < placed.count {
            old.append(placed[next].id)
            next += 1
        }
        var changed: Set<Int64> = []
        for (id, then) in before {
            guard let now = current[id] else { continue } // removed
            if now.key != then.key || now.date != then.date || now.width != then.width || now.height != then.height
                || contentChanged.contains(id) { changed.insert(id) }
        }
        return OrderChange(from: from, to: to, old: old, new: new, changed: changed)
    }
}

/// How far back the change log reaches (Migrations/0007_change_log.sql): a change set since an
/// older generation is a "reload".
package enum ChangeLogBounds {
    /// The log keeps the changes of this many generations at least (unless `rows` is reached).
    package static let generations: Int64 = 1000
    /// And at most this many logged changes (updates and removals; additions cost no row).
    package static let rows = 1_000_000
    /// An import of more than this many rows, and of more than a tenth of the catalog, is not logged: a
    /// change set across it is a reload.
    package static let reloadRows = 100_000
    /// The bounds are enforced every this many generations.
    package static let pruneEvery: Int64 = 16
}
