/// The batch that turns one list of unique ids into another, in the semantics of
/// `UICollectionView.performBatchUpdates` and IGListKit's index set results: `deletes` are
/// indices in the old list, `inserts` indices in the new one, `moves` the items whose relative
/// position changed (old index → new index), `updates` the items kept in place whose content
/// changed, by both indices: `from` in the old list, which `reloadItems(at:)` inside a batch and
/// IGListKit's updates take (a reload names a cell as it was before the batch), and `index` in
/// the new list, where the cell is after it.
///
/// Removing the deleted and moved-from indices from the old list leaves exactly the sequence
/// that removing the inserted and moved-to indices leaves from the new one. An item that both
/// moved and changed is a delete and an insert (a collection view cannot reload a moved cell),
/// as IGListKit reports it.
///
/// Computed like Paul Heckel's algorithm (IGListKit's): one table from id to old index, one pass
/// over the new list; then the items to keep in place are a longest increasing run of old
/// indices in new order (patience sorting, O(m log m) for m common items, near O(m) when few
/// moved), so the moves are the fewest possible where Heckel's offsets may report many more
/// (one item moved across k others reports about k moves there).
///
/// Ids are meant to be unique in each list. Where one repeats, the batch is still one a
/// collection view accepts: the new list's occurrences of an id keep or move the old list's in
/// order (the first the first, and so on), and those left over are deleted from the old list or
/// inserted into the new one.
public struct BatchUpdates: Sendable, Hashable {
    public struct Index: Sendable, Hashable {
        public var index: Int
        public var id: Int64

        public init(index: Int, id: Int64) {
            self.index = index
            self.id = id
        }
    }

    public struct Move: Sendable, Hashable {
        public var from: Int
        public var to: Int
        public var id: Int64

        public init(from: Int, to: Int, id: Int64) {
            self.from = from
            self.to = to
            self.id = id
        }
    }

    /// An item kept in place whose content changed.
    public struct Update: Sendable, Hashable {
        /// Its index in the new list.
        public var index: Int
        /// Its index in the old list: what `reloadItems(at:)` inside `performBatchUpdates` takes.
        public var from: Int
        public var id: Int64

        public init(index: Int, from: Int, id: Int64) {
            self.index = index
            self.from = from
            self.id = id
        }
    }

    /// Old indices, ascending.
    public var deletes: [Index] = []
    /// New indices, ascending.
    public var inserts: [Index] = []
    /// By new index, ascending.
    public var moves: [Move] = []
    /// By new index, ascending (their old indices ascend too: they kept their order).
    public var updates: [Update] = []

    public var isEmpty: Bool { deletes.isEmpty && inserts.isEmpty && moves.isEmpty && updates.isEmpty }

    public init() {}

    /// The batch from `old` to `new` (each meant to be without repeated ids: see the type's
    /// notes for what a repeated one becomes); `changed` holds the ids whose content changed.
    public init(from old: [Int64], to new: [Int64], changed: Set<Int64> = []) {
        // The common prefix and suffix are neither moved nor inserted: only the middle is diffed.
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        let oldEnd = old.count - suffix
        let newEnd = new.count - suffix
        if !changed.isEmpty {
            for i in 0..<prefix where changed.contains(old[i]) { updates.append(Update(index: i, from: i, id: old[i])) }
        }

        // Heckel's table: where each id of the old middle was.
        var oldIndex = IndexTable(old[prefix..<oldEnd], from: prefix)
        var matchedOld = [Bool](repeating: false, count: oldEnd - prefix)
        // The common items in new order: their old and new indices.
        var commonOld: [Int] = []
        var commonNew: [Int] = []
        commonOld.reserveCapacity(min(oldEnd, newEnd) - prefix)
        commonNew.reserveCapacity(min(oldEnd, newEnd) - prefix)
        for j in prefix..<newEnd {
            if let i = oldIndex.take(new[j]) {
                matchedOld[i - prefix] = true
                commonOld.append(i)
                commonNew.append(j)
            } else {
                inserts.append(Index(index: j, id: new[j]))
            }
        }
        for i in prefix..<oldEnd where !matchedOld[i - prefix] { deletes.append(Index(index: i, id: old[i])) }

        // Kept in place: a longest increasing run of old indices.
        let kept = Self.longestIncreasing(commonOld)
        var movedDeletes: [Index] = []
        var movedInserts: [Index] = []
        for k in commonOld.indices {
            let i = commonOld[k], j = commonNew[k], id = new[j]
            if kept[k] {
                if changed.contains(id) { updates.append(Update(index: j, from: i, id: id)) }
            } else if changed.contains(id) {
                movedDeletes.append(Index(index: i, id: id))
                movedInserts.append(Index(index: j, id: id))
            } else {
                moves.append(Move(from: i, to: j, id: id))
            }
        }
        if !movedDeletes.isEmpty {
            deletes = (deletes + movedDeletes).sorted { $0.index < $1.index }
            inserts = (inserts + movedInserts).sorted { $0.index < $1.index }
        }
        if !changed.isEmpty {
            let shift = old.count - new.count // the suffix's old index less its new one
            for j in newEnd..<new.count where changed.contains(new[j]) { updates.append(Update(index: j, from: j + shift, id: new[j])) }
        }
    }

    /// Which elements of `values` a longest strictly increasing subsequence keeps: patience
    /// sorting with links to each element's predecessor, O(n log n).
    static func longestIncreasing(_ values: [Int]) -> [Bool] {
        var keep = [Bool](repeating: false, count: values.count)
        guard !values.isEmpty else { return keep }
        var tails: [Int] = [] // tails[l]: index in `values` of the smallest tail of a run of length l + 1
        tails.reserveCapacity(64)
        var previous = [Int](repeating: -1, count: values.count)
        for k in values.indices {
            let value = values[k]
            // Most values extend the longest run: test that before searching.
            if let last = tails.last, values[last] < value {
                previous[k] = last
                tails.append(k)
                continue
            }
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < value { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[k] = tails[lo - 1] }
            if lo == tails.count { tails.append(k) } else { tails[lo] = k }
        }
        var k = tails[tails.count - 1]
        while k >= 0 {
            keep[k] = true
            k = previous[k]
        }
        return keep
    }
}

/// Id to index: an array over the ids' range when they are dense (a catalog's ids mostly are:
/// one lookup, no hashing), else a dictionary. An id that repeats maps to its first unmatched
/// index: `take` hands out its occurrences in order.
private struct IndexTable {
    private var dense: [Int32] = []
    private var base: Int64 = 0
    private var sparse: [Int64: Int] = [:]
    /// For each index less `first`, the next index of the same id less `first`, or -1.
    private var next: [Int32] = []
    private let first: Int

    init(_ ids: ArraySlice<Int64>, from first: Int) {
        self.first = first
        guard let low = ids.min(), let high = ids.max() else { return }
        next = [Int32](repeating: -1, count: ids.count)
        let span = high.subtractingReportingOverflow(low)
        if !span.overflow, span.partialValue < Int64(max(1024, ids.count * 4)), first + ids.count < Int(Int32.max) {
            base = low
            dense = [Int32](repeating: -1, count: Int(span.partialValue) + 1)
            dense.withUnsafeMutableBufferPointer { table in
                next.withUnsafeMutableBufferPointer { next in
                    for (offset, id) in ids.enumerated().reversed() {
                        let later = table[Int(id - low)]
                        next[offset] = later < 0 ? -1 : later - Int32(first)
                        table[Int(id - low)] = Int32(first + offset)
                    }
                }
            }
        } else {
            sparse.reserveCapacity(ids.count)
            for (offset, id) in ids.enumerated().reversed() {
                if let later = sparse.updateValue(first + offset, forKey: id) { next[offset] = Int32(later - first) }
            }
        }
    }

    /// The id's first index not taken yet, which is then taken.
    mutating func take(_ id: Int64) -> Int? {
        if dense.isEmpty {
            guard let index = sparse[id] else { return nil }
            let following = next[index - first]
            sparse[id] = following < 0 ? nil : first + Int(following)
            return index
        }
        let (offset, overflow) = id.subtractingReportingOverflow(base)
        guard !overflow, offset >= 0, offset < Int64(dense.count) else { return nil }
        let index = dense[Int(offset)]
        guard index >= 0 else { return nil }
        let following = next[Int(index) - first]
        dense[Int(offset)] = following < 0 ? -1 : following + Int32(first)
        return Int(index)
    }
}
