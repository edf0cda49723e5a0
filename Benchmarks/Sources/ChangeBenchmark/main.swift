// Issue #14's in-process benchmark: the batch between two orders of a million items with
// 0.1 %, 1 % and 10 % of them changed (a quarter each removed, added, moved elsewhere and
// updated in place), by BatchUpdates (Heckel's table + a longest increasing run) against
// Swift's CollectionDifference (Myers, then inferringMoves) on the same arrays, in the same run.
//   ChangeBenchmark [ITEMS] [BUDGET_SECONDS]   (default 1000000, 120)
import BenchmarkSupport
import CatalogLayout
import Dispatch
import Foundation
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.first ?? 1_000_000
let budget = Double(arguments.dropFirst().first ?? 120)

/// Old order 0..<count; the new one with `fraction` of the items changed.
func orders(_ fraction: Double, seed: UInt64) -> (old: [Int64], new: [Int64], changed: Set<Int64>) {
    var random = Random(state: seed)
    func index(_ n: Int) -> Int { min(n - 1, Int(random.next() * Double(n))) }
    let old = (0..<Int64(count)).map { $0 }
    var new = old
    let changes = Int(Double(count) * fraction)
    var changed = Set<Int64>()
    for _ in 0..<(changes / 4) { new.remove(at: index(new.count)) }
    var nextID = Int64(count)
    for _ in 0..<(changes / 4) { new.insert(nextID, at: index(new.count + 1)); nextID += 1 }
    for _ in 0..<(changes / 4) { let id = new.remove(at: index(new.count)); new.insert(id, at: index(new.count + 1)) }
    for _ in 0..<(changes / 4) { changed.insert(new[index(new.count)]) }
    return (old, new, changed)
}

print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; \(count) items; CollectionDifference budget \(Int(budget)) s")
print("| changed | BatchUpdates (median of 5) | deletes / inserts / moves / updates | CollectionDifference + inferringMoves | ratio |")
print("| ---: | ---: | --- | ---: | ---: |")
var overBudget = false
for fraction in [0.001, 0.01, 0.1] {
    let (old, new, changed) = orders(fraction, seed: 42)
    var runs: [Double] = []
    var batch = BatchUpdates()
    for _ in 0..<5 {
        let (value, seconds) = time { BatchUpdates(from: old, to: new, changed: changed) }
        batch = value
        runs.append(seconds)
    }
    let ours = percentile(runs, 0.5)
    var theirs = "not run (a smaller change already passed the budget)"
    var ratio = "—"
    if !overBudget {
        // On a thread of its own, so a run past the budget can be left behind (the process ends after).
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<(Double, Int)?>(nil)
        Thread {
            let (difference, seconds) = time { new.difference(from: old).inferringMoves() }
            result.withLock { $0 = (seconds, difference.count) }
            done.signal()
        }.start()
        if done.wait(timeout: .now() + budget) == .success, let (seconds, _) = result.withLock({ $0 }) {
            theirs = format(seconds)
            ratio = String(format: "%.0fx", seconds / ours)
        } else {
            theirs = "> \(Int(budget)) s (stopped)"
            ratio = String(format: "> %.0fx", budget / ours)
            overBudget = true
        }
    }
    print("| \(fraction * 100) % | \(format(ours)) | \(batch.deletes.count) / \(batch.inserts.count) / \(batch.moves.count) / \(batch.updates.count) | \(theirs) | \(ratio) |")
}
exit(0) // a CollectionDifference past its budget may still be running
