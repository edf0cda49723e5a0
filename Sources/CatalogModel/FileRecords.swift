public import Foundation

/// What a probe found in one image file's header, ready to store.
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

    package init(format: String, pixelWidth: Int, pixelHeight: Int, orientation: Int, width: Int, height: Int,
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
package struct FileStat: Sendable, Hashable {
    package var device: Int64
    package var inode: Int64
    package var size: Int64
    package var mtimeNanoseconds: Int64

    package init(device: Int64, inode: Int64, size: Int64, mtimeNanoseconds: Int64) {
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

    package var status: Int {
        switch self {
        case .image: 0
        case .unsupported: 1
        case .failed: 2
        }
    }

    /// Whether `reason`, a failed file's, is the file system's rather than the file's: it could
    /// not be opened, stat'ed or read (permissions, an I/O error, a disk that went away). The
    /// same bytes may read the next time, and a chmod changes neither the size nor the time a
    /// rescan compares: such a file is read again by every scan, and an image keeps its item
    /// meanwhile.
    package static func isUnreadable(_ reason: String) -> Bool {
        unreadablePrefixes.contains { reason.hasPrefix($0) }
    }

    /// Whether a known image that fails with `reason` keeps its item (its id, its facts) until a
    /// scan reads it again: a file unreadable this time, or one that is empty or ends inside its
    /// header, as a photo being copied over, or written in place, is at the moment the scan reads
    /// it (a copy over it, a download or a shell's `>` empties it first).
    package static func keepsKnownItem(_ reason: String) -> Bool {
        isUnreadable(reason) || reason.hasPrefix(truncatedPrefix) || reason == emptyReason
    }

    /// What `catalog errors` adds to the reason of an image kept through a failed read (`FileChange.keepsItem`).
    package static let keptItemNote = "; its item is kept until a scan reads the file again"

    /// Why an image is stored as a failed file when its path is already an imported item's key.
    package static let importedKeyReason = "its path is the key of an imported item, which the scan leaves as it is (catalog import keeps it)"

    /// A file the scanner could not open, or stat once open; `reason` is the system's.
    package static func cannotOpen(_ reason: String) -> FileOutcome { .failed(cannotOpenPrefix + reason) }
    package static func cannotStat(_ reason: String) -> FileOutcome { .failed(cannotStatPrefix + reason) }

    static let cannotOpenPrefix = "cannot open: "
    static let cannotStatPrefix = "cannot stat: "
    /// How ImageProbeError.unreadable's description begins. ImageProbe does not import this
    /// module; a test of the scanner holds the two together.
    static let cannotReadPrefix = "cannot read the file: "
    static let unreadablePrefixes = [cannotOpenPrefix, cannotStatPrefix, cannotReadPrefix]
    /// How ImageProbeError.truncated's description begins (held together by the same test).
    static let truncatedPrefix = "truncated "
    /// ImageProbeError.empty's description (held together by the same test).
    static let emptyReason = "the file is empty"
}

/// A file known to the catalog.
package struct KnownFile: Sendable, Hashable {
    package var path: Data
    package var stat: FileStat
    package var fingerprint: Int64?
    package var status: Int
    package var itemID: Int64?
    /// It failed as unreadable (`FileOutcome.isUnreadable`), or kept its item through a failure
    /// (`FileOutcome.keptItemNote`): read again even when unchanged.
    package var unreadable: Bool

    /// `error` is the file's reason for failing, when it failed.
    package init(path: Data, stat: FileStat, fingerprint: Int64?, status: Int, itemID: Int64?, error: String? = nil) {
        self.path = path
        self.stat = stat
        self.fingerprint = fingerprint
        self.status = status
        self.itemID = itemID
        unreadable = error.map { FileOutcome.isUnreadable($0) || $0.hasSuffix(FileOutcome.keptItemNote) } ?? false
    }
}

/// A known file found at another path: renamed, or its content found there after it vanished.
package struct FileMove: Sendable, Hashable {
    package var from: Data
    package var to: Data
    /// The item the file keeps, if it has one.
    package var itemID: Int64?
    /// The root the new path lies under, when the scan knows it (a file moved from one of its
    /// roots to another); nil keeps the file's.
    package var rootID: Int64?
    /// The file as it is now when it changed too (renamed and touched, or its content found at
    /// a new path): its stat and fingerprint, and an image's facts for its item, written in the
    /// move's transaction.
    package var stat: FileStat?
    package var fingerprint: Int64?
    package var facts: ImageFacts?

    package init(from: Data, to: Data, itemID: Int64?, rootID: Int64? = nil, stat: FileStat? = nil, fingerprint: Int64? = nil,
                 facts: ImageFacts? = nil) {
        self.from = from
        self.to = to
        self.itemID = itemID
        self.rootID = rootID
        self.stat = stat
        self.fingerprint = fingerprint
        self.facts = facts
    }
}

/// A file to write: new, changed, or found again at another path.
package struct FileChange: Sendable, Hashable {
    package var path: Data
    package var stat: FileStat
    package var fingerprint: Int64?
    package var outcome: FileOutcome
    /// The item this file keeps (its own, or the one of the file it moved from).
    package var itemID: Int64?
    /// A known image that failed as unreadable (`FileOutcome.isUnreadable`): its row is marked
    /// failed with the reason (so `catalog errors` lists it and the next scan reads it again),
    /// while its item, its facts and its last stat stay as they were.
    package var keepsItem: Bool

    package init(path: Data, stat: FileStat, fingerprint: Int64?, outcome: FileOutcome, itemID: Int64?, keepsItem: Bool = false) {
        self.path = path
        self.stat = stat
        self.fingerprint = fingerprint
        self.outcome = outcome
        self.itemID = itemID
        self.keepsItem = keepsItem
    }
}
