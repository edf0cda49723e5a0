/// A small image made from a JPEG, PNG, WebP, GIF, HEIC or AVIF: encoded bytes in display orientation, and the sizes
/// that went into it.
public struct Thumbnail: Sendable, Hashable {
    /// JPEG, or PNG when the image has transparency (its alpha is kept, never composited).
    public var format: ThumbnailFormat
    public var bytes: [UInt8]
    /// The thumbnail's size, in display orientation: it fits the box, and its aspect ratio is
    /// the source's display aspect ratio within a pixel of rounding.
    public var width: Int
    public var height: Int
    /// The source's size as stored (before orientation).
    public var sourceWidth: Int
    public var sourceHeight: Int
    /// What the decoder produced before the reduction: a JPEG's DCT-scaled size (1/8 to 8/8
    /// of the source), a PNG's full size.
    public var decodedWidth: Int
    public var decodedHeight: Int
}

public enum ThumbnailFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg
    case png

    /// The media type an HTTP response carries.
    public var mediaType: String { self == .jpeg ? "image/jpeg" : "image/png" }
    /// The file name extension a cache entry carries.
    public var fileExtension: String { self == .jpeg ? "jpg" : "png" }
}
