/// Little-endian bytes for archives: fixed-width numbers and LEB128 varints.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func raw(_ values: [UInt8]) { bytes.append(contentsOf: values) }
    mutating func uint8(_ value: UInt8) { bytes.append(value) }

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }
    mutating func double(_ value: Double) { uint64(value.bitPattern) }
}

/// The same encoding written into memory sized beforehand: no capacity checks, no growth.
struct RawWriter {
    let base: UnsafeMutableRawPointer
    var offset = 0

    mutating func varint(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            base.storeBytes(of: UInt8(rest & 0x7F) | 0x80, toByteOffset: offset, as: UInt8.self)
            offset += 1
            rest >>= 7
        }
        base.storeBytes(of: UInt8(rest), toByteOffset: offset, as: UInt8.self)
        offset += 1
    }

    mutating func uint64(_ value: UInt64) {
        base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
        offset += 8
    }

    mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }
    mutating func double(_ value: Double) { uint64(value.bitPattern) }
}

struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func varint() throws(LayoutError) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw .corruptArchive("a number runs past the end") }
            guard shift < 63 else { throw .corruptArchive("a number is too long") }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard value <= UInt64(Int.max) else { throw .corruptArchive("a number is out of range") }
        return Int(value)
    }

    /// The next `count` bytes as they are.
    mutating func raw(_ count: Int) throws(LayoutError) -> ArraySlice<UInt8> {
        guard bytes.count - offset >= count else { throw .corruptArchive("a value runs past the end") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func uint8() throws(LayoutError) -> UInt8 { try raw(1).first! }

    mutating func uint64() throws(LayoutError) -> UInt64 {
        guard bytes.count - offset >= 8 else { throw .corruptArchive("a value runs past the end") }
        var value: UInt64 = 0
        for shift in 0..<8 { value |= UInt64(bytes[offset + shift]) << UInt64(shift * 8) }
        offset += 8
        return value
    }

    mutating func int64() throws(LayoutError) -> Int64 { Int64(bitPattern: try uint64()) }
    mutating func double() throws(LayoutError) -> Double { Double(bitPattern: try uint64()) }
}
