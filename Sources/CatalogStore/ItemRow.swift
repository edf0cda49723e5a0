public import Foundation

/// One item as `catalog list` shows it.
public struct ItemRow: Sendable, Hashable {
    public var id: Int64
    /// The file path's bytes, or the import key.
    public var key: Data
    public var isImported: Bool
    public var format: String?
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var orientation: Int
    /// Display size, after orientation.
    public var width: Int
    public var height: Int
    public var bytes: Int64?
    /// Capture date, else modification time, else import date (ISO 8601): the date the
    /// default order sorts on.
    public var date: String
    public var url: String?
    public var title: String?
}

/// The orders items are listed (and laid out) in.
public enum ItemOrder: String, Sendable, Hashable, CaseIterable {
    /// Newest first by capture date, else modification time, else import date; ties by path/key.
    case date
    /// Path/key ascending, bytewise.
    case path

    var orderBy: String {
        switch self {
        case .date: "sort_date DESC, key ASC"
        case .path: "key ASC"
        }
    }
}

/// A file that could not be read.
public struct FileError: Sendable, Hashable {
    public var path: Data
    public var reason: String
}

/// Counts for `catalog stats`.
public struct CatalogStats: Sendable, Hashable {
    public var path: String
    public var bytesOnDisk: Int64
    public var generation: Int64
    public var items: Int
    public var itemsByFormat: [String: Int]
    public var importedItems: Int
    public var files: Int
    public var unsupportedFiles: Int
    public var failedFiles: Int
}
