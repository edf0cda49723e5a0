/// A computed layout: every item's frame for one style and its parameters, with pagination
/// windows that answer "what meets this band" without scanning all items.
///
/// ```swift
/// var layout = try Layout(items: items, style: WaterfallLayout(width: 375, columns: 2))
/// let page = layout.items(in: 4000..<4812)          // what a phone screen shows at 4000
/// let top = layout.scrollOffset(toItem: 120, viewportHeight: 812)
/// try layout.append(newItems)                        // continues from the column bottoms
/// ```
///
/// Edits recompute only what follows them: appending places the new items from the current
/// column bottoms; inserting, removing or replacing at index k restarts from the checkpoint
/// of column bottoms at or before k. The result always equals a full recomputation, and an
/// insert or replacement whose items a full layout would refuse (their size, or content past
/// the windows it may have) is refused the same way, leaving the layout as it was.
public struct Layout<Style: LayoutStyle>: Sendable {
    /// The style and parameters the items are placed by.
    public let style: Style
    /// The placed items, their pagination windows and checkpoints: what is stored
    /// (`table.archive()`) and read back (``PlacementTable/init(archive:checkpointInterval:)``,
    /// then ``init(table:style:)``) without placing the items again.
    public private(set) var table: PlacementTable

    /// Lays out `items` in order.
    ///
    /// - Parameters:
    ///   - items: The items, in display order; their sizes must be positive and finite when
    ///     the style's heights follow them.
    ///   - style: The style and its parameters; throws when they cannot work.
    ///   - windowHeight: Height of a pagination window, in points; the default, 2048, is a
    ///     few phone screens. Not positive and finite: ``LayoutError/invalidHeight(name:value:)``.
    ///   - checkpointInterval: Items between two checkpoints of column bottoms: an edit at k
    ///     replays at most this many placements before k. Outside 1 to
    ///     ``PlacementTable/maximumCheckpointInterval``: ``LayoutError/invalidCheckpointInterval(_:)``.
    public init(items: [LayoutItem], style: Style, windowHeight: Double = 2048,
                checkpointInterval: Int = 1024) throws(LayoutError) {
        self.style = style
        try PlacementTable.check(windowHeight: windowHeight, checkpointInterval: checkpointInterval)
        table = PlacementTable(geometry: try style.makeGeometry(), windowHeight: windowHeight,
                               checkpointInterval: checkpointInterval)
        table.placement = style.placement
        try append(items)
    }

    /// Lays out `items` in sections: each begins at one of `starts` (an offset into `items`
    /// and the key that names it) with a header, items placed by the style's own rule inside
    /// it, full-span items and a footer as `sectioning` says.
    ///
    /// - Parameters:
    ///   - items: The items, in display order, as in ``init(items:style:windowHeight:checkpointInterval:)``.
    ///   - starts: Section starts, the first at offset 0, offsets increasing, keys of
    ///     consecutive sections different (``SectionStart/runs(of:)`` makes them from a key
    ///     per item).
    ///   - sectioning: Headers, footers, spacing between sections, full-span items.
    ///   - style: The style of the items within each section; throws when it cannot work.
    ///   - windowHeight: As in ``init(items:style:windowHeight:checkpointInterval:)``.
    public init(items: [LayoutItem], sections starts: [SectionStart], sectioning: Sectioning, style: Style,
                windowHeight: Double = 2048) throws(LayoutError) {
        self.style = style
        try sectioning.validate()
        try PlacementTable.check(windowHeight: windowHeight, checkpointInterval: 1024)
        table = PlacementTable(geometry: try style.makeGeometry(), windowHeight: windowHeight, checkpointInterval: 1024,
                               sectioning: sectioning)
        table.placement = style.placement
        try append(items, sections: starts)
    }

    /// A layout from a table already computed for this style (for example, decoded from
    /// storage). Throws ``LayoutError/geometryMismatch`` when the table's columns are not the
    /// style's, or when a ``Layout`` computed it with a style that places items otherwise (a
    /// grid's table given a waterfall). A table decoded from an archive does not record how
    /// its items were placed: only its columns are compared, and the caller must know the
    /// style it was stored for.
    public init(table: PlacementTable, style: Style) throws(LayoutError) {
        guard try style.makeGeometry() == table.geometry else { throw .geometryMismatch }
        guard table.placement == nil || table.placement == style.placement else { throw .geometryMismatch }
        self.style = style
        self.table = table
        self.table.placement = style.placement
    }

    public var geometry: ColumnGeometry { table.geometry }
    public var count: Int { table.count }
    public var contentHeight: Double { table.contentHeight }

    /// The attributes of item `index`, which must be in `0..<count`: like an array's
    /// subscript, another index traps.
    public func attributes(at index: Int) -> LayoutAttributes { table.attributes(at: index) }
    /// What meets `band`, in layout order: items and, with sections, headers and footers;
    /// `pinningHeaders` holds the header of the section the band starts in at its top. A band
    /// past the content, however far (1e300, infinity), meets nothing.
    public func items(in band: Range<Double>, pinningHeaders: Bool = false) -> [LayoutAttributes] {
        table.items(in: band, pinningHeaders: pinningHeaders)
    }
    /// What meets the viewport's band (see ``Viewport``; one whose y is not a number meets
    /// nothing).
    public func items(in viewport: Viewport, pinningHeaders: Bool = false) -> [LayoutAttributes] {
        table.items(in: viewport.band, pinningHeaders: pinningHeaders)
    }
    /// The offset that puts item `index`'s top at the top of a viewport `viewportHeight`
    /// points tall, clamped so the viewport stays within the content. `index` must be in
    /// `0..<count`: like an array's subscript, another index traps.
    public func scrollOffset(toItem index: Int, viewportHeight: Double) -> Double {
        table.scrollOffset(toItem: index, viewportHeight: viewportHeight)
    }

    /// Makes room for `count` items in all: a layout built by appending pieces of its items
    /// then never copies what it placed (without it, the table's arrays double as they grow).
    public mutating func reserveCapacity(_ count: Int) {
        table.reserveCapacity(count)
    }

    /// Places `items` after the existing ones in O(m). In a layout with sections they
    /// continue its last section.
    public mutating func append(_ items: [LayoutItem]) throws(LayoutError) {
        if table.sections != nil {
            try append(items, sections: items.isEmpty ? [] : [SectionStart(offset: 0, key: table.sections?.keys.last ?? 0)])
            return
        }
        let firstIndex = count
        if let offset = table.append(items, rule: style.placement) {
            throw refusal(items, at: offset, firstIndex: firstIndex)
        }
    }

    /// Places `items` after the existing ones in sections beginning at `starts`; a first
    /// start with the key of the layout's last section continues that section. O(m), plus
    /// the windows the new items reach.
    public mutating func append(_ items: [LayoutItem], sections starts: [SectionStart]) throws(LayoutError) {
        guard table.sections != nil else { throw .invalidSections("this layout has no sections: lay it out with a Sectioning") }
        let firstIndex = count
        if let offset = try table.appendSectioned(items, starts: starts, rule: style.placement) {
            throw refusal(items, at: offset, firstIndex: firstIndex)
        }
    }

    /// Every section, in order (empty without sections).
    public var sections: [SectionInfo] { table.sectionInfos }

    /// Inserts `items` before index `index` (0...count). Throws, and changes nothing, for an
    /// item whose size cannot give a height, or when the content would then reach past the
    /// windows a layout of its items may have (``LayoutError/tooManyWindows(limit:windowHeight:carousel:)``).
    public mutating func insert(_ items: [LayoutItem], at index: Int) throws(LayoutError) {
        guard table.sections == nil else { throw .editRequiresRecomputation }
        guard (0...count).contains(index) else { throw .indexOutOfRange(index: index, count: count) }
        try validate(items, firstIndex: index)
        try rewrite(from: index, removing: 0, with: items)
    }

    /// Removes the items in `range`. A removal is never refused for the windows it leaves.
    public mutating func remove(_ range: Range<Int>) throws(LayoutError) {
        guard table.sections == nil else { throw .editRequiresRecomputation }
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw .indexOutOfRange(index: range.lowerBound < 0 ? range.lowerBound : range.upperBound, count: count)
        }
        try rewrite(from: range.lowerBound, removing: range.count, with: [])
    }

    /// Replaces item `index` (its id, size or both); refused as ``insert(_:at:)`` is.
    public mutating func replace(at index: Int, with item: LayoutItem) throws(LayoutError) {
        guard table.sections == nil else { throw .editRequiresRecomputation }
        guard (0..<count).contains(index) else { throw .indexOutOfRange(index: index, count: count) }
        try validate([item], firstIndex: index)
        try rewrite(from: index, removing: 1, with: [item])
    }

    /// Truncates at `index` (restoring bottoms from a checkpoint), places the new items, then
    /// places the kept tail again with its stored heights. An edit that adds items is held to
    /// the window bound a layout of its items is laid out under: if the content would reach
    /// past it, the items from `index` on are placed again as they were and the edit refused.
    /// A removal is not refused (it leaves fewer items, and a layout that had its windows).
    private mutating func rewrite(from index: Int, removing removed: Int, with inserted: [LayoutItem]) throws(LayoutError) {
        let keptIDs = Array(table.ids[index...])
        let keptHeights = Array(table.heights[index...])
        let tail = removed..<keptIDs.count
        let rule = style.placement
        let newCount = count - removed + inserted.count
        let reach = inserted.isEmpty ? .infinity : table.reach(items: newCount)
        table.truncate(to: index)
        // Validated: an item is refused only for reaching too far.
        if table.append(inserted, rule: rule, reach: reach) == nil,
           table.append(ids: keptIDs[tail], heights: keptHeights[tail], rule: rule, reach: reach) == nil {
            return
        }
        table.truncate(to: index)
        table.append(ids: keptIDs[...], heights: keptHeights[...], rule: rule)
        throw tooManyWindows(items: newCount)
    }

    /// Why the placement stopped at `items[offset]`: its size, or how far the content would reach.
    private func refusal(_ items: [LayoutItem], at offset: Int, firstIndex: Int) -> LayoutError {
        let item = items[offset]
        let sized = item.size.width > 0 && item.size.height > 0 && item.size.width < .infinity && item.size.height < .infinity
        if !sized || table.firstRefused([item], rule: style.placement) != nil {
            return .invalidItemSize(index: firstIndex + offset, size: item.size)
        }
        return tooManyWindows(items: firstIndex + items.count)
    }

    /// The refusal of a layout of `items` items whose content would reach past its windows.
    private func tooManyWindows(items: Int) -> LayoutError {
        .tooManyWindows(limit: windowLimit(items: max(items, table.plannedCount), lists: table.listCount), windowHeight: table.windowHeight)
    }

    private func validate(_ items: [LayoutItem], firstIndex: Int) throws(LayoutError) {
        if let offset = table.firstRefused(items, rule: style.placement) {
            throw .invalidItemSize(index: firstIndex + offset, size: items[offset].size)
        }
    }
}
