// Sections at 1M and 10M items (issue #12): compute and query of a waterfall with month
// sections (about 200) and with folder sections (100,000), headers 32 points, pinned, against
// the plain waterfall in the same run. See BENCHMARKS.md.
//   SectionBenchmark [SIZES...]   (default: 1000000 10000000)
import BenchmarkSupport
import CatalogLayout
import Foundation


let sizes = CommandLine.arguments.dropFirst().compactMap(Int.init)
let style = WaterfallLayout(width: 375, columns: 2)
print("style: waterfall, width 375, 2 columns, spacing 8, insets 8, shortest-first; sections: headers 32, spacing 16, pinned in queries")
for n in sizes.isEmpty ? [1_000_000, 10_000_000] : sizes {
    var random = Random(state: UInt64(n))
    let items = (0..<n).map { LayoutItem(id: Int64($0) * 3 + 1, width: 200 + random.next() * 3800, height: 200 + random.next() * 3800) }
    print("\n## \(n) items")
    var plainCompute: Double = 0
    var plainQuery: Double = 0
    let only = ProcessInfo.processInfo.environment["SECTIONS"] // "folder": that case alone (for profiling)
    for (name, sectionCount) in [("plain waterfall", 0), ("month sections", 200), ("folder sections", 100_000)]
        where only == nil || name.hasPrefix(only!) {
        // Section s holds the items from s × n / S on: equal runs, as months of a steady catalog.
        let starts = sectionCount == 0 ? nil : (0..<sectionCount).map { SectionStart(offset: $0 * n / sectionCount, key: UInt64(202_400 + $0)) }
        var times: [Double] = []
        var table: PlacementTable?
        for _ in 0..<5 {
            table = nil
            let (computed, t) = try time { () throws -> PlacementTable in
                if let starts {
                    return try Layout(items: items, sections: starts, sectioning: Sectioning(headerHeight: 32), style: style).table
                }
                return try Layout(items: items, style: style).table
            }
            times.append(t)
            table = computed
        }
        let computed = table!
        let offsets = (0..<20_000).map { _ in random.next() * (computed.contentHeight - 812) }
        var queryTimes: [Double] = []
        var found = 0
        for y in offsets {
            let (result, t) = time { computed.items(in: y..<(y + 812), pinningHeaders: starts != nil) }
            queryTimes.append(t)
            found += result.count
        }
        let compute = percentile(times, 0.5), query = percentile(queryTimes, 0.5)
        if sectionCount == 0 { (plainCompute, plainQuery) = (compute, query) }
        let ratios = sectionCount == 0 ? "" : "\tcompute \(String(format: "%.2f", compute / plainCompute))x the plain (target ≤ 1.5x), query \(String(format: "%.2f", query / plainQuery))x (target ≤ 2x)"
        print("\(name)\tcompute median \(format(compute))\tquery median \(format(query)) p99 \(format(queryTimes.sorted()[queryTimes.count * 99 / 100]))\t\(found / offsets.count) placements per band\(ratios)")
    }
}
