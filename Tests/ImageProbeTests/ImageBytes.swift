import Foundation

/// Real image bytes for the tests: committed fixtures, and builders that splice EXIF blocks,
/// APPn segments and PNG chunks into them.
enum ImageBytes {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    // MARK: JPEG

    /// Inserts segments right after SOI (FF D8).
    static func jpeg(_ base: [UInt8], inserting segments: [[UInt8]]) -> [UInt8] {
        Array(base[0..<2]) + segments.flatMap { $0 } + Array(base[2...])
    }

    /// A marker segment: FF marker, big-endian length (payload + 2), payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count + 2 <= 0xFFFF)
        return [0xFF, marker] + be16(payload.count + 2) + payload
    }

    static func exifSegment(_ tiff: [UInt8]) -> [UInt8] {
        segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff)
    }

    /// An ICC profile of `size` bytes split over APP2 segments the way ICC.1 says.
    static func iccSegments(size: Int) -> [[UInt8]] {
        let chunk = 65_000
        let count = (size + chunk - 1) / chunk
        return (0..<count).map { index in
            let length = min(chunk, size - index * chunk)
            let header = Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)]
            return segment(0xE2, header + [UInt8](repeating: UInt8(index & 0xFF), count: length))
        }
    }

    /// Offset of the first marker `marker` (FF xx) at a segment boundary, walking the segments.
    static func markerOffset(_ bytes: [UInt8], _ marker: UInt8) -> Int? {
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            if bytes[offset + 1] == marker { return offset }
            if bytes[offset + 1] == 0xDA { return nil } // scan data follows: stop walking
            offset += 2 + Int(bytes[offset + 2]) << 8 + Int(bytes[offset + 3])
        }
        return nil
    }

    /// Rewrites the SOF segment's precision, height and width.
    static func jpeg(_ base: [UInt8], sofPrecision: UInt8? = nil, height: Int? = nil, width: Int? = nil) -> [UInt8] {
        var bytes = base
        let sof = [0xC0, 0xC1, 0xC2].lazy.compactMap { markerOffset(base, $0) }.first!
        if let sofPrecision { bytes[sof + 4] = sofPrecision }
        if let height { bytes.replaceSubrange(sof + 5..<sof + 7, with: be16(height)) }
        if let width { bytes.replaceSubrange(sof + 7..<sof + 9, with: be16(width)) }
        return bytes
    }

    // MARK: PNG

    static func chunk(_ type: String, _ data: [UInt8], crc: UInt32? = nil) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc ?? crc32(body)))
    }

    /// Inserts chunks right after IHDR (signature 8 bytes + IHDR 25 bytes).
    static func png(_ base: [UInt8], insertingAfterIHDR chunks: [[UInt8]]) -> [UInt8] {
        Array(base[0..<33]) + chunks.flatMap { $0 } + Array(base[33...])
    }

    /// Inserts chunks before IEND (the last 12 bytes), that is after the image data.
    static func png(_ base: [UInt8], insertingBeforeIEND chunks: [[UInt8]]) -> [UInt8] {
        Array(base[..<(base.count - 12)]) + chunks.flatMap { $0 } + Array(base.suffix(12))
    }

    /// Replaces IHDR's width and height, with a correct CRC unless `validCRC` is false.
    static func png(_ base: [UInt8], width: UInt32, height: UInt32, validCRC: Bool = true) -> [UInt8] {
        var data = Array(base[16..<29])
        data.replaceSubrange(0..<4, with: be32(Int(width)))
        data.replaceSubrange(4..<8, with: be32(Int(height)))
        var ihdr = chunk("IHDR", data)
        if !validCRC { ihdr[ihdr.count - 1] ^= 0xFF }
        return Array(base[0..<8]) + ihdr + Array(base[33...])
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// Where a GIF's first image descriptor (0x2C) starts: after the header, the global colour
    /// table and any extensions.
    static func gifImageDescriptor(_ bytes: [UInt8]) -> Int? {
        var at = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        while at < bytes.count, bytes[at] == 0x21 {
            at += 2
            while at < bytes.count, bytes[at] != 0 { at += Int(bytes[at]) + 1 }
            at += 1
        }
        return at < bytes.count && bytes[at] == 0x2C ? at : nil
    }

    /// A VP8X WebP of `base`'s simple lossy frame with an EXIF chunk holding `exif` as it is.
    static func webp(_ base: [UInt8], exif: [UInt8], width: Int, height: Int) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(v >> (8 * $0) & 0xFF) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { Array(type.utf8) + le(data.count, 4) + data + (data.count % 2 == 1 ? [0] : []) }
        let vp8x = chunk("VP8X", [0x08, 0, 0, 0] + le(width - 1, 3) + le(height - 1, 3))
        let body = Array("WEBP".utf8) + vp8x + chunk("EXIF", exif) + Array(base[12...])
        return Array("RIFF".utf8) + le(body.count, 4) + body
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    /// Where the first box of this type starts (its size field), searching the bytes.
    static func boxOffset(_ bytes: [UInt8], _ type: String) -> Int? {
        let needle = Array(type.utf8)
        guard bytes.count >= 8 else { return nil }
        for at in 4..<(bytes.count - 4) where Array(bytes[at..<(at + 4)]) == needle { return at - 4 }
        return nil
    }

    static func be32(_ value: Int) -> [UInt8] { be16(value >> 16 & 0xFFFF) + be16(value & 0xFFFF) }
}

/// A TIFF structure as found in an EXIF block: IFD0 with Orientation and DateTime, an Exif
/// sub-IFD with DateTimeOriginal, and optionally a thumbnail-sized gap before the sub-IFD, so
/// that reading the original date needs bytes far into the block.
struct TIFFBuilder {
    var bigEndian: Bool
    var orientation: Int?
    var orientationType: UInt16 = 3
    var exifPointerType: UInt16 = 4 // LONG; 13 (IFD) is the other type writers use
    var dateTime: String?
    var dateTimeOriginal: String?
    var gapBeforeSubIFD = 0
    /// More ASCII tags of the Exif sub-IFD (DateTimeDigitized 0x9004, OffsetTime* 0x9010...0x9012), after DateTimeOriginal.
    var subIFDTags: [(tag: Int, value: String)] = []

    func bytes() -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? ImageBytes.be16(v) : ImageBytes.be16(v).reversed() }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? ImageBytes.be32(v) : ImageBytes.be32(v).reversed() }
        func ascii(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }
        let subTags = (dateTimeOriginal.map { [(tag: 0x9003, value: $0)] } ?? []) + subIFDTags
        let entries = [orientation != nil, dateTime != nil, !subTags.isEmpty].filter { $0 }.count
        let dataStart = 8 + 2 + 12 * entries + 4
        let dateTimeOffset = dataStart
        let subIFDOffset = dataStart + (dateTime.map { ascii($0).count } ?? 0) + gapBeforeSubIFD
        let subDataStart = subIFDOffset + 2 + 12 * subTags.count + 4

        var out = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        out += u16(entries)
        if let orientation {
            out += u16(0x0112) + u16(Int(orientationType)) + u32(1)
            out += orientationType == 3 ? u16(orientation) + [0, 0] : u32(orientation)
        }
        if let dateTime { out += u16(0x0132) + u16(2) + u32(ascii(dateTime).count) + u32(dateTimeOffset) }
        if !subTags.isEmpty { out += u16(0x8769) + u16(Int(exifPointerType)) + u32(1) + u32(subIFDOffset) }
        out += u32(0)
        if let dateTime { out += ascii(dateTime) }
        if !subTags.isEmpty {
            out += [UInt8](repeating: 0xAB, count: gapBeforeSubIFD)
            out += u16(subTags.count)
            var offset = subDataStart
            for (tag, value) in subTags {
                out += u16(tag) + u16(2) + u32(ascii(value).count) + u32(offset)
                offset += ascii(value).count
            }
            out += u32(0)
            for (_, value) in subTags { out += ascii(value) }
        }
        return out
    }
}

/// A temporary folder, removed when the test ends.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
