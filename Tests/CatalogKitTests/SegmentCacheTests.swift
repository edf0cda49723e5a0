@testable import CatalogStorePostgres
import Testing

/// The layout segments a PostgreSQL store keeps in memory: windows across segments, only whole
/// ranges, the oldest pushed out past the budget, and nothing of another layout or generation.
@Suite struct SegmentCacheTests {
    /// `count` windows of `size` bytes each, the first byte of each its number from `first`.
    func segment(first: Int, count: Int, size: Int = 10) -> [[UInt8]] {
        (first..<(first + count)).map { [UInt8](repeating: UInt8($0 % 256), count: size) }
    }

    @Test func windowsComeFromEverySegmentTheyCross_orNotAtAll() {
        let cache = SegmentCache(budget: 1 << 20)
        cache.keep(segment(first: 0, count: 4), layoutID: 1, generation: 5, segment: 0)
        cache.keep(segment(first: 4, count: 2), layoutID: 1, generation: 5, segment: 1) // the last, short
        #expect(cache.windows(layoutID: 1, generation: 5, range: 2...5, perSegment: 4)?.map { $0[0] } == [2, 3, 4, 5])
        #expect(cache.windows(layoutID: 1, generation: 5, range: 0...0, perSegment: 4)?.map { $0[0] } == [0])
        #expect(cache.windows(layoutID: 1, generation: 5, range: 4...6, perSegment: 4) == nil, "past the last window")
        #expect(cache.windows(layoutID: 1, generation: 5, range: 3...8, perSegment: 4) == nil, "a segment not kept")
        #expect(cache.windows(layoutID: 1, generation: 6, range: 0...1, perSegment: 4) == nil, "another generation")
        #expect(cache.windows(layoutID: 2, generation: 5, range: 0...1, perSegment: 4) == nil, "another layout")
        #expect(cache.bytes == 6 * (10 + SegmentCache.overheadPerWindow))
    }

    @Test func pastTheBudget_theOldestSegmentsGo() {
        let perSegment = 4 * (100 + SegmentCache.overheadPerWindow)
        let cache = SegmentCache(budget: 3 * perSegment)
        for index in 0..<3 { cache.keep(segment(first: 4 * index, count: 4, size: 100), layoutID: 1, generation: 1, segment: index) }
        #expect(cache.bytes == 3 * perSegment)
        cache.keep(segment(first: 12, count: 4, size: 100), layoutID: 1, generation: 1, segment: 3)
        #expect(cache.bytes == 3 * perSegment)
        #expect(cache.windows(layoutID: 1, generation: 1, range: 0...0, perSegment: 4) == nil, "the oldest went")
        #expect(cache.windows(layoutID: 1, generation: 1, range: 4...15, perSegment: 4)?.count == 12)
        cache.keep(segment(first: 0, count: 4, size: 1000), layoutID: 1, generation: 1, segment: 0)
        #expect(cache.windows(layoutID: 1, generation: 1, range: 0...0, perSegment: 4) == nil, "larger than the budget: not kept")
        #expect(cache.bytes == 3 * perSegment)
        // Many segments pushed through a budget of two: the oldest keep going, the newest stay.
        for index in 4..<3000 { cache.keep(segment(first: 4 * index, count: 4, size: 100), layoutID: 1, generation: 1, segment: index) }
        #expect(cache.bytes == 3 * perSegment)
        #expect(cache.windows(layoutID: 1, generation: 1, range: (4 * 2997)...(4 * 3000 - 1), perSegment: 4)?.count == 12)
        #expect(cache.windows(layoutID: 1, generation: 1, range: (4 * 2996)...(4 * 2996), perSegment: 4) == nil)
    }
}
