/// A layout kept in the catalog, as its list shows it.
public struct StoredLayout: Sendable, Hashable {
    public var id: Int64
    public var configuration: String
    public var generation: Int64
    public var itemCount: Int
    public var contentHeight: Double
    public var header: [UInt8]
    public var bytes: Int64
    public var computeSeconds: Double
    public var lastUsedAt: String
}

/// One item to lay out, in layout order: its id, display size and when it last changed.
public struct LayoutInputRow: Sendable, Hashable {
    public var id: Int64
    public var width: Int
    public var height: Int
}

/// A window to store: its number, the range of item indices in it, and its bytes.
public struct WindowBlob: Sendable, Hashable {
    public var window: Int
    public var minIndex: Int
    public var maxIndex: Int
    public var bytes: [UInt8]

    public init(window: Int, minIndex: Int, maxIndex: Int, bytes: [UInt8]) {
        self.window = window
        self.minIndex = minIndex
        self.maxIndex = maxIndex
        self.bytes = bytes
    }
}
