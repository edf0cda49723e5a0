import CatalogLayout
import CatalogModel

/// How a page prints: a table for people, one JSON object for programs (what
/// `catalog page --json` prints and `GET /api/page` returns).
public enum PageText {
    /// A Double as JSON and tables show it: whole numbers without ".0".
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    public static func json(_ page: Page) -> String {
        func frame(_ r: Rect) -> String {
            #"{"x":\#(number(r.x)),"y":\#(number(r.y)),"width":\#(number(r.width)),"height":\#(number(r.height))}"#
        }
        let items = page.items.map {
            #"{"index":\#($0.index),"id":\#($0.id),"path":\#(PathText.jsonString($0.path)),"column":\#($0.column),"frame":\#(frame($0.frame)),"#
                + #""version":\#($0.version.map { "\"\($0)\"" } ?? "null"),"url":\#($0.url.map { PathText.jsonString($0) } ?? "null"),"#
                + #""title":\#($0.title.map { PathText.jsonString($0) } ?? "null")}"#
        }
        return #"{"contentHeight":\#(number(page.contentHeight)),"generation":\#(page.generation),"viewport":\#(frame(page.viewport)),"#
            + #""items":[\#(items.joined(separator: ","))],"itemCount":\#(page.itemCount),"next":\#(page.next.map(number) ?? "null"),"previous":\#(page.previous.map(number) ?? "null")}"#
    }

    public static func table(_ page: Page) -> String {
        var lines = ["content height \(number(page.contentHeight)), viewport y \(number(page.viewport.y)) height \(number(page.viewport.height)) "
            + "width \(number(page.viewport.width)), next \(page.next.map(number) ?? "-"), previous \(page.previous.map(number) ?? "-")"]
        lines.append(["index", "id", "column", "x", "y", "width", "height", "path"].joined(separator: "\t"))
        for item in page.items {
            let f = item.frame
            lines.append(["\(item.index)", "\(item.id)", "\(item.column)", number(f.x), number(f.y), number(f.width), number(f.height),
                          PathText.display(item.path)].joined(separator: "\t"))
        }
        return lines.joined(separator: "\n")
    }
}
