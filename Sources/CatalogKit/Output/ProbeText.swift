import CatalogModel

/// How `catalog probe` prints one file, as text or as a JSON line (the fields of
/// `catalog list --json`).
public enum ProbeText {
    public static func text(path: String, facts: ImageFacts) -> String {
        // As `catalog list` prints it: a tab or line break in a name never splits the line.
        var line = "\(PathText.display(path.utf8))\t\(facts.format)\t\(facts.width)x\(facts.height)"
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
