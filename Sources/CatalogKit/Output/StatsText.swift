import CatalogModel

/// How `catalog stats`, `catalog layouts` and `catalog errors` print, as text and as JSON.
public enum StatsText {
    public static func json(_ stats: CatalogStats) -> String {
        let byFormat = stats.itemsByFormat.sorted { $0.key < $1.key }.map { "\(PathText.jsonString($0.key)):\($0.value)" }.joined(separator: ",")
        return """
            {"path":\(PathText.jsonString(stats.path)),"bytes":\(stats.bytesOnDisk),"generation":\(stats.generation),\
            "items":\(stats.items),"itemsByFormat":{\(byFormat)},"imported":\(stats.importedItems),"files":\(stats.files),\
            "unsupported":\(stats.unsupportedFiles),"errors":\(stats.failedFiles)}
            """
    }

    public static func text(_ stats: CatalogStats) -> String {
        let formats = stats.itemsByFormat.sorted { $0.key < $1.key }
        return """
            catalog     \(PathText.display(Array(stats.path.utf8))) (\(stats.bytesOnDisk) bytes)
            generation  \(stats.generation)
            items       \(stats.items)\(formats.isEmpty ? "" : " (" + formats.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
            files       \(stats.files) scanned, \(stats.unsupportedFiles) unsupported, \(stats.failedFiles) \(stats.failedFiles == 1 ? "error" : "errors")
            """
    }

    /// A stored layout; `current` is the catalog's generation (older layouts are stale).
    public static func json(_ layout: StoredLayout, current: Int64) -> String {
        #"{"configuration":\#(PathText.jsonString(layout.configuration)),"generation":\#(layout.generation),"#
            + #""fresh":\#(layout.generation == current),"items":\#(layout.itemCount),"bytes":\#(layout.bytes),"#
            + #""lastUsed":"\#(layout.lastUsedAt)"}"#
    }

    public static func text(_ layout: StoredLayout, current: Int64) -> String {
        [layout.configuration, "generation \(layout.generation)\(layout.generation == current ? "" : " (stale)")",
         "\(layout.itemCount) items", "\(layout.bytes) bytes", "used \(layout.lastUsedAt)"].joined(separator: "\t")
    }

    public static func json(_ error: FileError) -> String {
        #"{"path":\#(PathText.jsonString(error.path)),"reason":\#(PathText.jsonString(error.reason))}"#
    }

    public static func text(_ error: FileError) -> String {
        "\(PathText.display(error.path))\t\(error.reason)"
    }
}
