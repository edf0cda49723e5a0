public import Foundation

/// What a scan found in one image file, ready to store.
public struct ImageFacts: Sendable, Hashable {
    public var format: String
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var orientation: Int
    public var width: Int
    public var height: Int
    public var bytes: Int64
    /// ISO 8601 without a zone, from EXIF.
    public var captureDate: String?
    /// ISO 8601, UTC, from the file's mtime.
    public var modifiedAt: String

    public init(format: String, pixelWidth: Int, pixelHeight: Int, orientation: Int, width: Int, height: Int,
                bytes: Int64, captureDate: String?, modifiedAt: String) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.orientation = orientation
        self.width = width
        self.height = height
        self.bytes = bytes
        self.captureDate = captureDate
        self.modifiedAt = modifiedAt
    }
}

/// A file's identity and state as of its last scan: a rescan compares against it.
public struct FileStat: Sendable, Hashable {
    public var device: Int64
    public var inode: Int64
    public var size: Int64
    public var mtimeNanoseconds: Int64

    public init(device: Int64, inode: Int64, size: Int64, mtimeNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
    }
}

/// How a file turned out.
public enum FileOutcome: Sendable, Hashable {
    case image(ImageFacts)
    case unsupported
    case failed(String)

    var status: Int {
        switch self {
        case .image: 0
        case .unsupported: 1
        case .failed: 2
        }
    }
}

/// A file known to the catalog.
public struct KnownFile: Sendable, Hashable {
    public var path: Data
    public var stat: FileStat
    public var fingerprint: Int64?
    public var status: Int
    public var itemID: Int64?
}

/// A file to write: new, changed, or found again at another path.
public struct FileChange: Sendable, Hashable {
    public var path: Data
    public var stat: FileStat
    public var fingerprint: Int64?
    public var outcome: FileOutcome
    /// The item this file keeps (its own, or the one of the file it moved from).
    public var itemID: Int64?

    public init(path: Data, stat: FileStat, fingerprint: Int64?, outcome: FileOutcome, itemID: Int64?) {
        self.path = path
        self.stat = stat
        self.fingerprint = fingerprint
        self.outcome = outcome
        self.itemID = itemID
    }
}
