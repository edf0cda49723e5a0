/// Why an image's size could not be read. Each case says what the user can do about it.
public enum ImageProbeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read: permissions, a vanished file, an I/O error.
    case unreadable(reason: String, errno: Int32)
    /// A directory, FIFO, socket or device where a file was expected.
    case notARegularFile(kind: String)
    /// The file has zero bytes.
    case empty
    /// The file ends before its header does: an interrupted copy or download.
    case truncated(ImageFormat)
    /// The header is malformed; `detail` is the decoder's one-line explanation.
    case corruptHeader(ImageFormat, detail: String)
    /// The header declares a side of 0 pixels or more than 2^24.
    case badDimensions(ImageFormat, detail: String)

    public var description: String {
        switch self {
        case .unreadable(let reason, _): "cannot read the file: \(reason)"
        case .notARegularFile(let kind): "not a regular file (\(kind))"
        case .empty: "the file is empty"
        case .truncated(let format): "truncated \(format.rawValue.uppercased()): the file ends inside its header"
        case .corruptHeader(let format, let detail): "corrupt \(format.rawValue.uppercased()) header: \(detail)"
        case .badDimensions(let format, let detail): "unusable \(format.rawValue.uppercased()) dimensions: \(detail)"
        }
    }
}
