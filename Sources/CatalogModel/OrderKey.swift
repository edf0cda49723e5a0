/// An item's place in an order: date order sorts by date, newest first, then key; path order
/// by key alone (its `date` is empty). Bytes compare as SQLite's BINARY collation and
/// PostgreSQL's bytea and "C"-collated text do, so both stores agree on every order.
package struct OrderKey: Sendable {
    package var date: [UInt8]
    package var key: [UInt8]

    package init(date: [UInt8], key: [UInt8]) {
        self.date = date
        self.key = key
    }

    /// The key of an item with this sort date and key in `order`.
    package init(order: ItemOrder, date: [UInt8], key: [UInt8]) {
        self.init(date: order == .date ? date : [], key: key)
    }

    /// Whether `self` comes before `other` in the order.
    package func precedes(_ other: OrderKey) -> Bool {
        if date != other.date { return other.date.lexicographicallyPrecedes(date) }
        return key.lexicographicallyPrecedes(other.key)
    }

    /// Whether `self` comes before the entry with this date and key (raw column bytes; the
    /// date is ignored in path order, where `self.date` is empty and `date` must be too).
    package func precedes(date other: UnsafeRawBufferPointer, key otherKey: UnsafeRawBufferPointer) -> Bool {
        if !date.elementsEqual(other) { return other.lexicographicallyPrecedes(date) }
        return key.lexicographicallyPrecedes(otherKey)
    }
}
