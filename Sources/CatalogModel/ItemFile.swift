public import Foundation

/// The file behind a scanned item, as its last scan saw it.
public struct ItemFile: Sendable, Hashable {
    public var itemID: Int64
    /// The path's bytes.
    public var path: Data
    public var device: Int64
    public var inode: Int64
    public var size: Int64
    public var mtimeNanoseconds: Int64
    /// "jpeg", "png", "webp", "gif", "heic", "avif".
    public var format: String?
    /// The item's EXIF orientation, 1...8.
    public var orientation: Int

    package init(itemID: Int64, path: Data, device: Int64, inode: Int64, size: Int64, mtimeNanoseconds: Int64, format: String?,
                 orientation: Int) {
        self.itemID = itemID
        self.path = path
        self.device = device
        self.inode = inode
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.format = format
        self.orientation = orientation
    }
}
