/// A width and a height in points. `Double` throughout: at ten million items a content
/// height passes 10^9 points, where `Float` can no longer tell neighbouring points apart.
public struct Size: Sendable, Hashable {
    public var width: Double
    public var height: Double

    @inlinable
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// An axis-aligned rectangle: origin at its top-left corner, y growing downwards.
public struct Rect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var minY: Double { y }
    public var maxY: Double { y + height }

    /// Whether this rectangle overlaps the band `y0..<y1` by a positive height.
    public func overlaps(_ band: Range<Double>) -> Bool {
        y < band.upperBound && y + height > band.lowerBound
    }
}

/// Space kept free around the content, in points.
public struct Insets: Sendable, Hashable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same inset on all four sides.
    public init(all value: Double) {
        self.init(top: value, left: value, bottom: value, right: value)
    }
}

/// The visible part of the content: a band of `height` points starting at offset `y`.
public struct Viewport: Sendable, Hashable {
    public var y: Double
    public var height: Double

    public init(y: Double, height: Double) {
        self.y = y
        self.height = height
    }

    /// The band `y ..< y + height` (a negative or NaN height: empty). A y that is not a number,
    /// and a y of −∞ with an infinite height (whose end is not a number), give the empty band
    /// at 0, which meets nothing.
    var band: Range<Double> {
        let end = y + max(0, height)
        guard end >= y else { return 0..<0 } // false for NaN
        return y..<end
    }
}
