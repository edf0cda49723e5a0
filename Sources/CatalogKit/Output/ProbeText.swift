import CatalogModel

/// How `catalog probe` prints one file, as text or as a JSON line (the fields of
/// `catalog list --json`).
public enum ProbeText {
    /// The path as `catalog list` prints it: a tab, a line break or a backslash in a name is
    /// escaped, so it never splits a column or a line.
    public static func display(_ path: String) -> String { PathText.display(Array(path.utf8)) }

    public static func text(path: String, facts: ImageFacts) -> String {
        var line = "\(display(path))\t\(facts.format)\t\(facts.width)x\(facts.height)"
        if facts.orientation != 1 { line += "\torientation \(facts.orientation) (pixels \(facts.pixelWidth)x\(facts.pixelHeight))" }
        if let date = facts.captureDate { line += "\t\(date)" }
        return line
    }

    public static func json(path: String, facts: ImageFacts) -> String {
        let date = facts.captureDate.map { PathText.jsonString($0) } ?? "null"
        return """
            {"path":\(PathText.jsonString(path)),"format":"\(facts.format)","pixelWidth":\(facts.pixelWidth),\
            "pixelHeight":\(facts.pixelHeight),"orientation":\(facts.orientation),\
            "width":\(facts.width),"height":\(facts.height),"bytes":\(facts.bytes),"date":\(date)}
            """
    }

    public static func json(unsupportedPath path: String) -> String {
        #"{"path":\#(PathText.jsonString(path)),"format":null}"#
    }

    public static func json(path: String, error: String) -> String {
        #"{"path":\#(PathText.jsonString(path)),"error":\#(PathText.jsonString(error))}"#
    }
}
