/// A width and a height in points. `Double` throughout: at ten million items a content
/// height passes 10^9 points, where `Float` can no longer tell neighbouring points apart.
public struct Size: Sendable, Hashable {
    public var width: Double
    public var height: Double

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
    public var maxX: Double { x + width }

    /// Whether this rectangle overlaps the band `y0..<y1` by a positive height.
    public func overlaps(_ band: Range<Double>) -> Bool {
        y < band.upperBound && y + height > band.lowerBound
    }
}
