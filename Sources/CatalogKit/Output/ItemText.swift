import CatalogModel

/// How an item prints: one line for `catalog list`, one JSON object for `--json` and the API.
public enum ItemText {
    public static func line(_ item: ItemRow) -> String {
        "\(item.id)\t\(item.width)x\(item.height)\t\(item.format ?? "import")\t\(item.date)\t\(PathText.display(item.key))"
    }

    public static func json(_ item: ItemRow) -> String {
        // One string appended to, not a field list joined: `catalog list --json` writes millions.
        var out = #"{"id":"#
        out.reserveCapacity(200 + item.key.count + (item.url?.utf8.count ?? 0) + (item.title?.utf8.count ?? 0))
        out += String(item.id)
        out += #","path":"#
        out += PathText.jsonString(item.key)
        out += #","format":"#
        out += item.format.map { "\"\($0)\"" } ?? "null"
        out += #","pixelWidth":"# + String(item.pixelWidth) + #","pixelHeight":"# + String(item.pixelHeight)
        out += #","orientation":"# + String(item.orientation) + #","width":"# + String(item.width) + #","height":"# + String(item.height)
        out += #","bytes":"#
        out += item.bytes.map(String.init) ?? "null"
        out += #","date":"#
        out += PathText.jsonString(item.date)
        if let url = item.url {
            out += #","url":"#
            out += PathText.jsonString(url)
        }
        if let title = item.title {
            out += #","title":"#
            out += PathText.jsonString(title)
        }
        out += "}"
        return out
    }
}
