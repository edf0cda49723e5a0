// CatalogLayout at 1M and 10M items: compute, queries, size, append. See BENCHMARKS.md.
//   LayoutBenchmark [SIZES...]   (default: 1000000 10000000)
import BenchmarkSupport
import CatalogLayout
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The advice the catalog installs (CatalogKit's `HugePages`): transparent huge pages for the
/// engine's arrays of 4 MiB or more, through madvise. Installed and removed around the runs that
/// use it, so one process times the engine both ways.
let hugePages: MemoryAdvice.Advice = { start, bytes in
    #if os(Linux)
    let page = Int(getpagesize())
    let first = (Int(bitPattern: start) + page - 1) & ~(page - 1)
    let end = (Int(bitPattern: start) + bytes) & ~(page - 1)
    if end > first { _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_HUGEPAGE) }
    #endif
}


/// Times `queries` bands of 812 points at the given offsets; returns per-query seconds.
func timeQueries(_ offsets: [Double], _ query: (Range<Double>) -> [Int]) -> (times: [Double], found: Int) {
    var found = 0
    var times: [Double] = []
    times.reserveCapacity(offsets.count)
    for y in offsets {
        let (result, t) = time { query(y..<(y + 812)) }
        found += result.count
        times.append(t)
    }
    return (times, found)
}

/// The content height and every 997th item's attributes: enough to tell two layouts apart.
func fingerprint(_ layout: Layout<WaterfallLayout>) -> [LayoutAttributes] {
    [LayoutAttributes(index: -1, id: 0, frame: Rect(x: 0, y: layout.contentHeight, width: 0, height: 0), column: 0)]
        + stride(from: 0, to: layout.count, by: 997).map { layout.attributes(at: $0) }
}

let sizes = CommandLine.arguments.dropFirst().compactMap(Int.init)
let style = WaterfallLayout(width: 375, columns: 2)
print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; style: waterfall, width 375, 2 columns, spacing 8, insets 8, shortest-first")
for n in sizes.isEmpty ? [1_000_000, 10_000_000] : sizes {
    var random = Random(state: UInt64(n))
    let items = (0..<n).map { LayoutItem(id: Int64($0) * 3 + 1, width: 200 + random.next() * 3800, height: 200 + random.next() * 3800) }
    print("\n## \(n) items")

    // Compute: ours (placements + windows + checkpoints) next to the bare arithmetic.
    var ys = [Double](repeating: 0, count: n)
    var columns = [Int32](repeating: 0, count: n)
    let geometry = try style.makeGeometry()
    var floorTimes: [Double] = []
    var memoryTimes: [Double] = []
    var ourTimes: [Double] = []
    var hugeTimes: [Double] = []
    var hugeMemoryTimes: [Double] = []
    var layout: Layout<WaterfallLayout>? = nil
    for _ in 0..<5 {
        let (height, tf) = time { floorCompute(items, geometry: geometry, ys: &ys, columns: &columns) }
        floorTimes.append(tf)
        layout = nil
        let (written, tm) = time { freshMemoryFloor(items) }
        precondition(written == 5 * n)
        memoryTimes.append(tm)
        // Each layout is released before the next is made, so that both ways meet the allocator alike.
        var plain: Layout<WaterfallLayout>? = nil
        let (_, to) = try time { plain = try Layout(items: items, style: style) }
        ourTimes.append(to)
        precondition(plain!.contentHeight == height, "floor and layout disagree")
        let expected = fingerprint(plain!)
        plain = nil
        // The same with the catalog's advice installed.
        MemoryAdvice.install(hugePages)
        let (hugeWritten, thm) = time { freshMemoryFloor(items, advised: true) }
        precondition(hugeWritten == 5 * n)
        hugeMemoryTimes.append(thm)
        let (advised, th) = try time { try Layout(items: items, style: style) }
        MemoryAdvice.install(nil)
        hugeTimes.append(th)
        precondition(fingerprint(advised) == expected, "advice changed the layout")
        layout = advised
    }
    let computed = layout!
    let floorMedian = percentile(floorTimes, 0.5), ourMedian = percentile(ourTimes, 0.5), hugeMedian = percentile(hugeTimes, 0.5)
    let memoryMedian = percentile(memoryTimes, 0.5), hugeMemoryMedian = percentile(hugeMemoryTimes, 0.5)
    print("compute\tfloor \(format(floorMedian))\tlayout \(format(ourMedian))\tratio \(String(format: "%.2f", ourMedian / floorMedian))x (target ≤ 1.5x)\tcontent height \(String(format: "%.0f", computed.contentHeight)) pt")
    print("compute\tmemory floor (32 bytes per item into new arrays) \(format(memoryMedian))\tfloor + memory floor \(format(floorMedian + memoryMedian))\tlayout / (floor + memory floor) \(String(format: "%.2f", ourMedian / (floorMedian + memoryMedian)))x")
    print("compute\twith the catalog's huge-page advice: layout \(format(hugeMedian))\tratio \(String(format: "%.2f", hugeMedian / floorMedian))x (target ≤ 1.5x)\tmemory floor \(format(hugeMemoryMedian))\tlayout / (floor + memory floor) \(String(format: "%.2f", hugeMedian / (floorMedian + hugeMemoryMedian)))x")

    // Queries at random offsets; and separately near the top and at the end.
    let frames = (0..<n).map { computed.attributes(at: $0).frame }
    let linear = LinearScan(frames: frames)
    let unions = UnionRects(frames: frames)
    let maxY = computed.contentHeight - 812
    let randomOffsets = (0..<20_000).map { _ in random.next() * maxY }
    for y in randomOffsets.prefix(50) {
        let band = y..<(y + 812)
        precondition(computed.table.indices(in: band) == linear.indices(in: band), "query disagrees with the linear scan")
        precondition(unions.indices(in: band) == linear.indices(in: band), "union rects disagree with the linear scan")
    }
    let ours = timeQueries(randomOffsets) { computed.table.indices(in: $0) }
    let oursTop = timeQueries((0..<5000).map { _ in random.next() * 4000 }) { computed.table.indices(in: $0) }
    let oursEnd = timeQueries((0..<5000).map { _ in maxY - random.next() * 4000 }) { computed.table.indices(in: $0) }
    let linearRuns = timeQueries(Array(randomOffsets.prefix(n >= 10_000_000 ? 20 : 60))) { linear.indices(in: $0) }
    let unionRuns = timeQueries(Array(randomOffsets.prefix(n >= 10_000_000 ? 200 : 1000))) { unions.indices(in: $0) }
    let unionTop = timeQueries((0..<200).map { _ in random.next() * 4000 }) { unions.indices(in: $0) }
    let ourMedianQ = percentile(ours.times, 0.5)
    print("query\tlayout median \(format(ourMedianQ)) p99 \(format(percentile(ours.times, 0.99)))\t(\(ours.found / randomOffsets.count) items per band)")
    print("query\tlayout near top median \(format(percentile(oursTop.times, 0.5))), at end median \(format(percentile(oursEnd.times, 0.5)))\tend/top \(String(format: "%.2f", percentile(oursEnd.times, 0.5) / percentile(oursTop.times, 0.5)))")
    print("query\t(a) linear scan median \(format(percentile(linearRuns.times, 0.5))) p99 \(format(percentile(linearRuns.times, 0.99)))\tspeed-up \(String(format: "%.0f", percentile(linearRuns.times, 0.5) / ourMedianQ))x (target ≥ 1000x)")
    print("query\t(b) union rects median \(format(percentile(unionRuns.times, 0.5))) p99 \(format(percentile(unionRuns.times, 0.99))), near top \(format(percentile(unionTop.times, 0.5)))\tspeed-up \(String(format: "%.0f", percentile(unionRuns.times, 0.5) / ourMedianQ))x (target ≥ 50x)")

    // Serialized size.
    let (archive, archiveTime) = time { computed.table.archive() }
    print("size\t\(String(format: "%.2f", Double(archive.byteCount) / Double(n))) bytes per item serialized (target ≤ 32), \(archive.windows.count) windows, encoded in \(format(archiveTime))")

    // Append 1,000 items, next to recomputing everything.
    var growing = computed
    layout = nil
    try growing.append([LayoutItem(id: -1, width: 1, height: 1)]) // untimed: the copy-on-write of the shared arrays
    var appendTimes: [Double] = []
    for round in 0..<5 {
        let more = (0..<1000).map { LayoutItem(id: Int64(n + round * 1000 + $0), width: 200 + random.next() * 3800, height: 200 + random.next() * 3800) }
        let (_, t) = try time { try growing.append(more) }
        appendTimes.append(t)
    }
    print("append\t1,000 items to \(n): median \(format(percentile(appendTimes, 0.5)))\tfull recomputation \(format(ourMedian))\tratio \(String(format: "%.0f", ourMedian / percentile(appendTimes, 0.5)))x faster")
}
