// Justified rows and the carousel at 1M and 10M items (issue #13), in process: compute and
// 812-point band queries of justified rows next to a waterfall of the same width in the same
// run; the carousel's compute, 1,200-point viewport queries with their scale/alpha/zIndex, and
// snapping (O(log n)) next to a naive snap that scans every item. See BENCHMARKS.md.
//   StyleBenchmark [SIZES...]   (default: 1000000 10000000)
import BenchmarkSupport
import CatalogLayout
import Foundation

let sizes = CommandLine.arguments.dropFirst().compactMap(Int.init)
let width = 1200.0
print("width \(width): waterfall 5 columns; justified rows at 180 points; carousel items 300 high; spacing 8, insets 8")

/// Runs `body` `runs` times; the median seconds and the last value.
func measure<T>(runs: Int, _ body: () throws -> T) rethrows -> (T, Double) {
    var times: [Double] = []
    var value: T?
    for _ in 0..<runs {
        value = nil
        let (result, t) = try time(body)
        times.append(t)
        value = result
    }
    return (value!, percentile(times, 0.5))
}

/// Median and 99th percentile of `body` at each of `points`, and the results' mean count.
func queries(_ points: [Double], _ body: (Double) -> Int) -> (median: Double, p99: Double, mean: Int) {
    var times: [Double] = []
    var found = 0
    for point in points {
        let (count, t) = time { body(point) }
        times.append(t)
        found += count
    }
    return (percentile(times, 0.5), percentile(times, 0.99), found / max(1, points.count))
}

/// The naive snap: every item's centre, the nearest to the target (what a client without the
/// table's order would do).
func naiveSnap(_ table: CarouselTable, proposed: Double, viewportWidth: Double) -> Int {
    let target = proposed + viewportWidth / 2
    var best = 0
    var distance = Double.infinity
    for index in 0..<table.count {
        let frame = table.attributes(at: index).frame
        let d = abs(frame.x + frame.width / 2 - target)
        if d < distance { (best, distance) = (index, d) }
    }
    return best
}

for n in sizes.isEmpty ? [1_000_000, 10_000_000] : sizes {
    var random = Random(state: UInt64(n))
    let items = (0..<n).map { LayoutItem(id: Int64($0) * 3 + 1, width: 200 + random.next() * 3800, height: 200 + random.next() * 3800) }
    let runs = n >= 10_000_000 ? 3 : 5
    print("\n## \(n) items (median of \(runs) computes; 20,000 queries at random places)")

    let (waterfall, waterfallCompute) = try measure(runs: runs) { try Layout(items: items, style: WaterfallLayout(width: width, columns: 5)).table }
    let bands = (0..<20_000).map { _ in random.next() * (waterfall.contentHeight - 812) }
    let waterfallQuery = queries(bands) { waterfall.items(in: $0..<($0 + 812)).count }
    print("waterfall\tcompute \(format(waterfallCompute))\tquery median \(format(waterfallQuery.median)) p99 \(format(waterfallQuery.p99))\t\(waterfallQuery.mean) items a band")

    let (rows, rowsCompute) = try measure(runs: runs) { try RowTable(items: items, style: JustifiedLayout(width: width, rowHeight: 180)) }
    let rowBands = (0..<20_000).map { _ in random.next() * (rows.contentHeight - 812) }
    let rowsQuery = queries(rowBands) { rows.items(in: $0..<($0 + 812)).count }
    print("justified\tcompute \(format(rowsCompute)) (\(String(format: "%.2f", rowsCompute / waterfallCompute))x the waterfall, target ≤ 2x)"
          + "\tquery median \(format(rowsQuery.median)) p99 \(format(rowsQuery.p99)) (\(String(format: "%.2f", rowsQuery.median / waterfallQuery.median))x)\t\(rowsQuery.mean) items a band")

    let (carousel, carouselCompute) = try measure(runs: runs) { try CarouselTable(items: items, style: CarouselLayout(itemHeight: 300)) }
    let viewports = (0..<20_000).map { _ in random.next() * (carousel.contentWidth - width) }
    let carouselQuery = queries(viewports) { x in
        let found = carousel.items(in: x..<(x + width))
        return CarouselTable.effects(of: found, viewportX: x, viewportWidth: width, falloff: width / 2, minimumScale: 0.8, minimumAlpha: 0.5).count
    }
    print("carousel\tcompute \(format(carouselCompute))\tviewport with effects median \(format(carouselQuery.median)) p99 \(format(carouselQuery.p99))\t\(carouselQuery.mean) items a viewport")
    let velocities = [0.0, 2.5, -2.5]
    var snapIndex = 0
    let snapped = queries(viewports) { x in
        snapIndex += 1
        return carousel.snap(proposed: x, velocity: velocities[snapIndex % 3], viewportWidth: width) == nil ? 0 : 1
    }
    let naive = queries(Array(viewports.prefix(n >= 10_000_000 ? 5 : 20))) { naiveSnap(carousel, proposed: $0, viewportWidth: width) >= 0 ? 1 : 0 }
    // The two agree where they should (no velocity).
    for x in viewports.prefix(5) where carousel.snap(proposed: x, viewportWidth: width)?.index != naiveSnap(carousel, proposed: x, viewportWidth: width) {
        print("snap and the naive snap disagree at \(x)")
    }
    print("snap\tmedian \(format(snapped.median)) p99 \(format(snapped.p99))\tnaive scan median \(format(naive.median)) (\(String(format: "%.0f", naive.median / snapped.median))x slower)")
}
