public import CatalogLayout
public import Foundation

/// What `catalog page` shows: the items a viewport meets, with their frames.
public struct Page: Sendable {
    public struct Item: Sendable, Hashable {
        public var index: Int
        public var id: Int64
        /// The file path's bytes, or the import key.
        public var path: Data
        public var column: Int
        public var frame: Rect
        /// For a scanned item, its file's version as the last scan saw it (see
        /// `ThumbnailKey.version`): a thumbnail URL that carries it changes when the file does.
        /// nil for an imported item.
        public var version: String?
        /// An imported item's address and title, as imported; nil when not given (and for a
        /// scanned item, which has neither).
        public var url: String?
        public var title: String?
        /// A cell, or a section's header or footer (whose `index` is the section's, `id` its
        /// key as `sectionID` gives it, and `path` empty).
        public var kind: LayoutAttributes.Kind = .cell
        /// The section it belongs to (0 without sections).
        public var section = 0
        /// A header's or footer's section title: the year, the month (YYYY-MM) or the folder,
        /// as bytes (a folder's name need not be UTF-8).
        public var sectionTitle: Data?
        /// A header's or footer's section item count.
        public var sectionCount: Int?
        /// A carousel item's scale, alpha and stacking order at this viewport.
        public var effect: CarouselEffect?

        /// A section's key as a header's or footer's `id`: a month's YYYYMM and a year as they
        /// are, a folder's 64-bit hash cut to its low 53 bits, which JavaScript's numbers hold
        /// exactly (two folders' headers read by `JSON.parse` could get one id).
        public static func sectionID(_ key: Int64) -> Int64 {
            key & ((1 << 53) - 1)
        }

        public init(index: Int, id: Int64, path: Data, column: Int, frame: Rect, version: String? = nil, url: String? = nil,
                    title: String? = nil, kind: LayoutAttributes.Kind = .cell, section: Int = 0, sectionTitle: Data? = nil,
                    sectionCount: Int? = nil, effect: CarouselEffect? = nil) {
            self.index = index
            self.id = id
            self.path = path
            self.column = column
            self.frame = frame
            self.version = version
            self.url = url
            self.title = title
            self.kind = kind
            self.section = section
            self.sectionTitle = sectionTitle
            self.sectionCount = sectionCount
            self.effect = effect
        }
    }

    public var contentHeight: Double
    /// The layout's width; a carousel's content width (its scroll axis).
    public var contentWidth: Double
    public var generation: Int64
    /// The band shown: x 0 and the layout's width; a carousel's: y 0, its offset along x, the
    /// viewport's width and height.
    public var viewport: Rect
    public var items: [Item]
    /// The offset of the next screen (along x in a carousel), or nil at the end. A page of no
    /// height (`height=0`, a rectangle of no height) has neither a next nor a previous one:
    /// they would be its own offset, and a client that follows them would never move.
    public var next: Double?
    /// The offset of the previous screen, or nil at the top.
    public var previous: Double?
    /// Items in the catalog (0: the catalog is empty).
    public var itemCount: Int
    /// How the layout was obtained: read from storage, computed, or extended in place.
    public var source: Source

    public enum Source: String, Sendable {
        case stored
        case computed
        case extended
    }
}
