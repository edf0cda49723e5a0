/// How a scan walks.
public struct ScanOptions: Sendable, Hashable {
    public var includeHidden = false
    public var followSymlinks = false
    /// Folders on another file system than their root's (mount points) are not entered, and
    /// nothing known under them is removed.
    public var oneFileSystem = false
    /// File changes written per transaction.
    public var batchSize = 2000
    /// Report progress after every batch handed to the writer, not only every 100 ms (tests
    /// wait on these reports to act mid-scan).
    package var reportEveryBatch = false

    public init(includeHidden: Bool = false, followSymlinks: Bool = false) {
        self.includeHidden = includeHidden
        self.followSymlinks = followSymlinks
    }
}
