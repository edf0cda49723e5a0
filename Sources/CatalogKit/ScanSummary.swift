/// What a scan did.
public struct ScanSummary: Sendable, Hashable {
    public var added = 0
    public var updated = 0
    public var moved = 0
    public var removed = 0
    public var unchanged = 0
    public var unsupported = 0
    public var failed = 0
    /// Regular files looked at.
    public var files = 0
    public var elapsedSeconds = 0.0
    /// Folders or roots that could not be read: nothing under them was removed.
    public var problems: [String] = []
    public var generation: Int64 = 0

    public var filesPerSecond: Double { elapsedSeconds > 0 ? Double(files) / elapsedSeconds : 0 }
}

/// How a scan walks.
public struct ScanOptions: Sendable, Hashable {
    public var includeHidden = false
    public var followSymlinks = false
    /// File changes written per transaction.
    public var batchSize = 2000

    public init(includeHidden: Bool = false, followSymlinks: Bool = false) {
        self.includeHidden = includeHidden
        self.followSymlinks = followSymlinks
    }
}

/// Progress reported while a scan runs.
public struct ScanProgress: Sendable {
    public var files: Int
    public var elapsedSeconds: Double
    public var folder: [UInt8]
}
