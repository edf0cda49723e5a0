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
    /// Capture date, else modification time, else first import time (ISO 8601): the date the
    /// default order sorts on.
    public var date: String
    public var url: String?
    public var title: String?

    package init(id: Int64, key: Data, isImported: Bool, format: String?, pixelWidth: Int, pixelHeight: Int, orientation: Int,
                 width: Int, height: Int, bytes: Int64?, date: String, url: String?, title: String?) {
        self.id = id
        self.key = key
        self.isImported = isImported
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.orientation = orientation
        self.width = width
        self.height = height
        self.bytes = bytes
        self.date = date
        self.url = url
        self.title = title
    }
}
