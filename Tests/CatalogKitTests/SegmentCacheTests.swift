@testable import CatalogStorePostgres
import Testing

/// The layout segments a PostgreSQL store keeps in memory: windows across segments, only whole
/// ranges, the oldest pushed out past the budget, nothing of another layout or generation, and
/// nothing once the listener's epoch changes.
@Suite struct SegmentCacheTests {
    /// `count` windows of `size` bytes each, the first byte of each its number from `first`.
    func segment(first: Int, count: Int, size: Int = 10) -> [[UInt8]] {
        (first..<(first + count)).map { [UInt8](repeating: UInt8($0 % 256), count: size) }
    }

    @Test func windowsComeFromEverySegmentTheyCross_orNotAtAll() {
        let cache = SegmentCache(budget: 1 << 20)
        cache.keep(segment(first: 0, count: 4), epoch: 1, layoutID: 1, generation: 5, segment: 0)
        cache.keep(segment(first: 4, count: 2), epoch: 1, layoutID: 1, generation: 5, segment: 1) // the last, short
        #expect(cache.windows(epoch: 1, layoutID: 1, generation: 5, range: 2...5, perSegment: 4)?.map { $0[0] } == [2, 3, 4, 5])
        #expect(cache.windows(epoch: 1, layoutID: 1, generation: 5, range: 0...0, perSegment: 4)?.map { $0[0] } == [0])
        #expect(cache.windows(epoch: 1, layoutID: 1, generation: 5, range: 4...6, perSegment: 4) == nil, "past the last window")
        #expect(cache.windows(epoch: 1, layoutID: 1, generation: 5, range: 3...8, perSegment: 4) == nil, "a segment not kept")
        #expect(cache.windows(epoch: 1, layoutID: 2, generation: 5, range: 0...1, perSegment: 4) == nil, "another layout")
        #expect(cache.windows(epoch: 1, layoutID: 1, generation: 6, range: 0...1, perSegment: 4) == nil, "another generation")
        #expect(cache.bytes == 6 * (10 + SegmentCache.overheadPerWindow))
        cache.keep(segment(first: 0, count: 4), epoch: 1, layoutID: 1, generation: 5, segment: 0)
        #expect(cache.bytes == 6 * (10 + SegmentCache.overheadPerWindow), "kept twice, counted once")
    }

    /// A new epoch (the listener connected again: maybe another database behind the URL)
    /// empties the cache.
    @Test func anotherEpoch_forgetsEverything() {
        let cache = SegmentCache(budget: 1 << 20)
        cache.keep(segment(first: 0, count: 4), epoch: 1, layoutID: 1, generation: 5, segment: 0)
        cache.keep(segment(first: 4, count: 4), epoch: 1, layoutID: 1, generation: 5, segment: 1)
        #expect(cache.windows(epoch: 2, layoutID: 1, generation: 5, range: 0...3, perSegment: 4) == nil)
        #expect(cache.bytes == 0)
        cache.keep(segment(first: 4, count: 4), epoch: 2, layoutID: 1, generation: 5, segment: 1)
        #expect(cache.windows(epoch: 2, layoutID: 1, generation: 5, range: 4...7, perSegment: 4)?.count == 4)
        cache.keep(segment(first: 0, count: 4), epoch: 3, layoutID: 1, generation: 5, segment: 0)
        #expect(cache.windows(epoch: 3, layoutID: 1, generation: 5, range: 0...7, perSegment: 4) == nil, "segment 1 went with epoch 2")
        #expect(cache.bytes == 4 * (10 + SegmentCache.overheadPerWindow))
        // A read that began in an older epoch neither empties the cache nor adds to it.
        cache.keep(segment(first: 4, count: 4), epoch: 2, layoutID: 1, generation: 5, segment: 1)
        #expect(cache.windows(epoch: 2, layoutID: 1, generation: 5, range: 0...3, perSegment: 4) == nil)
        #expect(cache.windows(epoch: 3, layoutID: 1, generation: 5, range: 0...3, perSegment: 4)?.count == 4)
        #expect(cache.bytes == 4 * (10 + SegmentCache.overheadPerWindow))
    }

    @Test func pastTheBudget_theOldestSegmentsGo() {
        let perSegment = 4 * (100 + SegmentCache.overheadPerWindow)
        let cache = SegmentCache(budget: 3 * perSegment)
        func keep(_ index: Int, size: Int = 100) {
            cache.keep(segment(first: 4 * index, count: 4, size: size), epoch: 1, layoutID: 1, generation: 1, segment: index)
        }
        func held(_ range: ClosedRange<Int>) -> Int? {
            cache.windows(epoch: 1, layoutID: 1, generation: 1, range: range, perSegment: 4)?.count
        }
        for index in 0..<3 { keep(index) }
        #expect(cache.bytes == 3 * perSegment)
        keep(3)
        #expect(cache.bytes == 3 * perSegment)
        #expect(held(0...0) == nil, "the oldest went")
        #expect(held(4...15) == 12)
        keep(0, size: 1000)
        #expect(held(0...0) == nil, "larger than the budget: not kept")
        #expect(cache.bytes == 3 * perSegment)
        // Many segments pushed through a budget of three: the oldest keep going, the newest stay.
        for index in 4..<3000 { keep(index) }
        #expect(cache.bytes == 3 * perSegment)
        #expect(held((4 * 2997)...(4 * 3000 - 1)) == 12)
        #expect(held((4 * 2996)...(4 * 2996)) == nil)
    }
}
