/// One item to lay out, in layout order: its id and display size.
package struct LayoutInputRow: Sendable, Hashable {
    package var id: Int64
    package var width: Int
    package var height: Int

    package init(id: Int64, width: Int, height: Int) {
        self.id = id
        self.width = width
        self.height = height
    }
}
