@testable import CatalogStorePostgres
import Testing

/// The lines an import's rows came from, kept as the positions where a record took more than
/// one line (PostgreSQL's import into an empty catalog names a refused row's line from them).
@Suite struct LineNumbersTests {
    /// Any increasing lines, records of one line and of several mixed, give each position its
    /// line back; a file of one record a line keeps one entry.
    @Test(arguments: [0, 1, 2, 3] as [UInt64]) func everyPositionGetsItsLine(seed: UInt64) {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var lines: [Int] = []
        var line = 2 + next(5)
        for _ in 0..<5_000 {
            lines.append(line)
            line += next(8) == 0 ? 1 + next(4) : 1 // now and then a record over several lines
        }
        var numbers = LineNumbers()
        for line in lines { numbers.append(line) }
        #expect(numbers.count == lines.count)
        #expect(lines.indices.allSatisfy { numbers[$0] == lines[$0] })
    }

    @Test func oneRecordALine_isOneEntry() {
        var numbers = LineNumbers()
        for line in 2..<100_002 { numbers.append(line) }
        #expect(numbers.entries == 1)
        #expect(numbers[0] == 2 && numbers[99_999] == 100_001)
    }
}
