/// What a scan did.
public struct ScanSummary: Sendable, Hashable {
    public var added = 0
    public var updated = 0
    public var moved = 0
    public var removed = 0
    public var unchanged = 0
    public var unsupported = 0
    public var failed = 0
    /// Files under the roots scanned that the catalog lists as failing once the scan is done
    /// (`catalog errors`): those that failed in this scan, and those that failed before and were
    /// not read again (unchanged). Not the failing files under other roots: a scan of a folder
    /// with nothing wrong said that files it never looked at "did not change since".
    public var failing = 0
    /// Regular files looked at.
    public var files = 0
    public var elapsedSeconds = 0.0
    /// Folders under a root that could not be read (nothing under them was removed), and roots
    /// walked with another one they are inside of or the same as.
    public var problems: [String] = []
    /// Roots that could not be scanned at all (missing, not a folder, unreadable): nothing
    /// under them was removed. A scan with any of these did not do all it was asked.
    public var unscannedRoots: [String] = []
    public var generation: Int64 = 0

    public var filesPerSecond: Double { elapsedSeconds > 0 ? Double(files) / elapsedSeconds : 0 }
}
