/// A layout's windows to store, encoded a range at a time as the store writes them (a
/// 10,000,000-item layout's 200 MB of windows never sit in memory at once).
package struct LayoutWindows: Sendable {
    /// Consecutive windows: their bytes one after another, where each ends (counted from the
    /// first one's start), and the smallest and largest item index in each (−1 for both when
    /// no item meets the window).
    package struct Packed: Sendable, Hashable {
        package var bytes: [UInt8]
        package var ends: [Int]
        package var minIndices: [Int]
        package var maxIndices: [Int]

        package init(bytes: [UInt8], ends: [Int], minIndices: [Int], maxIndices: [Int]) {
            precondition(ends.count == minIndices.count && ends.count == maxIndices.count, "one entry per window")
            self.bytes = bytes
            self.ends = ends
            self.minIndices = minIndices
            self.maxIndices = maxIndices
        }
    }

    package let count: Int
    private let pack: @Sendable (Range<Int>) -> Packed

    /// `count` windows that `pack` encodes a range at a time.
    package init(count: Int, pack: @escaping @Sendable (Range<Int>) -> Packed) {
        self.count = count
        self.pack = pack
    }

    /// Windows `range` (within `0..<count`), encoded.
    package func packed(_ range: Range<Int>) -> Packed {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "windows \(range) of \(count)")
        return pack(range)
    }
}
