internal import CImageProbe

/// Reads image sizes from JPEG, PNG, WebP, GIF, HEIC and AVIF headers, never decoding pixels.
///
/// Every function is safe to call from many threads at once. A file that is neither JPEG nor
/// PNG (by its magic bytes) is not an error: the result is `nil`.
///
/// ```swift
/// if let info = try ImageProbe.probe(path: "/photos/IMG_0001.jpg") {
///     print(info.displayWidth, info.displayHeight, info.captureDate as Any)
/// }
/// ```
public enum ImageProbe {
    /// The longest side, in pixels, a header may declare: past it the image is reported broken
    /// (no format this reads stores more; PNG's header could say two billion).
    public static let maximumSide = Int(CIP_MAX_SIDE)

    /// Probes the file at `path`, following symbolic links. FIFOs and devices are refused
    /// without blocking.
    public static func probe(path: String) throws(ImageProbeError) -> ImageInfo? {
        var result = cip_result()
        let status = path.withCString { cip_probe_path($0, &result) }
        return try convert(status, result)
    }

    /// Probes an open file from its start (with `pread`: the descriptor's offset is unchanged).
    public static func probe(fileDescriptor: Int32) throws(ImageProbeError) -> ImageInfo? {
        var result = cip_result()
        let status = cip_probe_fd(fileDescriptor, &result)
        return try convert(status, result)
    }

    /// How many of a file's first bytes a probe reads at once, from offset 0: all of a small
    /// file, or its header and first segments. The most of `head` that
    /// ``probe(fileDescriptor:size:head:)`` uses.
    public static let headLength = Int(CIP_HEAD_SIZE)

    /// Probes an open regular file from the first bytes the caller has already read from it, for
    /// a caller that needs those bytes too (a scanner's fingerprint of the file): the probe reads
    /// on from the descriptor (with `pread`) only past them, and does not stat the file again.
    ///
    /// - Parameters:
    ///   - fileDescriptor: the file, which the caller checked to be a regular file.
    ///   - size: its size in bytes, from the caller's own `fstat`.
    ///   - head: its bytes from offset 0, as many as the caller read: at most ``headLength`` are
    ///     used, and the probe reads what its first read would get past them itself.
    ///
    /// ```swift
    /// let read = pread(fd, buffer.baseAddress, min(Int(size), ImageProbe.headLength), 0)
    /// let info = try ImageProbe.probe(fileDescriptor: fd, size: size, head: UnsafeRawBufferPointer(rebasing: buffer[..<max(read, 0)]))
    /// ```
    public static func probe(fileDescriptor: Int32, size: Int64, head: UnsafeRawBufferPointer) throws(ImageProbeError) -> ImageInfo? {
        var result = cip_result()
        let status = cip_probe_fd_head(fileDescriptor, UInt64(max(size, 0)), head.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                       head.count, &result)
        return try convert(status, result)
    }

    /// Probes image bytes in memory.
    public static func probe(bytes: [UInt8]) throws(ImageProbeError) -> ImageInfo? {
        var result = cip_result()
        let status = bytes.withUnsafeBufferPointer { cip_probe_memory($0.baseAddress, $0.count, &result) }
        return try convert(status, result)
    }

    /// The one place where the C probe's status codes become Swift values.
    private static func convert(_ status: Int32, _ result: cip_result) throws(ImageProbeError) -> ImageInfo? {
        let format: ImageFormat = switch cip_format(rawValue: UInt32(result.format)) {
        case CIP_FORMAT_PNG: .png
        case CIP_FORMAT_WEBP: .webp
        case CIP_FORMAT_GIF: .gif
        case CIP_FORMAT_HEIC: .heic
        case CIP_FORMAT_AVIF: .avif
        default: .jpeg
        }
        switch cip_status(rawValue: UInt32(status)) {
        case CIP_OK:
            var info = ImageInfo(
                format: format,
                pixelWidth: Int(result.width),
                pixelHeight: Int(result.height),
                orientation: ImageOrientation(rawValue: Int(result.orientation)) ?? .up,
                captureDate: captureDate(result.dates),
                byteSize: result.byte_size
            )
            info.bytesRead = result.bytes_read
            return info
        case CIP_UNSUPPORTED:
            return nil
        case CIP_ERR_OPEN:
            throw .unreadable(reason: string(result.message), errno: result.sys_errno)
        case CIP_ERR_NOT_REGULAR:
            throw .notARegularFile(kind: string(result.message).replacingPrefix("not a regular file: "))
        case CIP_ERR_EMPTY:
            throw .empty
        case CIP_ERR_TRUNCATED:
            throw .truncated(format)
        case CIP_ERR_DIMENSIONS:
            throw .badDimensions(format, detail: string(result.message))
        default:
            throw .corruptHeader(format, detail: string(result.message))
        }
    }

    /// The first valid one of DateTimeOriginal, DateTimeDigitized and DateTime (a placeholder
    /// such as "0000:00:00 00:00:00" or an impossible date gives way to the next, as does one
    /// that its offset puts at an instant UTC never had: a leap second not at 23:59 UTC, a year
    /// past 9999), in UTC when its OffsetTime* tag says its zone, else as the camera's clock read.
    private static func captureDate(_ dates: (cip_date, cip_date, cip_date)) -> CaptureDate? {
        for candidate in [dates.0, dates.1, dates.2] {
            guard let date = CaptureDate(exif: string(candidate.date)) else { continue }
            let offset = Array(string(candidate.offset).utf8)
            guard offset.count == 6, let hours = Int(String(decoding: offset[1..<3], as: UTF8.self)),
                  let minutes = Int(String(decoding: offset[4..<6], as: UTF8.self)), hours <= 23, minutes <= 59
            else { return date }
            guard let utc = date.inUTC(offsetMinutes: (hours * 60 + minutes) * (offset[0] == UInt8(ascii: "-") ? -1 : 1)) else { continue }
            return utc
        }
        return nil
    }

    /// A fixed-size C `char` array, up to its first NUL, as a String (invalid UTF-8 repaired).
    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
