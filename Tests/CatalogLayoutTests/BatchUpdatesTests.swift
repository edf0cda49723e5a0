import CatalogLayout
import PropertyBased
import Testing

/// Batch updates between random lists against what they promise: the old list without the
/// deletes and moved-from indices equals the new list without the inserts and moved-to
/// indices; applying the batch to the old list gives the new one; the moves are the fewest
/// possible (the common items off a longest increasing run, by an O(n^2) reference); changed
/// items are updates in place, or a delete and an insert when they moved.
@Suite struct BatchUpdatesTests {
    /// Old list: ids 0..<n shuffled by swaps; new list: some removed, some inserted, some moved.
    static let edits = zip(Gen.int(in: 0...60), Gen.int(in: 0...1000).array(of: 0...40), Gen.int(in: 0...1000).array(of: 0...40),
                           Gen.int(in: 0...1000).array(of: 0...40))

    @Test func batchesTurnTheOldListIntoTheNew() async {
        await propertyCheck(count: 400, input: Self.edits) { count, removals, moves, changes in
            let old = (0..<count).map { Int64($0 * 3 + 1) }
            var new = old
            for r in removals.prefix(count / 3) where !new.isEmpty { new.remove(at: r % new.count) }
            for m in moves where !new.isEmpty {
                let id = new.remove(at: m % new.count)
                new.insert(id, at: (m / 7) % (new.count + 1))
            }
            var nextID: Int64 = 10_000
            for c in removals.suffix(removals.count / 2) {
                new.insert(nextID, at: c % (new.count + 1))
                nextID += 1
            }
            let changed = Set(changes.compactMap { old.isEmpty ? nil : old[$0 % old.count] })
            Self.check(old: old, new: new, changed: changed)
        }
    }

    @Test func edgeCases() {
        Self.check(old: [], new: [], changed: [])
        Self.check(old: [1, 2, 3], new: [], changed: [2])
        Self.check(old: [], new: [4, 5], changed: [])
        Self.check(old: [1, 2, 3, 4], new: [4, 1, 2, 3], changed: [])
        Self.check(old: [1, 2, 3, 4], new: [4, 3, 2, 1], changed: [1, 3])
        // Ids far apart (the table is a dictionary then), and at the ends of Int64.
        Self.check(old: [7, 1_000_000_000, .min, .max, -3], new: [.max, -3, 8, 7, .min], changed: [-3])
        Self.check(old: [.max, .min], new: [.min, 0, .max], changed: [])
        let one = BatchUpdates(from: [1, 2, 3, 4, 5], to: [2, 3, 4, 5, 1])
        #expect(one.moves == [BatchUpdates.Move(from: 0, to: 4, id: 1)] && one.deletes.isEmpty && one.inserts.isEmpty)
        let movedAndChanged = BatchUpdates(from: [1, 2, 3], to: [2, 3, 1], changed: [1, 3])
        #expect(movedAndChanged.moves.isEmpty && movedAndChanged.updates == [BatchUpdates.Update(index: 1, from: 2, id: 3)])
        // The helper's case: D new and newest, C retitled: C is reloaded at its old index 2 (its
        // new index 3 does not exist before the batch, which UIKit refuses).
        let retitled = BatchUpdates(from: [3, 2, 1], to: [4, 3, 2, 1], changed: [1])
        #expect(retitled.updates == [BatchUpdates.Update(index: 3, from: 2, id: 1)])
        let afterDelete = BatchUpdates(from: [1, 2, 3], to: [1, 3], changed: [3])
        #expect(afterDelete.deletes == [BatchUpdates.Index(index: 1, id: 2)] && afterDelete.updates == [BatchUpdates.Update(index: 1, from: 2, id: 3)])
        #expect(movedAndChanged.deletes == [BatchUpdates.Index(index: 0, id: 1)] && movedAndChanged.inserts == [BatchUpdates.Index(index: 2, id: 1)])
    }

    /// Lists with repeated ids (which a caller should not pass) still give a batch a collection
    /// view accepts and that turns the old list into the new.
    @Test func repeatedIdsStillGiveAValidBatch() async {
        let list = Gen.int(in: 0...4).map { Int64($0) }.array(of: 0...12)
        await propertyCheck(count: 400, input: zip(list, list, Gen.int(in: 0...4).array(of: 0...3))) { old, new, changes in
            Self.checkValid(old: old, new: new, changed: Set(changes.map { Int64($0) }))
            // Each id keeps or moves as many occurrences as both lists have (a changed item that
            // moved is deleted and inserted: none changed here).
            let batch = Self.checkValid(old: old, new: new, changed: [])
            for id in Set(old) {
                let kept = old.count { $0 == id } - batch.deletes.count { $0.id == id }
                #expect(kept == min(old.count { $0 == id }, new.count { $0 == id }))
            }
        }
        let repeated = BatchUpdates(from: [1, 2, 1], to: [2, 1, 1, 3])
        // The 1s kept in order (the first the first), the 2 moved past one of them, the 3 new.
        #expect(repeated.deletes.isEmpty && repeated.inserts == [BatchUpdates.Index(index: 3, id: 3)])
        #expect(repeated.moves.count == 1)
        let fewer = BatchUpdates(from: [7, 7, 7], to: [7, 8])
        #expect(fewer.deletes == [BatchUpdates.Index(index: 1, id: 7), BatchUpdates.Index(index: 2, id: 7)] && fewer.moves.isEmpty)
        Self.checkValid(old: [5, 5, 5], new: [5], changed: [5])
        Self.checkValid(old: [1], new: [1, 1, 1], changed: [])
    }

    static func check(old: [Int64], new: [Int64], changed: Set<Int64>, sourceLocation: SourceLocation = #_sourceLocation) {
        let batch = checkValid(old: old, new: new, changed: changed, sourceLocation: sourceLocation)
        // Fewest moves: common items minus a longest common subsequence (the O(n^2) reference).
        let common = new.filter { Set(old).contains($0) }
        let position = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($0.element, $0.offset) })
        let indices = common.map { position[$0]! }
        var longest = [Int](repeating: 1, count: indices.count)
        for i in indices.indices { for j in 0..<i where indices[j] < indices[i] { longest[i] = max(longest[i], longest[j] + 1) } }
        let movedOrReplaced = batch.moves.count + batch.deletes.filter { Set(new).contains($0.id) }.count
        #expect(movedOrReplaced == common.count - (longest.max() ?? 0), sourceLocation: sourceLocation)
        // Changed items: an update in place, or both deleted and inserted.
        let replaced = Set(batch.deletes.map(\.id)).intersection(batch.inserts.map(\.id))
        #expect(Set(batch.updates.map(\.id)).union(replaced) == changed.intersection(new), sourceLocation: sourceLocation)
        #expect(replaced.isSubset(of: changed), sourceLocation: sourceLocation)
    }

    /// What any batch must be, repeated ids or not: indices in range and where the batch says,
    /// each old index deleted, moved or reloaded at most once, each new index inserted or moved
    /// to at most once, and the batch applied as a collection view applies it gives the new list.
    @discardableResult
    static func checkValid(old: [Int64], new: [Int64], changed: Set<Int64>, sourceLocation: SourceLocation = #_sourceLocation) -> BatchUpdates {
        let batch = BatchUpdates(from: old, to: new, changed: changed)
        // Indices in range, ascending, each id where the batch says.
        for delete in batch.deletes { #expect(old[delete.index] == delete.id, sourceLocation: sourceLocation) }
        for insert in batch.inserts { #expect(new[insert.index] == insert.id, sourceLocation: sourceLocation) }
        for move in batch.moves { #expect(old[move.from] == move.id && new[move.to] == move.id, sourceLocation: sourceLocation) }
        for update in batch.updates { #expect(new[update.index] == update.id && old[update.from] == update.id, sourceLocation: sourceLocation) }
        // performBatchUpdates' rules: an old index is deleted, moved or reloaded, at most one of them.
        let reloaded = batch.updates.map(\.from)
        #expect(Set(reloaded).isDisjoint(with: batch.deletes.map(\.index) + batch.moves.map(\.from)) && Set(reloaded).count == reloaded.count,
                sourceLocation: sourceLocation)
        #expect(batch.deletes.map(\.index) == batch.deletes.map(\.index).sorted(), sourceLocation: sourceLocation)
        #expect(batch.inserts.map(\.index) == batch.inserts.map(\.index).sorted(), sourceLocation: sourceLocation)
        // The kept sequences are equal.
        let gone = Set(batch.deletes.map(\.index) + batch.moves.map(\.from))
        let came = Set(batch.inserts.map(\.index) + batch.moves.map(\.to))
        let keptOld = old.indices.filter { !gone.contains($0) }.map { old[$0] }
        let keptNew = new.indices.filter { !came.contains($0) }.map { new[$0] }
        #expect(keptOld == keptNew, sourceLocation: sourceLocation)
        // Applied as a collection view does: deletes and moved-from out, inserts and moved-to in.
        var applied: [Int64?] = Array(repeating: nil, count: new.count)
        for insert in batch.inserts { applied[insert.index] = insert.id }
        for move in batch.moves { applied[move.to] = move.id }
        var rest = keptOld.makeIterator()
        for index in applied.indices where applied[index] == nil { applied[index] = rest.next() }
        #expect(applied.map { $0 ?? -1 } == new, sourceLocation: sourceLocation)
        // No index named twice (a collection view throws on that).
        let left = batch.deletes.map(\.index) + batch.moves.map(\.from) + batch.updates.map(\.from)
        let entered = batch.inserts.map(\.index) + batch.moves.map(\.to)
        #expect(Set(left).count == left.count && Set(entered).count == entered.count, sourceLocation: sourceLocation)
        return batch
    }
}
