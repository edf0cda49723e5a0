/// What a layout with sections keeps besides its columns: the spanning list (headers, footers
/// and full-span items, stacked: each starts below everything placed before it), the sections,
/// and the placement state of the last section, which an append continues.
package struct SectionedState: Sendable {
    package let sectioning: Sectioning

    // The spanning list, in layout order (sorted by y, not overlapping).
    package var spanKinds: [LayoutAttributes.Kind] = []
    /// A full-span cell's item index; a header's or footer's section index.
    package var spanRefs: [Int] = []
    package var spanIDs: [Int64] = []
    package var spanYs: [Double] = []
    package var spanHeights: [Double] = []

    // The sections, by index.
    package var starts: [Int] = []
    package var keys: [UInt64] = []
    package var tops: [Double] = []
    /// The bottom of each closed section's items and its end (footer's bottom, else the
    /// items'); the last section has none while an append is placing its items.
    package var itemBottoms: [Double] = []
    package var ends: [Double] = []

    // The last section's placement state.
    /// Whether a column has an element below the last reset (a header, a span, a section top):
    /// the next item goes at its bottom plus the row spacing, else at the bottom itself.
    package var filled: [Bool]
    /// The index of the first item after the last reset: cyclic rules count from here, so a
    /// grid row starts at column 0 below every header and span.
    package var cycleBase = 0
    /// Items placed in the last section: every `spanEvery`-th spans.
    package var position = 0
    /// Where items start below the last section's header (its top without a header).
    package var resetTop = 0.0

    init(sectioning: Sectioning, columnCount: Int) {
        self.sectioning = sectioning
        filled = Array(repeating: false, count: columnCount)
    }

    /// Whether the last section has its end (every append closes it; the next one reopens it
    /// when its first item has the last section's key).
    var isClosed: Bool { ends.count == starts.count }

    /// The section holding item `index`: the last one starting at or before it. O(log S).
    package func section(ofItem index: Int) -> Int { lastPosition(atOrBelow: index, in: starts) ?? 0 }

    /// The section whose top is at or above `y`, the last such: O(log S); nil above the first.
    func section(atY y: Double) -> Int? { lastPosition(atOrBelow: y, in: tops) }

    /// Room for `sections` more sections and `spans` more spanning placements; an array that
    /// must grow at least doubles, so that appending a layout a piece at a time copies each
    /// placement a bounded number of times.
    mutating func reserve(sections: Int, spans: Int) {
        func grow<T>(_ array: inout [T], by more: Int) {
            let wanted = array.count + more
            if array.capacity < wanted { array.reserveAdvisedCapacity(max(wanted, array.capacity * 2)) }
        }
        grow(&starts, by: sections)
        grow(&keys, by: sections)
        grow(&tops, by: sections)
        grow(&itemBottoms, by: sections)
        grow(&ends, by: sections)
        grow(&spanKinds, by: spans)
        grow(&spanRefs, by: spans)
        grow(&spanIDs, by: spans)
        grow(&spanYs, by: spans)
        grow(&spanHeights, by: spans)
    }

    /// What an append may change, to put back if it refuses an item: the arrays' lengths and
    /// their last elements (reopening a section removes its footer, item bottom and end; the
    /// rest only grows), and the last section's placement state. O(1), unlike a copy of the
    /// state, which would cost every append the whole layout's sections and spans.
    struct Mark {
        let spans: Int, sections: Int, closed: Int
        let lastSpan: (kind: LayoutAttributes.Kind, ref: Int, id: Int64, y: Double, height: Double)?
        let lastItemBottom: Double?, lastEnd: Double?
        let filled: [Bool], cycleBase: Int, position: Int, resetTop: Double
    }

    func mark() -> Mark {
        Mark(spans: spanKinds.count, sections: starts.count, closed: ends.count,
             lastSpan: spanKinds.isEmpty ? nil : (spanKinds[spanKinds.count - 1], spanRefs[spanRefs.count - 1], spanIDs[spanIDs.count - 1],
                                                  spanYs[spanYs.count - 1], spanHeights[spanHeights.count - 1]),
             lastItemBottom: itemBottoms.last, lastEnd: ends.last, filled: filled, cycleBase: cycleBase, position: position, resetTop: resetTop)
    }

    /// Puts back what `mark` recorded.
    mutating func restore(_ mark: Mark) {
        func cut<T>(_ array: inout [T], to count: Int, last: T?) {
            array.removeSubrange(max(0, count - 1)...)
            if count > 0, let last { array.append(last) }
        }
        cut(&spanKinds, to: mark.spans, last: mark.lastSpan?.kind)
        cut(&spanRefs, to: mark.spans, last: mark.lastSpan?.ref)
        cut(&spanIDs, to: mark.spans, last: mark.lastSpan?.id)
        cut(&spanYs, to: mark.spans, last: mark.lastSpan?.y)
        cut(&spanHeights, to: mark.spans, last: mark.lastSpan?.height)
        starts.removeSubrange(mark.sections...)
        keys.removeSubrange(mark.sections...)
        tops.removeSubrange(mark.sections...)
        cut(&itemBottoms, to: mark.closed, last: mark.lastItemBottom)
        cut(&ends, to: mark.closed, last: mark.lastEnd)
        (filled, cycleBase, position, resetTop) = (mark.filled, mark.cycleBase, mark.position, mark.resetTop)
    }

    mutating func appendSpan(_ kind: LayoutAttributes.Kind, ref: Int, id: Int64, y: Double, height: Double) {
        spanKinds.append(kind)
        spanRefs.append(ref)
        spanIDs.append(id)
        spanYs.append(y)
        spanHeights.append(height)
    }

    mutating func removeLastSpan() {
        spanKinds.removeLast()
        spanRefs.removeLast()
        spanIDs.removeLast()
        spanYs.removeLast()
        spanHeights.removeLast()
    }
}

/// The position of the last element at or below `value` in `sorted` (ascending), or nil when
/// every element is above it. O(log n).
func lastPosition<T: Comparable>(atOrBelow value: T, in sorted: [T]) -> Int? {
    var low = 0
    var high = sorted.count
    while low < high {
        let middle = (low + high) / 2
        if sorted[middle] <= value { low = middle + 1 } else { high = middle }
    }
    return low == 0 ? nil : low - 1
}
