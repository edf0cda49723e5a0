/// How an image's stored pixels are turned for display: the EXIF Orientation tag (0x0112).
///
/// The raw value is the EXIF value, 1 through 8. Values 5 to 8 turn the image by a quarter,
/// so its display width is its pixel height.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether displaying the image swaps its width and height (EXIF orientations 5 to 8).
    public var swapsWidthAndHeight: Bool { rawValue >= 5 }
}
