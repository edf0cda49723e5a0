/// How a scan walks.
public struct ScanOptions: Sendable, Hashable {
    public var includeHidden = false
    public var followSymlinks = false
    /// Folders on another file system than their root's (mount points) are not entered, and
    /// nothing known under them is removed.
    public var oneFileSystem = false
    /// Folders the walk does not enter (absolute paths): the thumbnail cache, whose JPEGs
    /// would be scanned as photos (and their thumbnails made, and scanned, at every round).
    public var passOver: [String] = []
    /// Remove the known files the walk does not take though they are still at their paths
    /// (found by an earlier scan with --include-hidden or --follow-symlinks); without it they
    /// are kept, and the summary says so.
    public var prune = false
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
