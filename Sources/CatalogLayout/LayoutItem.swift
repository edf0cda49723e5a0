/// One item to lay out: a stable id and its display size (after EXIF orientation).
public struct LayoutItem: Sendable, Hashable {
    public var id: Int64
    public var size: Size

    @inlinable
    public init(id: Int64, size: Size) {
        self.id = id
        self.size = size
    }

    @inlinable // made per item by callers in other modules (the pager: ten million at 10M)
    public init(id: Int64, width: Double, height: Double) {
        self.id = id
        self.size = Size(width: width, height: height)
    }
}
