/// A window of a stored layout with the keys of its items, as a page cache keeps it.
package struct StoredWindow: Sendable {
    package var bytes: [UInt8]
    package var keys: [Int64: ItemKey]

    package init(bytes: [UInt8], keys: [Int64: ItemKey]) {
        self.bytes = bytes
        self.keys = keys
    }
}
