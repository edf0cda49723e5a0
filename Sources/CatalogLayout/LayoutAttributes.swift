/// Where one element sits: the layout's answer for an item.
public struct LayoutAttributes: Sendable, Hashable {
    /// The item's position in layout order.
    public var index: Int
    /// The item's id, as given in `LayoutItem`.
    public var id: Int64
    public var frame: Rect
    /// The column the item was placed in (0 is the leftmost).
    public var column: Int

    public init(index: Int, id: Int64, frame: Rect, column: Int) {
        self.index = index
        self.id = id
        self.frame = frame
        self.column = column
    }
}
