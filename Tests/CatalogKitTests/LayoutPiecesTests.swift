import CatalogKit
import Testing

/// A layout computed from its items a piece at a time (as the pager reads the order data)
/// equals the layout of all of them at once, byte for byte, at every style and with sections.
@Suite struct LayoutPiecesTests {
    /// A seeded generator, so that a failure names what to replay.
    struct Numbers {
        var state: UInt64
        mutating func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
    }

    static func configurations() -> [LayoutConfiguration] {
        var all: [LayoutConfiguration] = []
        for style in LayoutConfiguration.Style.allCases {
            for sections in [LayoutConfiguration.Sections.none, .month] {
                for spanEvery in style == .justified || style == .carousel ? [0] : [0, 7] {
                    if style == .carousel, sections != .none { continue }
                    var c = LayoutConfiguration(width: style == .carousel ? 414 : 1024)
                    (c.style, c.columns, c.sections, c.spanEvery) = (style, style == .list ? 1 : 3, sections, spanEvery)
                    if sections != .none { (c.headerHeight, c.footerHeight) = (40, 12) }
                    all.append(c)
                }
            }
        }
        var cyclic = LayoutConfiguration(width: 375)
        cyclic.direction = .rightToLeft
        var two = LayoutConfiguration(width: 375)
        two.windowHeight = 300 // items taller than a window: starts carried over several windows
        return all + [cyclic, two]
    }

    /// `count` items with sizes from square to very wide and very tall, and the runs of a
    /// section key that changes every 1 to 400 items.
    static func input(_ count: Int, seed: UInt64) -> (items: [LayoutItem], runs: [SectionRun]) {
        var numbers = Numbers(state: seed)
        let items = (0..<count).map { index in
            LayoutItem(id: Int64(index * 3 + 1), width: Double(numbers.next(1...5000)), height: Double(numbers.next(1...5000)))
        }
        var runs: [SectionRun] = []
        var position = 0
        while position < count {
            runs.append(SectionRun(position: position, key: UInt64(runs.count * 2 + 1)))
            position += numbers.next(1...400)
        }
        return (items, runs)
    }

    /// The layout of `items` handed over in pieces of the given sizes (the last takes the rest).
    static func compute(_ c: LayoutConfiguration, _ items: [LayoutItem], runs: [SectionRun], pieces sizes: [Int], reserving: Bool) throws
        -> any LayoutTable {
        try c.compute { reserve, take in
            if reserving { reserve(items.count) }
            var placed = 0
            var run = 0
            for size in sizes + [items.count] {
                let piece = Array(items[placed..<min(items.count, placed + size)])
                try take(piece, c.sections == .none ? nil : LayoutConfiguration.sectionStarts(runs, from: placed, count: piece.count, run: &run))
                placed += piece.count
            }
        }
    }

    @Test(arguments: configurations())
    func piecesOfAnySizeMakeTheSameLayoutAsAllTheItemsAtOnce(_ c: LayoutConfiguration) throws {
        let (items, runs) = Self.input(3000, seed: 7)
        let whole = try Self.compute(c, items, runs: runs, pieces: [], reserving: false)
        #expect(whole.count == items.count)
        var numbers = Numbers(state: 11)
        let splits: [[Int]] = [
            [], // one piece: its arrays are taken whole
            Array(repeating: 1, count: 40) + [0, 0, 4096], // single items, empty pieces, a chunk of the order data
            (0..<30).map { _ in numbers.next(0...250) },
            (0..<8).map { _ in numbers.next(200...900) },
        ]
        for sizes in splits {
            let pieced = try Self.compute(c, items, runs: runs, pieces: sizes, reserving: true)
            // Compared as values so that a failure names the first window that differs, not every byte.
            let (got, want) = (pieced.packedWindows(), whole.packedWindows())
            let firstDifferent = (0..<max(got.count, want.count)).first { $0 >= min(got.count, want.count) || !got.window($0).elementsEqual(want.window($0)) }
            let sameHeader = pieced.archiveHeader() == whole.archiveHeader()
            #expect(pieced.count == whole.count, "\(c.key), pieces \(sizes.prefix(8))")
            #expect(sameHeader, "\(c.key), pieces \(sizes.prefix(8))")
            #expect(firstDifferent == nil && got == want, "\(c.key), pieces \(sizes.prefix(8)): window \(firstDifferent ?? -1) of \(want.count) differs")
        }
    }

    /// A store encodes windows a segment at a time: any range of windows encodes to the slice
    /// of the whole encoding, with its ends counted from the range's first byte.
    @Test(arguments: configurations())
    func windowsPackedARangeAtATimeAreSlicesOfTheWholePacking(_ configuration: LayoutConfiguration) throws {
        var c = configuration
        c.windowHeight = min(c.windowHeight, 512) // many windows for justified rows too
        let (items, runs) = Self.input(2000, seed: 5)
        let table = try Self.compute(c, items, runs: runs, pieces: [], reserving: false)
        let whole = table.packedWindows()
        #expect(whole.count == table.windowCount && whole.count > 70, "\(c.key): enough windows for several ranges")
        var numbers = Numbers(state: 3)
        var first = 0
        while first < whole.count {
            let range = first..<min(whole.count, first + numbers.next(0...64))
            let part = table.packedWindows(range)
            let base = range.isEmpty || range.lowerBound == 0 ? 0 : whole.ends[range.lowerBound - 1]
            let same = part.bytes[...] == whole.bytes[base..<(range.isEmpty ? base : whole.ends[range.upperBound - 1])]
                && part.ends == whole.ends[range].map { $0 - base }
                && part.minIndices[...] == whole.minIndices[range] && part.maxIndices[...] == whole.maxIndices[range]
            #expect(same, "\(c.key): windows \(range)")
            first = range.upperBound + (range.isEmpty ? 1 : 0)
        }
    }

    /// A store writes a layout's windows while it is computed, as they settle: the windows
    /// settled after any piece are those of the whole layout, byte for byte, and most of them
    /// settle before the last piece.
    @Test(arguments: configurations().filter(\.storesWhileComputing))
    func windowsSettledAfterEachPieceAreTheWholeLayouts(_ configuration: LayoutConfiguration) throws {
        var c = configuration
        c.windowHeight = min(c.windowHeight, 512)
        let (items, _) = Self.input(3000, seed: 9)
        let whole = try Self.compute(c, items, runs: [], pieces: [], reserving: false)
        let want = whole.packedWindows()
        var settled: [(count: Int, windows: PackedWindows)] = []
        var placed = 0
        let pieced = try c.compute(pieces: { reserve, take in
            reserve(items.count)
            while placed < items.count {
                let piece = Array(items[placed..<min(items.count, placed + 97)])
                placed += piece.count
                try take(piece, nil)
            }
        }, settled: { table in
            #expect(table.count == placed, "called after each piece")
            let count = table.settledWindowCount
            settled.append((count, table.packedWindows(0..<count)))
        })
        #expect(pieced.packedWindows() == want)
        #expect(settled.count == (items.count + 96) / 97)
        #expect(zip(settled, settled.dropFirst()).allSatisfy { $0.count <= $1.count }, "\(c.key): settled windows stay settled")
        // Cyclic columns drift apart, and the shortest one holds the rest back.
        let beforeLast = try #require(settled.dropLast().last).count
        let expected = c.direction == .shortestFirst || c.style != .waterfall ? want.count * 9 / 10 : want.count / 2
        #expect(beforeLast > expected, "\(c.key): \(beforeLast) of \(want.count) windows settled before the last piece")
        for (count, windows) in settled {
            #expect(count <= want.count)
            let same = (0..<count).allSatisfy { windows.window($0).elementsEqual(want.window($0)) }
                && windows.minIndices[...] == want.minIndices[..<count] && windows.maxIndices[...] == want.maxIndices[..<count]
            #expect(same, "\(c.key): the \(count) windows settled are the whole layout's")
        }
    }

    @Test func sectionStartsOfAPieceContinueTheRunHoldingIt_andStartTheLaterOnes() {
        let runs = [SectionRun(position: 0, key: 5), SectionRun(position: 10, key: 6), SectionRun(position: 12, key: 5),
                    SectionRun(position: 30, key: 9)]
        var run = 0
        #expect(LayoutConfiguration.sectionStarts(runs, from: 0, count: 10, run: &run) == [SectionStart(offset: 0, key: 5)])
        #expect(LayoutConfiguration.sectionStarts(runs, from: 10, count: 5, run: &run)
            == [SectionStart(offset: 0, key: 6), SectionStart(offset: 2, key: 5)])
        #expect(run == 1)
        #expect(LayoutConfiguration.sectionStarts(runs, from: 15, count: 100, run: &run)
            == [SectionStart(offset: 0, key: 5), SectionStart(offset: 15, key: 9)])
        #expect(LayoutConfiguration.sectionStarts(runs, from: 40, count: 0, run: &run) == [])
        var fresh = 0
        #expect(LayoutConfiguration.sectionStarts(runs, from: 31, count: 1, run: &fresh) == [SectionStart(offset: 0, key: 9)])
        #expect(LayoutConfiguration.sectionStarts([], from: 0, count: 3, run: &fresh) == [])
    }

    @Test func aRefusedSizeFarIntoThePiecesNamesItsIndexInTheWholeLayout() throws {
        var (items, runs) = Self.input(1000, seed: 3)
        items[777] = LayoutItem(id: 99, width: 0, height: 10)
        for c in Self.configurations() where c.style != .grid && c.style != .mixed { // cells there do not follow sizes
            #expect(throws: LayoutError.invalidItemSize(index: 777, size: Size(width: 0, height: 10)), "\(c.key)") {
                _ = try Self.compute(c, items, runs: runs, pieces: [100, 300, 500], reserving: true)
            }
        }
    }
}
