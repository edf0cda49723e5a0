public import Foundation

/// What a page shows of an item besides its frame: its key (a file's path, or an import key)
/// and, for a scanned item, its file as the last scan saw it.
public struct ItemKey: Sendable, Hashable {
    public var key: Data
    /// nil for an imported item.
    public var file: FileIdentity?
    /// An imported item's address and title, as imported (nil when not given).
    public var url: String?
    public var title: String?

    package init(key: Data, file: FileIdentity?, url: String? = nil, title: String? = nil) {
        self.key = key
        self.file = file
        self.url = url
        self.title = title
    }
}

/// A file's identity: what changes when the file is replaced or edited.
public struct FileIdentity: Sendable, Hashable {
    public var device: Int64
    public var inode: Int64
    public var size: Int64
    public var mtimeNanoseconds: Int64

    package init(device: Int64, inode: Int64, size: Int64, mtimeNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
    }
}
