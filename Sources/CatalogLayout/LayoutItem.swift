/// One item to lay out: a stable id and its display size (after EXIF orientation).
public struct LayoutItem: Sendable, Hashable {
    public var id: Int64
    public var size: Size

    init(id: Int64, size: Size) {
        self.id = id
        self.size = size
    }

    public init(id: Int64, width: Double, height: Double) {
        self.init(id: id, size: Size(width: width, height: height))
    }
}
