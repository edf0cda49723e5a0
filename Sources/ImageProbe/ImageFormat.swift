/// An image format, recognised by its magic bytes, never by the file name.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg
    case png
    case webp
    case gif
    /// HEIF with HEVC (or other non-AV1) coding: what iPhones save.
    case heic
    /// HEIF with AV1 coding.
    case avif

    /// The media type an HTTP response names.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .heic: "image/heic"
        case .avif: "image/avif"
        }
    }
}
