/// A computed layout of justified rows (``JustifiedLayout``): the items' ids and aspect
/// ratios, and the stripes stacked down the content: rows (each its first item, y and height)
/// and, with sections, headers and footers. An item's x and width follow from its row: x from
/// the left inset, width = aspect × the row's height, x of the next = (x + width) + spacing,
/// the arithmetic that placed them, so decoded frames equal computed ones bit for bit.
///
/// Invariants: stripes are sorted by y and do not overlap; `windowStarts[k]` is the first
/// stripe whose bottom lies below window k's top; rows hold consecutive items, in order.
public struct RowTable: Sendable {
    public let style: JustifiedLayout
    public let windowHeight: Double
    /// Headers, footers and the spacing between sections (no full-span items in rows); nil
    /// for a layout without sections.
    public let sectioning: Sectioning?

    package var ids: [Int64] = []
    package var aspects: [Double] = []
    // Stripes, top to bottom.
    package var stripeKinds: [LayoutAttributes.Kind] = [] // .cell: a row
    /// A row's first item; a header's or footer's section.
    package var stripeRefs: [Int] = []
    package var stripeYs: [Double] = []
    package var stripeHeights: [Double] = []
    /// Each row's stripe, and its first item (ascending: an item's row by binary search).
    package var rowStripes: [Int] = []
    package var rowFirsts: [Int] = []
    // Sections, as in column layouts: first item, key, top, items' bottom, end.
    package var sectionStarts: [Int] = []
    package var sectionKeys: [UInt64] = []
    package var sectionTops: [Double] = []
    package var sectionItemBottoms: [Double] = []
    package var sectionEnds: [Double] = []
    /// Whether the last row never reached the target height (so an append re-flows it).
    package var lastRowOpen = false
    /// The items the layout will hold when it is computed in pieces (`reserveCapacity`): the
    /// window bound (``windowLimit``) counts them from the first piece on, and never the
    /// arrays' capacity, which the allocator rounds and growth doubles.
    package var plannedCount = 0
    package var windowStarts: [Int32] = []

    /// An empty layout; `append(_:sections:)` fills it.
    public init(style: JustifiedLayout, windowHeight: Double = 2048, sectioning: Sectioning? = nil) throws(LayoutError) {
        try style.validate()
        guard windowHeight.isFinite, windowHeight > 0 else { throw .invalidHeight(name: "window height", value: windowHeight) }
        if let sectioning {
            try sectioning.validate()
            guard sectioning.spanEvery == 0 else { throw .invalidSections("full-span items belong to column styles, not justified rows") }
        }
        self.style = style
        self.windowHeight = windowHeight
        self.sectioning = sectioning
    }

    public var count: Int { ids.count }
    public var windowCount: Int { windowStarts.count }

    /// Where the content ends before the bottom inset.
    var contentBottom: Double {
        if sectioning != nil { return sectionEnds.last ?? 0 }
        return stripeYs.last.map { $0 + stripeHeights[stripeHeights.count - 1] } ?? 0
    }

    public var contentHeight: Double {
        let bottom = sectioning != nil ? sectionEnds.last : stripeYs.last.map { $0 + stripeHeights[stripeHeights.count - 1] }
        return (bottom ?? style.insets.top) + style.insets.bottom
    }

    /// The row holding item `index`.
    func row(ofItem index: Int) -> Int { lastPosition(atOrBelow: index, in: rowFirsts) ?? 0 }

    func section(ofItem index: Int) -> Int { lastPosition(atOrBelow: index, in: sectionStarts) ?? 0 }

    /// The attributes of item `index`: its row's y and height, its x from the row's start.
    /// `index` must be in `0..<count`: like an array's subscript, another index traps.
    public func attributes(at index: Int) -> LayoutAttributes {
        let row = self.row(ofItem: index)
        let stripe = rowStripes[row]
        var x = style.insets.left
        let height = stripeHeights[stripe]
        for item in rowFirsts[row]..<index { x = (x + aspects[item] * height) + style.spacing }
        return LayoutAttributes(index: index, id: ids[index], frame: Rect(x: x, y: stripeYs[stripe], width: aspects[index] * height, height: height),
                                column: 0, section: sectioning == nil ? 0 : section(ofItem: index))
    }

    /// Cells, headers and footers meeting `band`, in layout order; with `pinningHeaders` the
    /// header of the section the band starts in held at its top. O(log S + k). A band past the
    /// content, however far (1e300, infinity), meets nothing.
    public func items(in band: Range<Double>, pinningHeaders: Bool = false) -> [LayoutAttributes] {
        guard !band.isEmpty, band.upperBound > 0, count > 0 else { return [] }
        let (lower, upper) = (band.lowerBound, band.upperBound)
        var result: [LayoutAttributes] = []
        // Clamped before converting: a band far past the end (1e300) must not trap in Int(_:).
        let first = lower <= 0 ? 0 : Int(min(Double(windowCount), (lower / windowHeight).rounded(.down)))
        if first < windowCount {
            var stripe = Int(windowStarts[first])
            var section = -1
            while stripe < stripeYs.count, stripeYs[stripe] < upper {
                let y = stripeYs[stripe], height = stripeHeights[stripe]
                defer { stripe += 1 }
                guard y + height > lower else { continue }
                let ref = stripeRefs[stripe]
                switch stripeKinds[stripe] {
                case .cell:
                    let end = ref == rowFirsts.last ? count : rowFirsts[row(ofItem: ref) + 1]
                    if sectioning != nil {
                        if section < 0 { section = self.section(ofItem: ref) }
                        while section + 1 < sectionStarts.count, sectionStarts[section + 1] <= ref { section += 1 }
                    }
                    var x = style.insets.left
                    for item in ref..<end {
                        let width = aspects[item] * height
                        result.append(LayoutAttributes(index: item, id: ids[item], frame: Rect(x: x, y: y, width: width, height: height), column: 0,
                                                       section: max(0, section)))
                        x = (x + width) + style.spacing
                    }
                case let kind:
                    result.append(LayoutAttributes(index: ref, id: Int64(bitPattern: sectionKeys[ref]),
                                                   frame: Rect(x: style.insets.left, y: y, width: style.contentWidth, height: height),
                                                   column: 0, kind: kind, section: ref))
                }
            }
        }
        if pinningHeaders, let sectioning, sectioning.headerHeight > 0, let section = lastPosition(atOrBelow: lower, in: sectionTops),
           section < sectionItemBottoms.count, lower < sectionItemBottoms[section] {
            let y = min(max(sectionTops[section], lower), sectionItemBottoms[section] - sectioning.headerHeight)
            let header = LayoutAttributes(index: section, id: Int64(bitPattern: sectionKeys[section]),
                                          frame: Rect(x: style.insets.left, y: y, width: style.contentWidth, height: sectioning.headerHeight),
                                          column: 0, kind: .header, section: section)
            if let at = result.firstIndex(where: { $0.kind == .header && $0.section == section }) {
                result[at] = header
            } else {
                // Before the section's first placement on the page.
                let at = result.firstIndex { $0.section >= section } ?? result.count
                result.insert(header, at: at)
            }
        }
        return result
    }

    /// The offset that puts item `index`'s top at the top of a viewport `viewportHeight` tall,
    /// clamped to the content. `index` must be in `0..<count`, as in ``attributes(at:)``.
    public func scrollOffset(toItem index: Int, viewportHeight: Double) -> Double {
        min(max(0, attributes(at: index).frame.y), max(0, contentHeight - max(0, viewportHeight)))
    }

    /// Every section (empty without sections: the one section the rows are kept in then is
    /// not shown).
    public var sectionInfos: [SectionInfo] {
        guard sectioning != nil else { return [] }
        return sectionStarts.indices.map { section in
            let next = section + 1 < sectionStarts.count ? sectionStarts[section + 1] : count
            return SectionInfo(index: section, key: sectionKeys[section], firstItem: sectionStarts[section],
                               itemCount: next - sectionStarts[section], top: sectionTops[section], itemBottom: sectionItemBottoms[section],
                               end: sectionEnds[section], headerHeight: sectioning?.headerHeight ?? 0)
        }
    }

    /// Recomputes window starts from window `first` to the end of the content.
    mutating func rebuildWindows(from first: Int) {
        var needed = max(0, Int((contentBottom / windowHeight).rounded(.down)))
        while Double(needed) * windowHeight < contentBottom { needed += 1 }
        if count == 0 && stripeYs.isEmpty { needed = 0 }
        let first = min(first, windowStarts.count, needed)
        windowStarts.removeSubrange(first...)
        var stripe = first == 0 ? 0 : Int(windowStarts[first - 1])
        for window in first..<needed {
            let top = Double(window) * windowHeight
            while stripe < stripeYs.count, stripeYs[stripe] + stripeHeights[stripe] <= top { stripe += 1 }
            windowStarts.append(Int32(truncatingIfNeeded: stripe))
        }
    }
}
