/// A layout's windows to store: their bytes one after another, where each ends, and the
/// smallest and largest item index in each (−1 for both when no item meets the window).
package struct LayoutWindows: Sendable, Hashable {
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

    package var count: Int { ends.count }

    /// Where window `k`'s bytes start.
    package func start(of k: Int) -> Int { k == 0 ? 0 : ends[k - 1] }
}
