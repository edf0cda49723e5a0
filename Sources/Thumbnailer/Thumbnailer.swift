internal import CThumbnail
import Dispatch
import Foundation

/// Makes thumbnails the way the fastest tools do: a JPEG is decoded at the smallest DCT scale
/// that still covers the thumbnail (never the full image when a reduced one will do), then
/// reduced to the exact size by area averaging; a PNG is decoded a row at a time with every
/// transform a real file needs; a WebP by libwebp at the thumbnail's size; a GIF's (or an
/// animated WebP's) first frame on its canvas; a HEIC or AVIF by libheif, in display
/// orientation already (pass orientation 1, as ``ImageProbe`` reports for them). The result is in display orientation (EXIF 1 to 8 applied)
/// and encoded as JPEG, or as PNG when the image has transparency.
///
/// Memory is bounded whatever a header declares: a PNG over ``pixelBudget`` pixels is refused,
/// a progressive JPEG whose coefficients need more than ``jpegMemory`` bytes is refused, and
/// any other JPEG is decoded a few rows at a time at 1/8 to 8/8 of its size.
///
/// ```swift
/// let small = try Thumbnailer.thumbnail(path: "/photos/IMG_0001.jpg", size: 256, orientation: 6)
/// try Data(small.bytes).write(to: URL(fileURLWithPath: "/tmp/small.\(small.format.fileExtension)"))
/// ```
///
/// Every function is safe to call from many threads at once.
public enum Thumbnailer {
    /// Pixels a PNG may have: 2^26 (an 8192 x 8192 image).
    public static let pixelBudget = Int(CTH_PIXEL_BUDGET)
    /// Bytes libjpeg may use for one image (a progressive JPEG's coefficients): 512 MiB.
    public static let jpegMemory = Int(CTH_JPEG_MEMORY)
    /// The largest file read: 1 GiB.
    public static let maximumFileSize = 1 << 30
    /// HEIC and AVIF thumbnails made at once, whatever the callers: their codecs decode the whole
    /// image (no reduced-size decode) with threads of their own.
    public static let heifConcurrency = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    private static let heifDecodes = DispatchSemaphore(value: heifConcurrency)
    /// The default box and JPEG quality.
    public static let defaultSize = 256
    public static let defaultQuality = 80

    /// A thumbnail of the image bytes that fits within `size` x `size` pixels (never enlarged).
    ///
    /// - Parameters:
    ///   - orientation: the source's EXIF orientation, 1 to 8 (what ``ImageProbe`` reads).
    ///   - quality: JPEG quality, 1 to 100.
    public static func thumbnail(bytes: [UInt8], size: Int = defaultSize, orientation: Int = 1,
                                 quality: Int = defaultQuality) throws(ThumbnailError) -> Thumbnail {
        guard size > 0, size <= Int(UInt32.max) else { throw .invalidArgument(detail: "a box of \(size) pixels") }
        var options = cth_options(box: UInt32(size), orientation: Int32(clamping: orientation), quality: Int32(clamping: quality))
        var result = cth_result()
        // HEIC and AVIF decode whole, slowly, with the codec's own threads: a few at a time.
        let heif = bytes.count >= 12 && bytes[4] == 0x66 && bytes[5] == 0x74 && bytes[6] == 0x79 && bytes[7] == 0x70 // "ftyp"
        if heif { heifDecodes.wait() }
        let status = bytes.withUnsafeBufferPointer { cth_thumbnail($0.baseAddress, $0.count, &options, &result) }
        if heif { heifDecodes.signal() }
        defer { cth_release(&result) }
        try check(status, message: text(result.message))
        return Thumbnail(
            format: result.format == Int32(CTH_FORMAT_PNG.rawValue) ? .png : .jpeg,
            bytes: Array(UnsafeBufferPointer(start: result.data, count: result.length)),
            width: Int(result.width), height: Int(result.height),
            sourceWidth: Int(result.source_width), sourceHeight: Int(result.source_height),
            decodedWidth: Int(result.decoded_width), decodedHeight: Int(result.decoded_height))
    }

    /// A thumbnail of the file at `path` (symbolic links followed; FIFOs and devices refused
    /// without blocking).
    public static func thumbnail(path: String, size: Int = defaultSize, orientation: Int = 1,
                                 quality: Int = defaultQuality) throws(ThumbnailError) -> Thumbnail {
        try thumbnail(bytes: try read(path: path), size: size, orientation: orientation, quality: quality)
    }

    /// Decodes an image at full size into 8-bit RGBA: for tests and quality measurements.
    public static func decode(bytes: [UInt8]) throws(ThumbnailError) -> RGBAImage {
        var pixels: UnsafeMutablePointer<UInt8>? = nil
        var width: UInt32 = 0, height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 160)
        let status = bytes.withUnsafeBufferPointer { cth_decode_rgba($0.baseAddress, $0.count, &pixels, &width, &height, &message, message.count) }
        defer { free(pixels) }
        try check(status, message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return RGBAImage(width: Int(width), height: Int(height),
                         pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 4)))
    }

    /// The whole file at `path`, read with plain reads (not mapped: a file truncated while
    /// mapped would crash the reader).
    static func read(path: String) throws(ThumbnailError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile }
        return try read(fileDescriptor: fd, size: Int(info.st_size))
    }

    /// The first `size` bytes of an open regular file (from offset 0, with `pread`: the
    /// descriptor's offset is unchanged); fewer if it shrank while being read.
    public static func read(fileDescriptor fd: Int32, size: Int) throws(ThumbnailError) -> [UInt8] {
        guard size <= maximumFileSize else { throw .tooLarge(detail: "a file of \(size) bytes, more than \(maximumFileSize)") }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
            if got == 0 { break } // shrank while read: decode what is there (a truncation error if it matters)
            done += got
        }
        return done == size ? bytes : Array(bytes[..<done])
    }

    /// The one place where the C statuses become Swift errors.
    private static func check(_ status: Int32, message text: String) throws(ThumbnailError) {
        switch cth_status(rawValue: UInt32(status)) {
        case CTH_OK: return
        case CTH_UNSUPPORTED: throw .unsupportedFormat
        case CTH_ERR_TRUNCATED: throw .truncated(detail: text)
        case CTH_ERR_TOO_LARGE: throw .tooLarge(detail: text)
        case CTH_ERR_UNSUPPORTED_KIND: throw .unsupportedKind(detail: text)
        case CTH_ERR_MEMORY: throw .outOfMemory(detail: text)
        case CTH_ERR_ARGUMENT: throw .invalidArgument(detail: text)
        default: throw .corrupt(detail: text)
        }
    }

    /// A fixed-size C `char` array, up to its first NUL, as a String (invalid UTF-8 repaired).
    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
