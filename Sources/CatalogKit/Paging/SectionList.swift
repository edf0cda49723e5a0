public import Foundation

/// Every section of a layout: what `catalog sections` prints and `GET /api/sections` returns,
/// what a date scrubber needs to jump to "2019-03".
public struct SectionList: Sendable, Hashable {
    public struct Section: Sendable, Hashable {
        public var index: Int
        /// The year, the month (YYYY-MM) or the folder, as bytes (a folder's name need not be UTF-8).
        public var title: Data
        /// The index of its first item in the layout's order, and how many it holds.
        public var firstItem: Int
        public var itemCount: Int
        /// Its header's y (the section's top) and height (0 without headers).
        public var headerY: Double
        public var headerHeight: Double
        /// Where its items end, and where it ends (below its footer, if any).
        public var itemBottom: Double
        public var end: Double
    }

    public var generation: Int64
    /// The content's size, as a page gives it: a carousel's length is its width.
    public var contentHeight: Double
    public var contentWidth: Double
    public var itemCount: Int
    /// What groups the items (nil: none).
    public var grouping: String?
    public var sections: [Section]
}
