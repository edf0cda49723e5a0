import CatalogKit
import ImageProbe

/// How `catalog probe` prints one file, as text or as a JSON line.
enum ProbeLine {
    static func text(path: String, info: ImageInfo) -> String {
        var line = "\(path)\t\(info.format.rawValue)\t\(info.displayWidth)x\(info.displayHeight)"
        if info.orientation != .up { line += "\torientation \(info.orientation.rawValue) (pixels \(info.pixelWidth)x\(info.pixelHeight))" }
        if let date = info.captureDate { line += "\t\(date)" }
        return line
    }

    static func json(path: String, info: ImageInfo) -> String {
        let date = info.captureDate.map { PathText.jsonString($0.description) } ?? "null"
        return """
            {"path":\(PathText.jsonString(path)),"format":"\(info.format.rawValue)","pixelWidth":\(info.pixelWidth),\
            "pixelHeight":\(info.pixelHeight),"orientation":\(info.orientation.rawValue),\
            "width":\(info.displayWidth),"height":\(info.displayHeight),"bytes":\(info.byteSize),"date":\(date)}
            """
    }

    static func json(path: String, unsupported: Void) -> String {
        #"{"path":\#(PathText.jsonString(path)),"format":null}"#
    }

    static func json(path: String, error: ImageProbeError) -> String {
        #"{"path":\#(PathText.jsonString(path)),"error":\#(PathText.jsonString(error.description))}"#
    }
}
