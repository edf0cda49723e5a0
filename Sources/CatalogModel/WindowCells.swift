/// The items a window of a stored layout shows: their ids, for their keys, and the positions
/// in the layout's order they come from, which a store may read them by (a range of its
/// order's index) instead of one id at a time.
package struct WindowCells: Sendable, Equatable {
    package var ids: [Int64]
    /// The cell at the smallest position (its id and position) and the largest position; nil
    /// for a window without cells.
    package var span: Span?

    package struct Span: Sendable, Equatable {
        /// The order the positions are in: the layout's.
        package var order: ItemOrder
        package var firstID: Int64
        package var first: Int
        package var last: Int

        package init(order: ItemOrder, firstID: Int64, first: Int, last: Int) {
            self.order = order
            self.firstID = firstID
            self.first = first
            self.last = last
        }

        /// The positions from `first` to `last`.
        package var count: Int { last - first + 1 }
    }

    /// The ids of cells at `positions` (their index in the layout's order, `order`), one for one.
    package init(ids: [Int64], positions: [Int], order: ItemOrder) {
        self.ids = ids
        var span: Span?
        for (id, position) in zip(ids, positions) {
            if let found = span {
                if position < found.first { span = Span(order: order, firstID: id, first: position, last: found.last) }
                else if position > found.last { span!.last = position }
            } else {
                span = Span(order: order, firstID: id, first: position, last: position)
            }
        }
        self.span = span
    }
}
