import Foundation

/// How a layout's sections print: a table for people, one JSON object for programs (what
/// `catalog sections --json` prints and `GET /api/sections` returns).
public enum SectionText {
    public static func json(_ list: SectionList) -> String {
        let sections = list.sections.map { section in
            #"{"index":\#(section.index),"title":\#(PathText.jsonString(section.title)),"firstItem":\#(section.firstItem),"#
                + #""itemCount":\#(section.itemCount),"headerY":\#(PageText.number(section.headerY)),"#
                + #""headerHeight":\#(PageText.number(section.headerHeight)),"itemBottom":\#(PageText.number(section.itemBottom)),"#
                + #""end":\#(PageText.number(section.end))}"#
        }
        return #"{"generation":\#(list.generation),"grouping":\#(list.grouping.map { "\"\($0)\"" } ?? "null"),"#
            + #""contentHeight":\#(PageText.number(list.contentHeight)),"contentWidth":\#(PageText.number(list.contentWidth)),"#
            + #""itemCount":\#(list.itemCount),"#
            + #""sections":[\#(sections.joined(separator: ","))]}"#
    }

    /// `horizontal`: a carousel's layout, whose length runs along x (its content width).
    public static func table(_ list: SectionList, horizontal: Bool = false) -> String {
        var lines = ["\(list.sections.count) section\(list.sections.count == 1 ? "" : "s") of \(list.itemCount) items, "
            + "content \(horizontal ? "width \(PageText.number(list.contentWidth))" : "height \(PageText.number(list.contentHeight))")"]
        guard !list.sections.isEmpty else { return lines[0] }
        lines.append(["index", "first", "items", "header y", "height", "items end", "title"].joined(separator: "\t"))
        for section in list.sections {
            lines.append(["\(section.index)", "\(section.firstItem)", "\(section.itemCount)", PageText.number(section.headerY),
                          PageText.number(section.headerHeight), PageText.number(section.itemBottom),
                          PathText.display(section.title)].joined(separator: "\t"))
        }
        return lines.joined(separator: "\n")
    }
}
