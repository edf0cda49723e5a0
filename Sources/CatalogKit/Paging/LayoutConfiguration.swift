public import CatalogLayout
public import CatalogModel

/// Everything that decides a layout: its style, the style's parameters, and the item order.
/// Its `key` names the stored layout. Build it from parameters with
/// `init(parameters:)` (which validates every value) or `init(key:)`.
public struct LayoutConfiguration: Sendable, Hashable {
    public enum Style: String, Sendable, CaseIterable {
        case waterfall
        case grid
        case list
        /// The presentation styles' mixed grid: square cells in 3 columns, every 4th item
        /// across the width, 112 points tall (its own defaults; every option overrides them).
        case mixed
        /// Justified rows (Flickr, Google Photos): rows of `rowHeight` or so, filling the width.
        case justified
        /// One row scrolling sideways, items `itemHeight` tall; offsets and bands run along x.
        case carousel
    }

    /// What groups items into sections (`none`: one section without a header).
    public enum Sections: String, Sendable, CaseIterable {
        case none
        case year
        case month
        case folder

        var grouping: SectionGrouping? {
            switch self {
            case .none: nil
            case .year: .year
            case .month: .month
            case .folder: .folder
            }
        }
    }

    /// A full-span item's height.
    public enum SpanHeight: Sendable, Hashable {
        /// From its aspect ratio at the full content width, plus the extra height.
        case auto
        case fixed(Double)
    }

    public var style: Style = .waterfall
    public var width: Double
    public var columns = 2
    public var columnSpacing = 8.0
    public var rowSpacing = 8.0
    public var insets = Insets(all: 8)
    public var extraHeight = 0.0
    public var direction = RenderDirection.shortestFirst
    public var order = ItemOrder.date
    public var windowHeight = 2048.0
    public var sections = Sections.none
    /// With sections: each section's header height (0: none), footer height, and the space
    /// between sections.
    public var headerHeight = 0.0
    public var footerHeight = 0.0
    public var sectionSpacing = 16.0
    /// Items at 0, N, 2N... of each section span the full width (0: none).
    public var spanEvery = 0
    public var spanHeight = SpanHeight.auto
    /// Justified rows' target height.
    public var rowHeight = 180.0
    /// The carousel's item height.
    public var itemHeight = 300.0

    public init(width: Double) {
        self.width = width
    }

    /// The canonical text of the configuration: equal configurations have equal keys.
    public var key: String {
        let i = insets
        var parts = ["\(style.rawValue)", "width=\(width)"]
        switch style {
        case .waterfall:
            parts += ["cols=\(columns)", "column-spacing=\(columnSpacing)", "row-spacing=\(rowSpacing)",
                      "extra-height=\(extraHeight)", "direction=\(direction.rawValue)"]
        case .grid:
            parts += ["cols=\(columns)", "column-spacing=\(columnSpacing)", "row-spacing=\(rowSpacing)", "cell=width"]
        case .list:
            parts += ["row-spacing=\(rowSpacing)", "extra-height=\(extraHeight)"]
        case .mixed:
            parts += ["cols=\(columns)", "column-spacing=\(columnSpacing)", "row-spacing=\(rowSpacing)", "cell=width"]
        case .justified:
            parts += ["row-height=\(rowHeight)", "column-spacing=\(columnSpacing)", "row-spacing=\(rowSpacing)"]
        case .carousel:
            // A carousel does not depend on the viewport's width: one stored layout serves every one.
            parts = ["carousel", "item-height=\(itemHeight)", "column-spacing=\(columnSpacing)"]
        }
        parts += ["inset=\(i.top),\(i.left),\(i.bottom),\(i.right)", "sort=\(order.rawValue)", "window=\(windowHeight)"]
        // Only layouts with sections or spans name them: the keys of plain layouts stored
        // before sections existed stay what they were.
        if sections != .none {
            parts += ["sections=\(sections.rawValue)", "header-height=\(headerHeight)", "footer-height=\(footerHeight)",
                      "section-spacing=\(sectionSpacing)"]
        }
        if spanEvery > 0 || style == .mixed {
            let height = switch spanHeight {
            case .auto: "auto"
            case .fixed(let height): "\(height)"
            }
            parts += ["span-every=\(spanEvery)", "span-height=\(height)"]
            // An automatic span's height adds the extra height, which the grid's own part leaves out.
            if spanHeight == .auto, style == .grid || style == .mixed { parts.append("extra-height=\(extraHeight)") }
        }
        return parts.joined(separator: " ")
    }

    /// Whether the layout has sections or full-span items (stored in archive format 2).
    var isSectioned: Bool { sections != .none || spanEvery > 0 }

    /// Headers, footers and spans as the layout engine takes them.
    var sectioning: Sectioning {
        let span: Sectioning.SpanHeight = switch spanHeight {
        case .auto: .aspectRatio(extra: extraHeight)
        case .fixed(let height): .fixed(height)
        }
        return Sectioning(headerHeight: headerHeight, footerHeight: footerHeight, sectionSpacing: sectionSpacing, spanEvery: spanEvery,
                          spanHeight: span)
    }

    /// Checks the parameters; the error says which one and why.
    public func validate() throws(LayoutError) {
        _ = try geometry()
    }

    func geometry() throws(LayoutError) -> ColumnGeometry {
        if isSectioned { try sectioning.validate() }
        switch style {
        case .waterfall: return try waterfall.makeGeometry()
        case .grid, .mixed: return try grid.makeGeometry()
        case .list: return try list.makeGeometry()
        case .justified:
            try justified.validate()
            return try ColumnGeometry(width: width, columns: 1, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets)
        case .carousel:
            try carousel.validate()
            return try ColumnGeometry(width: insets.left + insets.right + 1, columns: 1, columnSpacing: columnSpacing, rowSpacing: 0, insets: insets)
        }
    }

    var justified: JustifiedLayout {
        JustifiedLayout(width: width, rowHeight: rowHeight, spacing: columnSpacing, rowSpacing: rowSpacing, insets: insets)
    }

    var carousel: CarouselLayout { CarouselLayout(itemHeight: itemHeight, spacing: columnSpacing, insets: insets) }

    /// Whether offsets, bands and content run along x.
    public var isHorizontal: Bool { style == .carousel }

    /// The content's size across its scroll axis: a carousel's height (its row and its insets),
    /// any other layout's width.
    public var crossLength: Double { isHorizontal ? insets.top + itemHeight + insets.bottom : width }

    /// The content's height and width for a layout `scrollLength` long along its scroll axis
    /// (a stored layout's `contentHeight`, which is a carousel's width).
    public func contentSize(scrollLength: Double) -> (height: Double, width: Double) {
        isHorizontal ? (crossLength, scrollLength) : (scrollLength, width)
    }

    var waterfall: WaterfallLayout {
        WaterfallLayout(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets,
                        extraHeight: extraHeight, direction: direction)
    }

    var grid: GridLayout {
        GridLayout(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets, cellHeight: .ratio(1))
    }

    var list: ListLayout {
        ListLayout(width: width, rowSpacing: rowSpacing, insets: insets, rowHeight: .aspectRatio(extra: extraHeight))
    }

    /// Lays out `items` from scratch; a layout with sections begins one at each of `starts`
    /// (nil: one section, for spans without sections).
    func compute(_ items: [LayoutItem], sections starts: [SectionStart]?) throws -> any LayoutTable {
        try compute { _, take in try take(items, starts) }
    }

    /// Lays out from scratch the items that `pieces` hands to `take` a piece at a time, in
    /// order, each with the sections that begin in it (offsets into the piece; nil: the last
    /// section goes on, or one section for spans without sections). Telling `reserve` how
    /// many items there are in all first sizes the table once. The table equals that of every
    /// item at once, without an array of every item. After each piece, `settled` (if given)
    /// sees the table so far, for a plain column layout (`storesWhileComputing`): its
    /// `settledWindowCount` windows are final.
    package func compute(pieces: (_ reserve: (Int) -> Void, _ take: ([LayoutItem], [SectionStart]?) throws -> Void) throws -> Void,
                         settled: ((PlacementTable) throws -> Void)? = nil) throws -> any LayoutTable {
        /// Hands the pieces to `take`, having `reserve` room for all the items first when they
        /// come in more than one piece (a single piece's arrays are taken whole, not copied).
        func feed(reserve: (Int) -> Void, _ take: ([LayoutItem], [SectionStart]?) throws -> Void) throws {
            var total = 0
            var reserved = false
            try withoutActuallyEscaping(reserve) { reserve in
                try withoutActuallyEscaping(take) { take in
                    try pieces({ total = $0 }) { items, starts in
                        if !reserved, !items.isEmpty {
                            reserved = true
                            if items.count < total { reserve(total) }
                        }
                        try take(items, starts)
                    }
                }
            }
        }
        func computed<Style: LayoutStyle>(_ style: Style) throws -> PlacementTable {
            var layout = isSectioned
                ? try Layout(items: [], sections: [], sectioning: sectioning, style: style, windowHeight: windowHeight)
                : try Layout(items: [], style: style, windowHeight: windowHeight)
            try feed(reserve: { layout.reserveCapacity($0) }) { items, starts in
                if let starts, isSectioned { try layout.append(items, sections: starts) } else { try layout.append(items) }
                if !isSectioned { try settled?(layout.table) }
            }
            return layout.table
        }
        switch style {
        case .waterfall: return try computed(waterfall)
        case .grid, .mixed: return try computed(grid)
        case .list: return try computed(list)
        case .justified:
            let sectioned = sections != .none
            var rows = try RowTable(items: [], style: justified, sections: sectioned ? [] : nil, sectioning: sectioned ? sectioning : nil,
                                    windowHeight: windowHeight)
            try feed(reserve: { rows.reserveCapacity($0) }) { items, starts in try rows.append(items, sections: sectioned ? starts : nil) }
            return rows
        case .carousel:
            var row = try CarouselTable(items: [], style: carousel, windowHeight: windowHeight)
            try feed(reserve: { row.reserveCapacity($0) }) { items, _ in try row.append(items) }
            return row
        }
    }

    /// Where the sections of `count` items from position `first` begin, from the order's
    /// `runs`: the run holding `first` continues into them, later runs start inside them.
    /// `run` is where to look for the run holding `first` (0, or what the call for an earlier
    /// position left), so that a walk through the order in pieces reads each run once.
    package static func sectionStarts(_ runs: [SectionRun], from first: Int, count: Int, run: inout Int) -> [SectionStart] {
        guard !runs.isEmpty, count > 0 else { return [] }
        while run + 1 < runs.count, runs[run + 1].position <= first { run += 1 }
        var starts = [SectionStart(offset: 0, key: runs[run].key)]
        var next = run + 1
        while next < runs.count, runs[next].position < first + count {
            starts.append(SectionStart(offset: runs[next].position - first, key: runs[next].key))
            next += 1
        }
        return starts
    }

    /// Whether a layout computed from scratch can be stored while it is computed (its windows
    /// settle from the top as items are placed): plain column styles.
    package var storesWhileComputing: Bool { relaysOut }

    /// Whether `relayout` can keep part of a stored layout: plain column styles.
    var relaysOut: Bool {
        guard !isSectioned else { return false }
        switch style {
        case .waterfall, .grid, .mixed, .list: return true
        case .justified, .carousel: return false
        }
    }

    /// The stored table with its items from `index` on laid out again as `items`: from the
    /// checkpoint at or before `index` (every 1,024 items), not from the start. nil for the
    /// styles and options that are computed again whole (rows, the carousel, sections, spans).
    func relayout(_ table: any LayoutTable, from index: Int, with items: [LayoutItem]) throws(LayoutError) -> (any LayoutTable)? {
        func relaid<Style: LayoutStyle>(_ style: Style) throws(LayoutError) -> PlacementTable {
            guard let table = table as? PlacementTable else { throw .geometryMismatch }
            var layout = try Layout(table: table, style: style)
            try layout.remove(index..<layout.count)
            try layout.append(items)
            return layout.table
        }
        guard relaysOut else { return nil }
        switch style {
        case .waterfall: return try relaid(waterfall)
        case .grid, .mixed: return try relaid(grid)
        case .list: return try relaid(list)
        case .justified, .carousel: return nil
        }
    }

    /// Places `items` after those of `table` (a stored layout of this configuration), in
    /// sections beginning at `starts` (offsets into `items`) when it has them.
    func extend(_ table: any LayoutTable, with items: [LayoutItem], sections starts: [SectionStart]?) throws(LayoutError) -> any LayoutTable {
        func extended<Style: LayoutStyle>(_ style: Style) throws(LayoutError) -> PlacementTable {
            guard let table = table as? PlacementTable else { throw .geometryMismatch }
            var layout = try Layout(table: table, style: style)
            if let starts, isSectioned { try layout.append(items, sections: starts) } else { try layout.append(items) }
            return layout.table
        }
        switch style {
        case .waterfall: return try extended(waterfall)
        case .grid, .mixed: return try extended(grid)
        case .list: return try extended(list)
        case .justified:
            guard var rows = table as? RowTable, rows.style == justified else { throw .geometryMismatch }
            try rows.append(items, sections: sections == .none ? nil : starts)
            return rows
        case .carousel:
            guard var row = table as? CarouselTable, row.style == carousel else { throw .geometryMismatch }
            try row.append(items)
            return row
        }
    }
}
