public import CatalogLayout
import CatalogModel
import Foundation

/// How a page prints: a table for people, one JSON object for programs (what
/// `catalog page --json` prints and `GET /api/page` returns).
public enum PageText {
    /// A Double as JSON and tables show it: whole numbers without ".0".
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// `withSource`: add how this process had the layout (`"source"`: stored, computed or
    /// extended), as `catalog page --json` does. The server leaves it out: its body is a
    /// function of the generation and the request alone, as its `ETag` says.
    public static func json(_ page: Page, withSource: Bool = false) -> String {
        func frame(_ r: Rect) -> String {
            #"{"x":\#(number(r.x)),"y":\#(number(r.y)),"width":\#(number(r.width)),"height":\#(number(r.height))}"#
        }
        let items = page.items.map { item in
            guard item.kind == .cell else {
                return #"{"kind":"\#(kind(item.kind))","section":\#(item.section),"index":\#(item.index),"id":\#(item.id),"#
                    + #""title":\#(PathText.jsonString(item.sectionTitle ?? Data())),"count":\#(item.sectionCount ?? 0),"#
                    + #""column":\#(item.column),"frame":\#(frame(item.frame))}"#
            }
            let effect = item.effect.map { #","scale":\#(number($0.scale)),"alpha":\#(number($0.alpha)),"zIndex":\#($0.zIndex)"# } ?? ""
            return #"{"kind":"cell","section":\#(item.section),"index":\#(item.index),"id":\#(item.id),"path":\#(PathText.jsonString(item.path)),"#
                + #""column":\#(item.column),"frame":\#(frame(item.frame)),"#
                + #""version":\#(item.version.map { "\"\($0)\"" } ?? "null"),"url":\#(item.url.map { PathText.jsonString($0) } ?? "null"),"#
                + #""title":\#(item.title.map { PathText.jsonString($0) } ?? "null")\#(effect)}"#
        }
        return #"{"contentHeight":\#(number(page.contentHeight)),"contentWidth":\#(number(page.contentWidth)),"#
            + #""generation":\#(page.generation),"viewport":\#(frame(page.viewport)),"#
            + #""items":[\#(items.joined(separator: ","))],"itemCount":\#(page.itemCount),"next":\#(page.next.map(number) ?? "null"),"#
            + #""previous":\#(page.previous.map(number) ?? "null")\#(withSource ? #","source":"\#(page.source.rawValue)""# : "")}"#
    }

    /// "cell", "header" or "footer".
    public static func kind(_ kind: LayoutAttributes.Kind) -> String {
        switch kind {
        case .cell: "cell"
        case .header: "header"
        case .footer: "footer"
        }
    }

    /// The page as a table, its columns chosen by `configuration` (not by what this page
    /// happens to hold: a page without a header, or a carousel page without items, has the
    /// same columns as the next).
    public static func table(_ page: Page, configuration: LayoutConfiguration) -> String {
        let carousel = configuration.isHorizontal
        var lines = [carousel
            ? "content width \(number(page.contentWidth)), viewport x \(number(page.viewport.x)) width \(number(page.viewport.width)) "
                + "height \(number(page.viewport.height)), next \(page.next.map(number) ?? "-"), previous \(page.previous.map(number) ?? "-")"
            : "content height \(number(page.contentHeight)), viewport y \(number(page.viewport.y)) height \(number(page.viewport.height)) "
                + "width \(number(page.viewport.width)), next \(page.next.map(number) ?? "-"), previous \(page.previous.map(number) ?? "-")"]
        // With sections a page says what each row is: cells, and the headers and footers
        // (index: the section; path: its title and item count).
        let sectioned = configuration.sections != .none
        lines.append(((sectioned ? ["kind", "section"] : []) + ["index", "id", "column", "x", "y", "width", "height", "path"])
            .joined(separator: "\t"))
        for item in page.items {
            let f = item.frame
            let path = item.kind == .cell ? PathText.display(item.path)
                : "\(PathText.display(item.sectionTitle ?? Data())) (\(item.sectionCount ?? 0) item\(item.sectionCount == 1 ? "" : "s"))"
            lines.append(((sectioned ? [kind(item.kind), "\(item.section)"] : []) + ["\(item.index)", "\(item.id)", "\(item.column)",
                          number(f.x), number(f.y), number(f.width), number(f.height), path]).joined(separator: "\t"))
        }
        if carousel {
            // The carousel's effects at this viewport, after the frames.
            lines[1] += "\tscale\talpha\tz"
            for (offset, item) in page.items.enumerated() {
                let scale = ((item.effect?.scale ?? 1) * 1000).rounded() / 1000, alpha = ((item.effect?.alpha ?? 1) * 1000).rounded() / 1000
                lines[offset + 2] += "\t\(number(scale))\t\(number(alpha))\t\(item.effect?.zIndex ?? 0)"
            }
        }
        return lines.joined(separator: "\n")
    }

    /// What `catalog snap --json` prints and `GET /api/snap` returns.
    public static func json(_ target: SnapTarget?) -> String {
        guard let target else { return #"{"offset":0,"item":null}"# }
        let r = target.item.frame
        return #"{"offset":\#(number(target.offset)),"item":{"index":\#(target.item.index),"id":\#(target.item.id),"#
            + #""path":\#(PathText.jsonString(target.item.path)),"#
            + #""frame":{"x":\#(number(r.x)),"y":\#(number(r.y)),"width":\#(number(r.width)),"height":\#(number(r.height))}}}"#
    }
}
