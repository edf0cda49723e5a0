import Foundation
import Thumbnailer

/// The committed fixtures (Fixtures/generate.py) and the byte surgery the bad-input tests need.
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// Offset of the first JPEG marker `marker` (FF xx) at a segment boundary.
    static func jpegMarker(_ bytes: [UInt8], _ marker: UInt8) -> Int? {
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            if bytes[i + 1] == marker { return i }
            i += 2 + Int(bytes[i + 2]) << 8 + Int(bytes[i + 3])
        }
        return nil
    }

    /// A JPEG whose SOF segment declares another size (and keeps its data).
    static func jpeg(_ bytes: [UInt8], sof: UInt8, width: Int, height: Int, precision: UInt8 = 8) -> [UInt8] {
        var out = bytes
        let at = jpegMarker(bytes, sof)!
        out[at + 4] = precision
        (out[at + 5], out[at + 6]) = (UInt8(height >> 8), UInt8(height & 0xFF))
        (out[at + 7], out[at + 8]) = (UInt8(width >> 8), UInt8(width & 0xFF))
        return out
    }

    /// A PNG whose IHDR declares another size, its CRC recomputed so that only the size is wrong.
    static func png(_ bytes: [UInt8], width: UInt32, height: UInt32) -> [UInt8] {
        var out = bytes
        for (offset, value) in [(16, width), (20, height)] {
            for k in 0..<4 { out[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        let crc = crc32(Array(out[12..<29]))
        for k in 0..<4 { out[29 + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        return out
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension RGBAImage {
    /// The pixel at a fraction of the width and height.
    func at(_ u: Double, _ v: Double) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        self[min(width - 1, Int(u * Double(width))), min(height - 1, Int(v * Double(height)))]
    }
}

/// Whether two channel values are within `tolerance`.
func near(_ a: UInt8, _ b: Int, _ tolerance: Int = 12) -> Bool { abs(Int(a) - b) <= tolerance }
