/// What a header read tells about one image file.
public struct ImageInfo: Sendable, Hashable {
    /// The format found by the file's magic bytes.
    public var format: ImageFormat
    /// Width of the stored pixels, before orientation.
    public var pixelWidth: Int
    /// Height of the stored pixels, before orientation.
    public var pixelHeight: Int
    /// The EXIF orientation; `.up` when the file has none or an invalid one.
    public var orientation: ImageOrientation
    /// The first valid one of `DateTimeOriginal`, `DateTimeDigitized` and `DateTime` from the EXIF
    /// block, in UTC when its `OffsetTime*` tag gives its zone; `nil` when none is.
    public var captureDate: CaptureDate?
    /// The file's size in bytes.
    public var byteSize: Int64
    /// How many bytes the probe read to learn all this (skipped segments are not read).
    public internal(set) var bytesRead: Int64 = 0

    init(format: ImageFormat, pixelWidth: Int, pixelHeight: Int, orientation: ImageOrientation = .up,
                captureDate: CaptureDate? = nil, byteSize: Int64) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.orientation = orientation
        self.captureDate = captureDate
        self.byteSize = byteSize
    }

    /// Width as displayed: the pixel height for orientations 5 to 8.
    public var displayWidth: Int { orientation.swapsWidthAndHeight ? pixelHeight : pixelWidth }

    /// Height as displayed: the pixel width for orientations 5 to 8.
    public var displayHeight: Int { orientation.swapsWidthAndHeight ? pixelWidth : pixelHeight }
}
