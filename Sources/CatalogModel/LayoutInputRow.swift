/// One item to lay out, in layout order: its id and display size.
package struct LayoutInputRow: Sendable, Hashable {
    package var id: Int64
    package var width: Int
    package var height: Int

    @inlinable // made per item by the order data's reader in another module: ten million calls at 10M
    package init(id: Int64, width: Int, height: Int) {
        self.id = id
        self.width = width
        self.height = height
    }
}
