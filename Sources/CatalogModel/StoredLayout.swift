/// A layout kept in the catalog, as `catalog layouts` lists it.
public struct StoredLayout: Sendable, Hashable {
    package var id: Int64
    /// The configuration's canonical text (`LayoutConfiguration.key`).
    public var configuration: String
    /// The catalog generation it reflects: older than the catalog's means stale.
    public var generation: Int64
    public var itemCount: Int
    public var contentHeight: Double
    /// The archive header (`LayoutArchiveHeader`).
    package var header: [UInt8]
    /// Header plus windows.
    public var bytes: Int64
    public var computeSeconds: Double
    /// ISO 8601, UTC.
    public var lastUsedAt: String

    package init(id: Int64, configuration: String, generation: Int64, itemCount: Int, contentHeight: Double, header: [UInt8],
                 bytes: Int64, computeSeconds: Double, lastUsedAt: String) {
        self.id = id
        self.configuration = configuration
        self.generation = generation
        self.itemCount = itemCount
        self.contentHeight = contentHeight
        self.header = header
        self.bytes = bytes
        self.computeSeconds = computeSeconds
        self.lastUsedAt = lastUsedAt
    }
}
