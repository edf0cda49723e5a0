/// Why a thumbnail could not be made. Each case says what the user can do about it.
public enum ThumbnailError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read: permissions, a vanished file, an I/O error.
    case unreadable(reason: String)
    /// A directory, FIFO, socket or device where a file was expected.
    case notARegularFile
    /// None of JPEG, PNG, WebP, GIF, HEIC and AVIF by its first bytes.
    case unsupportedFormat
    /// The data ends before the image does: an interrupted copy or download.
    case truncated(detail: String)
    /// The data is malformed; `detail` is the decoder's one-line explanation.
    case corrupt(detail: String)
    /// Over the pixel budget or the decoder's memory limit (see ``Thumbnailer/pixelBudget``).
    case tooLarge(detail: String)
    /// A variant this build cannot decode, such as a 12-bit JPEG.
    case unsupportedKind(detail: String)
    /// A box of 0 pixels, a quality outside 1...100, an orientation outside 1...8.
    case invalidArgument(detail: String)
    case outOfMemory(detail: String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "cannot read the file: \(reason)"
        case .notARegularFile: "not a regular file"
        case .unsupportedFormat: "not a JPEG, PNG, WebP, GIF, HEIC or AVIF image"
        case .truncated(let detail): "truncated image: \(detail)"
        case .corrupt(let detail): "corrupt image: \(detail)"
        case .tooLarge(let detail): "image too large: \(detail)"
        case .unsupportedKind(let detail): "unsupported image: \(detail)"
        case .invalidArgument(let detail): "invalid thumbnail request: \(detail)"
        case .outOfMemory(let detail): "out of memory: \(detail)"
        }
    }
}
