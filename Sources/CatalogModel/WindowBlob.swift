/// A layout window to store: its number, the range of item indices in it, and its bytes.
package struct WindowBlob: Sendable, Hashable {
    package var window: Int
    package var minIndex: Int
    package var maxIndex: Int
    package var bytes: [UInt8]

    package init(window: Int, minIndex: Int, maxIndex: Int, bytes: [UInt8]) {
        self.window = window
        self.minIndex = minIndex
        self.maxIndex = maxIndex
        self.bytes = bytes
    }
}
