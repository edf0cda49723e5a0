/// Sections, their headers and footers, and full-span items, for any column style
/// (UICollectionViewFlowLayout's sections, headers and footers; the presentation styles'
/// mixed grid). See <doc:SectionsHeadersAndSpans> for the rules with a diagram.
///
/// ```swift
/// let sectioning = Sectioning(headerHeight: 32, spanEvery: 4, spanHeight: .fixed(112))
/// let starts = [SectionStart(offset: 0, key: 2024_03), SectionStart(offset: 120, key: 2024_02)]
/// let layout = try Layout(items: items, sections: starts, sectioning: sectioning,
///                         style: GridLayout(width: 375, columns: 3))
/// let page = layout.items(in: 4000..<4812, pinningHeaders: true)
/// ```
public struct Sectioning: Sendable, Hashable {
    /// How tall a full-span item is.
    public enum SpanHeight: Sendable, Hashable {
        /// The same height for every full-span item.
        case fixed(Double)
        /// Content width × display height / display width, plus `extra`.
        case aspectRatio(extra: Double)
    }

    /// Height of every section's header, at the section's top; 0: no headers.
    public var headerHeight: Double
    /// Height of every section's footer, below its items; 0: no footers.
    public var footerHeight: Double
    /// Between one section's end and the next one's top.
    public var sectionSpacing: Double
    /// Items at positions 0, N, 2N... of each section span the full content width; 0: none.
    public var spanEvery: Int
    public var spanHeight: SpanHeight

    public init(headerHeight: Double = 0, footerHeight: Double = 0, sectionSpacing: Double = 16, spanEvery: Int = 0,
                spanHeight: SpanHeight = .aspectRatio(extra: 0)) {
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.sectionSpacing = sectionSpacing
        self.spanEvery = spanEvery
        self.spanHeight = spanHeight
    }

    /// Checks every value: heights and spacing zero or more and finite, a fixed span height
    /// positive, spanEvery zero or more.
    public func validate() throws(LayoutError) {
        for (name, value) in [("header height", headerHeight), ("footer height", footerHeight), ("section spacing", sectionSpacing)] {
            guard value.isFinite, value >= 0 else { throw .invalidSpacing(name: name, value: value) }
        }
        guard spanEvery >= 0 else { throw .invalidSpanInterval(spanEvery) }
        switch spanHeight {
        case .fixed(let height): guard height.isFinite, height > 0 else { throw .invalidHeight(name: "span height", value: height) }
        case .aspectRatio(let extra): guard extra.isFinite, extra >= 0 else { throw .invalidSpacing(name: "span extra height", value: extra) }
        }
    }
}

/// Where a section begins among the items given to a layout: the offset of its first item,
/// and the key that names it (a date, a folder's hash: what the caller groups by). Consecutive
/// starts have different keys; a first start at offset 0 whose key is the layout's last
/// section's continues that section (an append to the same month).
public struct SectionStart: Sendable, Hashable {
    public var offset: Int
    public var key: UInt64

    public init(offset: Int, key: UInt64) {
        self.offset = offset
        self.key = key
    }

    /// The starts of runs of equal keys, one key per item: `[a, a, b, b, b, a]` gives
    /// offsets 0, 2 and 5.
    public static func runs(of keys: some Collection<UInt64>) -> [SectionStart] {
        var starts: [SectionStart] = []
        var previous: UInt64?
        for (offset, key) in keys.enumerated() where key != previous {
            starts.append(SectionStart(offset: offset, key: key))
            previous = key
        }
        return starts
    }
}

/// One section of a computed layout, as a date scrubber needs it.
public struct SectionInfo: Sendable, Hashable {
    public var index: Int
    public var key: UInt64
    /// The index of its first item, and how many it has.
    public var firstItem: Int
    public var itemCount: Int
    /// Its top (the header's y), the bottom of its items, and its end (the footer's bottom, or
    /// the items' bottom).
    public var top: Double
    public var itemBottom: Double
    public var end: Double
    /// Its header's height (0: none).
    public var headerHeight: Double

    public init(index: Int, key: UInt64, firstItem: Int, itemCount: Int, top: Double, itemBottom: Double, end: Double,
                headerHeight: Double) {
        self.index = index
        self.key = key
        self.firstItem = firstItem
        self.itemCount = itemCount
        self.top = top
        self.itemBottom = itemBottom
        self.end = end
        self.headerHeight = headerHeight
    }
}
