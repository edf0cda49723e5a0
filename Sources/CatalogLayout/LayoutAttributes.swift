/// Where one element sits: the layout's answer for an item, or for a section's header or footer.
public struct LayoutAttributes: Sendable, Hashable {
    /// What an element shows.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// An item (a full-span item too).
        case cell = 0
        /// A section's header: supplementary, it shows the section rather than an item.
        case header = 1
        /// A section's footer.
        case footer = 2
    }

    /// A cell's position in layout order; a header's or footer's section index.
    public var index: Int
    /// A cell's id, as given in `LayoutItem`; a header's or footer's section key, as given in
    /// ``SectionStart`` (its bit pattern).
    public var id: Int64
    public var frame: Rect
    /// The column the item was placed in (0 is the leftmost); 0 for a full-span item, a
    /// header and a footer.
    public var column: Int
    public var kind: Kind
    /// The section it belongs to; 0 in a layout without sections.
    public var section: Int

    public init(index: Int, id: Int64, frame: Rect, column: Int, kind: Kind = .cell, section: Int = 0) {
        self.index = index
        self.id = id
        self.frame = frame
        self.column = column
        self.kind = kind
        self.section = section
    }
}
