/// The carousel (the animated gallery seed: XBGalleryLayout): one row that scrolls sideways.
/// Items are `itemHeight` tall and as wide as their aspect ratio makes them, from the left
/// inset, `spacing` apart: x₀ = left, x_{i+1} = (x_i + width_i) + spacing; y is the top inset.
/// The content is (last item's right + right inset) wide and top + itemHeight + bottom tall.
///
/// The scroll axis is x: bands, windows and queries run along it. What depends on where the
/// viewport is (each item's scale, alpha and stacking order) is computed at query time by
/// ``CarouselTable/effects(of:viewportX:viewportWidth:falloff:minimumScale:minimumAlpha:)``,
/// never stored; snapping by ``CarouselTable/snap(proposed:velocity:viewportWidth:)``.
public struct CarouselLayout: Sendable, Hashable {
    public var itemHeight: Double
    public var spacing: Double
    public var insets: Insets

    public init(itemHeight: Double = 300, spacing: Double = 8, insets: Insets = Insets(all: 8)) {
        self.itemHeight = itemHeight
        self.spacing = spacing
        self.insets = insets
    }

    public func validate() throws(LayoutError) {
        guard itemHeight.isFinite, itemHeight > 0 else { throw .invalidHeight(name: "item height", value: itemHeight) }
        for (name, value) in [("spacing", spacing), ("top inset", insets.top), ("left inset", insets.left), ("bottom inset", insets.bottom),
                              ("right inset", insets.right)] {
            guard value.isFinite, value >= 0 else { throw .invalidSpacing(name: name, value: value) }
        }
    }
}

/// A computed carousel: every item's id, x and width, with windows along x.
public struct CarouselTable: Sendable {
    public let style: CarouselLayout
    /// Width of one pagination window, in points along x.
    public let windowHeight: Double

    package var ids: [Int64] = []
    package var aspects: [Double] = []
    package var xs: [Double] = []
    /// `windowStarts[k]`: the first item whose right edge lies past window k's left edge.
    package var windowStarts: [Int32] = []
    /// The items the layout will hold when it is computed in pieces (`reserveCapacity`): the
    /// window bound (``windowLimit``) counts them from the first piece on, and never the
    /// arrays' capacity, which the allocator rounds and growth doubles.
    package var plannedCount = 0

    public init(style: CarouselLayout, windowHeight: Double = 2048) throws(LayoutError) {
        try style.validate()
        guard windowHeight.isFinite, windowHeight > 0 else { throw .invalidHeight(name: "window width", value: windowHeight) }
        self.style = style
        self.windowHeight = windowHeight
    }

    public var count: Int { ids.count }
    public var windowCount: Int { windowStarts.count }

    func width(_ index: Int) -> Double { aspects[index] * style.itemHeight }

    /// The right edge of the last item (0 without items: ``contentWidth`` takes the left inset then).
    var contentRight: Double { ids.isEmpty ? 0 : xs[count - 1] + width(count - 1) }

    /// Along the scroll axis: the last item's right plus the right inset.
    public var contentWidth: Double { (ids.isEmpty ? style.insets.left : contentRight) + style.insets.right }
    public var contentHeight: Double { style.insets.top + style.itemHeight + style.insets.bottom }

    /// The attributes of item `index`, which must be in `0..<count`: like an array's
    /// subscript, another index traps.
    public func attributes(at index: Int) -> LayoutAttributes {
        LayoutAttributes(index: index, id: ids[index], frame: Rect(x: xs[index], y: style.insets.top, width: width(index), height: style.itemHeight),
                         column: 0)
    }

    /// Lays out `items` left to right.
    public init(items: [LayoutItem], style: CarouselLayout, windowHeight: Double = 2048) throws(LayoutError) {
        try self.init(style: style, windowHeight: windowHeight)
        try append(items)
    }

    /// Makes room for `count` items in all, so that appending them a piece at a time never
    /// copies the items' arrays.
    public mutating func reserveCapacity(_ count: Int) {
        plannedCount = max(plannedCount, count)
        reserveItems(count)
    }

    private mutating func reserveItems(_ count: Int) {
        ids.reserveAdvisedCapacity(count)
        aspects.reserveAdvisedCapacity(count)
        xs.reserveAdvisedCapacity(count)
    }

    /// Places `items` after the existing ones: O(m). Throws
    /// ``LayoutError/invalidItemSize(index:size:)`` for a size that is not positive and finite,
    /// and ``LayoutError/tooManyWindows(limit:windowHeight:carousel:)`` when the content would reach past
    /// the windows the layout may have (4 for each item or 65,536, whichever is more), leaving
    /// the table as it was.
    public mutating func append(_ items: [LayoutItem]) throws(LayoutError) {
        let firstIndex = count
        if let offset = try place(items) { throw .invalidItemSize(index: firstIndex + offset, size: items[offset].size) }
    }

    /// The same, returning the offset of an item whose size is refused.
    package mutating func place(_ items: [LayoutItem]) throws(LayoutError) -> Int? {
        if let refused = items.firstIndex(where: {
            let aspect = $0.size.width / $0.size.height
            return !($0.size.width > 0 && $0.size.height > 0 && $0.size.width < .infinity && $0.size.height < .infinity
                     && aspect * style.itemHeight > 0 && aspect * style.itemHeight < .infinity)
        }) { return refused }
        var reach = ids.isEmpty ? style.insets.left : contentRight
        for item in items { reach += style.spacing + item.size.width / item.size.height * style.itemHeight }
        let limit = windowLimit(items: max(count + items.count, plannedCount), lists: 1)
        guard reach <= windowHeight * Double(limit) else { throw .tooManyWindows(limit: limit, windowHeight: windowHeight, carousel: true) }
        let firstChanged = ids.isEmpty ? 0 : Int((xs[count - 1] / windowHeight).rounded(.down))
        var x = ids.isEmpty ? style.insets.left : (contentRight + style.spacing)
        // Geometric growth, as the standard library's, into advised memory.
        if ids.capacity < count + items.count { reserveItems(max(count + items.count, ids.capacity * 2)) }
        for item in items {
            let aspect = item.size.width / item.size.height
            ids.append(item.id)
            aspects.append(aspect)
            xs.append(x)
            x = (x + aspect * style.itemHeight) + style.spacing
        }
        rebuildWindows(from: firstChanged)
        return nil
    }

    mutating func rebuildWindows(from first: Int) {
        let right = contentRight
        var needed = ids.isEmpty ? 0 : max(0, Int((right / windowHeight).rounded(.down)))
        while !ids.isEmpty, Double(needed) * windowHeight < right { needed += 1 }
        let first = min(first, windowStarts.count, needed)
        windowStarts.removeSubrange(first...)
        var item = first == 0 ? 0 : Int(windowStarts[first - 1])
        for window in first..<needed {
            let left = Double(window) * windowHeight
            while item < count, xs[item] + width(item) <= left { item += 1 }
            windowStarts.append(Int32(truncatingIfNeeded: item))
        }
    }

    /// The items whose frames meet `band` along x by a positive width, in order. O(1 + k).
    public func items(in band: Range<Double>) -> [LayoutAttributes] {
        guard !band.isEmpty, band.upperBound > 0, count > 0 else { return [] }
        let first = band.lowerBound <= 0 ? 0 : Int(min(Double(windowCount), (band.lowerBound / windowHeight).rounded(.down)))
        guard first < windowCount else { return [] }
        var result: [LayoutAttributes] = []
        var item = Int(windowStarts[first])
        while item < count, xs[item] < band.upperBound {
            if xs[item] + width(item) > band.lowerBound { result.append(attributes(at: item)) }
            item += 1
        }
        return result
    }

    /// The offset that puts item `index`'s left edge at the viewport's left, clamped. `index`
    /// must be in `0..<count`, as in ``attributes(at:)``.
    public func scrollOffset(toItem index: Int, viewportWidth: Double) -> Double {
        min(max(0, xs[index]), max(0, contentWidth - max(0, viewportWidth)))
    }
}

/// How a carousel item is drawn at one viewport position.
public struct CarouselEffect: Sendable, Hashable {
    public var scale: Double
    public var alpha: Double
    /// Larger for items nearer the viewport's centre (ties: the lower index is above).
    public var zIndex: Int

    public init(scale: Double, alpha: Double, zIndex: Int) {
        self.scale = scale
        self.alpha = alpha
        self.zIndex = zIndex
    }
}

extension CarouselTable {
    /// Scale, alpha and stacking order of `items` (frames of this carousel) for a viewport at
    /// `viewportX`, `viewportWidth` wide: with d the distance of an item's centre to the
    /// viewport's and t = min(1, d / falloff), scale = 1 − (1 − minimumScale) × t and
    /// alpha = 1 − (1 − minimumAlpha) × t; zIndex counts down from the nearest item.
    /// `minimumScale` and `minimumAlpha` are taken within 0...1 (so scale and alpha are too), and
    /// a `falloff` of 0 or less scales every item off the centre down to the minimum.
    public static func effects(of items: [LayoutAttributes], viewportX: Double, viewportWidth: Double, falloff: Double,
                               minimumScale: Double, minimumAlpha: Double) -> [CarouselEffect] {
        let (minimumScale, minimumAlpha) = (min(1, max(0, minimumScale)), min(1, max(0, minimumAlpha)))
        let centre = viewportX + viewportWidth / 2
        let distances = items.map { abs($0.frame.x + $0.frame.width / 2 - centre) }
        let nearestFirst = items.indices.sorted { distances[$0] < distances[$1] || (distances[$0] == distances[$1] && items[$0].index < items[$1].index) }
        var ranks = [Int](repeating: 0, count: items.count)
        for (rank, position) in nearestFirst.enumerated() { ranks[position] = rank }
        return items.indices.map { position in
            let t = falloff > 0 ? min(1, distances[position] / falloff) : (distances[position] > 0 ? 1 : 0)
            return CarouselEffect(scale: 1 - (1 - minimumScale) * t, alpha: 1 - (1 - minimumAlpha) * t, zIndex: items.count - ranks[position])
        }
    }

    /// Where a fling proposed to stop at `proposed` should stop so that one item is centred
    /// (UICollectionViewLayout's targetContentOffset(forProposedContentOffset:withScrollingVelocity:)):
    /// without velocity, the item whose centre is nearest to proposed + viewportWidth / 2 (ties:
    /// the lower index); with one, the nearest whose centre is at or beyond that point in the
    /// velocity's direction (the last or first item when none is). The answer is that item's
    /// centre less half the viewport, clamped to the content. O(log n). Nil when empty, and when
    /// `proposed` or `viewportWidth` is not a finite number or the width is negative (a NaN
    /// velocity is no velocity).
    public func snap(proposed: Double, velocity: Double = 0, viewportWidth: Double) -> (offset: Double, index: Int)? {
        guard count > 0, proposed.isFinite, viewportWidth.isFinite, viewportWidth >= 0 else { return nil }
        let target = proposed + viewportWidth / 2
        func centre(_ index: Int) -> Double { xs[index] + width(index) / 2 }
        // The first item whose centre is at or past the target (centres increase with the index).
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if centre(middle) < target { low = middle + 1 } else { high = middle }
        }
        let index: Int
        if velocity > 0 {
            index = min(low, count - 1)
        } else if velocity < 0 {
            // The last item whose centre is at or before the target.
            index = low < count && centre(low) == target ? low : max(0, low - 1)
        } else if low == count {
            index = count - 1
        } else if low == 0 {
            index = 0
        } else {
            index = target - centre(low - 1) <= centre(low) - target ? low - 1 : low
        }
        let offset = min(max(0, centre(index) - viewportWidth / 2), max(0, contentWidth - viewportWidth))
        return (offset, index)
    }
}
