/// Progress reported while a scan runs.
public struct ScanProgress: Sendable {
    /// Regular files looked at so far.
    public var files: Int
    /// File changes written to the catalog so far (committed batches).
    public var committedFiles: Int
    public var elapsedSeconds: Double
    public var folder: [UInt8]
}
