import CatalogModel

/// How an item prints: one line for `catalog list`, one JSON object for `--json` and the API.
public enum ItemText {
    public static func line(_ item: ItemRow) -> String {
        "\(item.id)\t\(item.width)x\(item.height)\t\(item.format ?? "import")\t\(item.date)\t\(PathText.display(item.key))"
    }

    public static func json(_ item: ItemRow) -> String {
        var fields = [
            #""id":\#(item.id)"#, #""path":\#(PathText.jsonString(item.key))"#,
            #""format":\#(item.format.map { "\"\($0)\"" } ?? "null")"#,
            #""pixelWidth":\#(item.pixelWidth)"#, #""pixelHeight":\#(item.pixelHeight)"#,
            #""orientation":\#(item.orientation)"#, #""width":\#(item.width)"#, #""height":\#(item.height)"#,
            #""bytes":\#(item.bytes.map(String.init) ?? "null")"#, #""date":\#(PathText.jsonString(item.date))"#,
        ]
        if let url = item.url { fields.append(#""url":\#(PathText.jsonString(url))"#) }
        if let title = item.title { fields.append(#""title":\#(PathText.jsonString(title))"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
