/// An image format, recognised by its magic bytes, never by the file name.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg
    case png
}
