/// An item's place in an order: date order sorts by date, newest first, then key; path order
/// by key alone (its `date` is empty). Bytes compare as SQLite's BINARY collation and
/// PostgreSQL's bytea and "C"-collated text do, so both stores agree on every order.
package struct OrderKey: Sendable, Equatable {
    package var date: [UInt8]
    package var key: [UInt8]

    package init(date: [UInt8], key: [UInt8]) {
        self.date = date
        self.key = key
    }

    /// The key of an item with this sort date and key in `order`.
    package init(order: ItemOrder, date: [UInt8], key: [UInt8]) {
        self.init(date: order == .date ? date : [], key: key)
    }

    /// Whether `self` comes before `other` in the order.
    package func precedes(_ other: OrderKey) -> Bool {
        if date != other.date { return other.date.lexicographicallyPrecedes(date) }
        return key.lexicographicallyPrecedes(other.key)
    }

    /// Whether `self` comes before the entry with this date and key (raw column bytes; the
    /// date is ignored in path order, where `self.date` is empty and `date` must be too).
    package func precedes(date other: UnsafeRawBufferPointer, key otherKey: UnsafeRawBufferPointer) -> Bool {
        if !date.elementsEqual(other) { return other.lexicographicallyPrecedes(date) }
        return key.lexicographicallyPrecedes(otherKey)
    }
}

/// How both stores keep their order data (each order's ids and display sizes in chunks of about
/// `chunkSize` entries, keyed by their first entry's `OrderKey`) up to date as items change:
/// which chunks a change lands in, and whether merging those costs less than a rebuild.
package enum OrderChunking {
    /// Entries a chunk is cut to; a chunk holds between one and twice as many before a refresh
    /// cuts it again.
    package static let chunkSize = 4096
    /// Entries a refresh inside a scan batch may rewrite; more waits for the end of the scan.
    package static let batchBudget = 8 * chunkSize

    /// The most memory an import into an empty catalog takes to cut its order data from its rows
    /// (ImportedOrder): 1,000,000 rows of 12-byte keys and 20-byte dates take 96 MB.
    package static let importBudget = 112 << 20

    /// A display size as order data keeps it: a side past 2³²−1 is halved with the other until
    /// both fit (the aspect ratio, all a layout uses, stays within a part in 2³²).
    package static func fitted(_ width: Int64, _ height: Int64) -> (UInt32, UInt32) {
        var (width, height) = (max(1, width), max(1, height))
        while width > Int64(UInt32.max) || height > Int64(UInt32.max) { (width, height) = (max(1, width / 2), max(1, height / 2)) }
        return (UInt32(width), UInt32(height))
    }

    /// What one batch's refresh may rewrite: one chunk, or four entries per changed one, up to
    /// `batchBudget`. A first scan's batches land all over the order, so each would rewrite it
    /// whole: past that, the order data waits for the forced refresh at the scan's end instead
    /// of costing a quarter of the writer's time (issue #16).
    package static func budget(changed: Int) -> Int { min(batchBudget, max(chunkSize, 4 * changed)) }

    /// What a refresh does, given the generation the order data reflects (`built`, -1 for never),
    /// the catalog's, the changed and added items since (`pending`) and the entries now (`total`).
    package enum Approach: Equatable {
        /// The order data is current.
        case current
        /// Left stale for a forced refresh (the end of a scan, an import); readers lay out from the rows.
        case leave
        /// Every order written again in one pass.
        case rebuild
        /// The chunks the changes land in merged again (`plan`), if that fits the budget.
        case merge
        /// No item changed since: the order data is marked current as it is.
        case stamp
    }

    /// Without `force`, only order data that was current before this transaction is kept, and a
    /// rebuild only as small as one chunk: a first scan's early batches would otherwise rebuild
    /// again and again what the end of the scan rebuilds anyway.
    package static func approach(built: Int64, generation: Int64, force: Bool, pending: Int, total: Int) -> Approach {
        if built == generation { return .current }
        if !force && (built < 0 || built != generation - 1) { return .leave }
        if built < 0 || pending > max(batchBudget, total / 4) {
            return force || (built >= 0 && total + pending <= chunkSize) ? .rebuild : .leave
        }
        return pending > 0 ? .merge : .stamp
    }

    /// The chunk whose key range holds `key`: the last one starting at or before it (the first
    /// chunk for a key before every chunk). `starts` are the chunks' first keys, in order.
    package static func chunkIndex(of key: OrderKey, in starts: [OrderKey]) -> Int {
        var low = 0
        var high = starts.count // first chunk whose start comes after key
        while low < high {
            let middle = (low + high) / 2
            if key.precedes(starts[middle]) { high = middle } else { low = middle + 1 }
        }
        return max(0, low - 1)
    }

    /// The runs of consecutive chunks that hold a changed key (nil: rebuild the order, which
    /// past a quarter of the entries costs less than merging), and how many entries either
    /// rewrites. `changed` keys carry dates; path order ignores them.
    package static func plan(order: ItemOrder, starts: [OrderKey], counts: [Int], changed: [OrderKey], total: Int)
        -> (runs: [ClosedRange<Int>]?, rewritten: Int) {
        guard !starts.isEmpty else { return (nil, changed.count) }
        var dirty = Set<Int>()
        for change in changed { dirty.insert(chunkIndex(of: OrderKey(order: order, date: change.date, key: change.key), in: starts)) }
        let rewritten = dirty.reduce(changed.count) { $0 + counts[$1] }
        if rewritten > max(batchBudget, total / 4) { return (nil, total + changed.count) }
        var runs: [ClosedRange<Int>] = []
        for index in dirty.sorted() {
            if let last = runs.last, last.upperBound + 1 == index { runs[runs.count - 1] = last.lowerBound...index } else { runs.append(index...index) }
        }
        return (runs, rewritten)
    }
}
