public import Foundation

/// The file behind a scanned item, as its last scan saw it.
public struct ItemFile: Sendable, Hashable {
    /// The path's bytes.
    public var path: Data
    public var size: Int64
    public var mtimeNanoseconds: Int64
    /// "jpeg", "png".
    public var format: String?

    package init(path: Data, size: Int64, mtimeNanoseconds: Int64, format: String?) {
        self.path = path
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.format = format
    }
}
