/// The checks every decoder makes before it trusts a number it read: a stored layout is read
/// back by a server from disk, and a damaged one must throw ``LayoutError/corruptArchive(_:)``,
/// never trap, never ask for memory its bytes do not account for. Each check runs once per
/// archive or per decoded element, never in a query.
extension LayoutArchive {
    /// The fewest bytes an item takes in a window of any version: its index (a varint, one byte
    /// at least), its id and its height or aspect (eight bytes each). Every item is in a window.
    static let minimumItemBytes = 17

    /// The most items a layout holds: the tables list items by 32-bit index.
    static let maximumItemCount = Int(Int32.max)

    /// Throws unless `itemCount` items fit in the bytes of `windows`.
    static func checkItemCount(_ itemCount: Int, fitIn windows: [[UInt8]]) throws(LayoutError) {
        let bytes = windows.reduce(0) { $0 + $1.count }
        guard itemCount <= bytes / minimumItemBytes else {
            throw .corruptArchive("\(itemCount) items cannot fit in \(bytes) bytes of windows")
        }
    }

    /// The index of a window's next item: `gap` itself for the first, else the previous index
    /// plus `gap`, which must be positive. Throws when it would reach `itemCount` (or overflow).
    static func index(after previous: Int, gap: Int, isFirst: Bool, itemCount: Int) throws(LayoutError) -> Int {
        if isFirst {
            guard gap < itemCount else { throw .corruptArchive("item index \(gap) of \(itemCount)") }
            return gap
        }
        guard gap > 0 else { throw .corruptArchive("item indices out of order") }
        guard gap < itemCount - previous else { throw .corruptArchive("item index past \(itemCount) after \(previous)") }
        return previous + gap
    }

    /// Throws unless a decoded table's content, ending at `bottom`, lies within the
    /// `windowCount` windows of `windowHeight` the archive has: checked before the table
    /// computes its windows, whose number follows from `bottom`.
    static func checkReach(_ bottom: Double, windowHeight: Double, windowCount: Int) throws(LayoutError) {
        guard bottom.isFinite, bottom >= 0, bottom / windowHeight <= Double(windowCount) + 1 else {
            throw .corruptArchive("the content reaches \(bottom), past \(windowCount) windows of \(windowHeight)")
        }
    }

    /// Throws unless `value` is a finite coordinate (a y, an x) at or after `floor`.
    static func checkPosition(_ value: Double, atLeast floor: Double, _ what: @autoclosure () -> String) throws(LayoutError) {
        guard value.isFinite, value >= floor else { throw .corruptArchive("\(what()) at \(value), before \(floor)") }
    }

    /// Throws unless `value` is a finite length (an aspect ratio) of zero or more.
    static func checkLength(_ value: Double, _ what: @autoclosure () -> String) throws(LayoutError) {
        guard value.isFinite, value >= 0 else { throw .corruptArchive("\(what()) is \(value)") }
    }

    /// Throws unless a placement from `start`, `extent` long along the scroll axis (a height; a
    /// carousel item's width), is finite and lies in a window as the table writes windows:
    /// window k holds what starts before its end and ends after its start. Only a placement of
    /// no extent can fail that, on a window's edge: the table would write an archive without it,
    /// which would not read back.
    static func checkHeld(from start: Double, extent: Double, windowHeight: Double, _ what: @autoclosure () -> String) throws(LayoutError) {
        let end = start + extent
        guard extent >= 0, start >= 0, end.isFinite else { throw .corruptArchive("\(what()) is \(extent) long at \(start)") }
        guard end == start else { return } // no extent: none, or too little to move the end
        // The window edges nearest `start`, computed as the table computes them.
        let window = (start / windowHeight).rounded(.down)
        guard start > 0, ![window - 1, window, window + 1].contains(where: { $0 * windowHeight == start }) else {
            throw .corruptArchive("\(what()) has no extent, on a window's edge at \(start)")
        }
    }

    /// Throws unless a decoded table's content length (recomputed from its placements) is the
    /// one its header gives, which pages read from the header alone.
    static func checkContentLength(_ computed: Double, header: LayoutArchiveHeader) throws(LayoutError) {
        guard computed == header.contentHeight else {
            throw .corruptArchive("the content is \(computed) long, header says \(header.contentHeight)")
        }
    }
}

extension LayoutArchiveHeader {
    /// The checks of the fields every version has, against each other: a window height that is
    /// positive and finite, and windows that cover the content's `extent` along the scroll axis
    /// (its height; a carousel's width) less `endInset` (the bottom or right inset), no more
    /// and no fewer (a slack of a window for rounding), so that a window height too small for
    /// the content, or a count no layout of it has, is refused here.
    static func checkWindows(windowHeight: Double, windowCount: Int, itemCount: Int, extent: Double, endInset: Double) throws(LayoutError) {
        guard windowHeight.isFinite, windowHeight > 0 else { throw .corruptArchive("window height \(windowHeight)") }
        guard itemCount <= LayoutArchive.maximumItemCount else { throw .corruptArchive("\(itemCount) items") }
        guard extent.isFinite, extent >= 0 else { throw .corruptArchive("content length \(extent)") }
        guard itemCount > 0 || windowCount == 0 else { throw .corruptArchive("\(windowCount) windows for no items") }
        let windows = Double(windowCount)
        // Windows cover 0 ..< (content − inset); the content is that end plus the inset, rounded.
        guard windowCount == 0 || (windows - 1) * windowHeight < extent else {
            throw .corruptArchive("\(windowCount) windows of \(windowHeight) for content \(extent) long")
        }
        // Without items the content is the insets alone, which no window covers.
        let slack = 1 + 1e-9
        guard itemCount == 0 || extent <= (windows + 1) * windowHeight * slack + endInset * slack else {
            throw .corruptArchive("content \(extent) long does not fit in \(windowCount) windows of \(windowHeight)")
        }
    }
}
