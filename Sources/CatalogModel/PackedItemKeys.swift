import Foundation

/// Items' keys packed in one buffer of records: what a PostgreSQL store's statement sends for a
/// page's items (one cell instead of eight an item), and what the page cache keeps for a window
/// (about 100 bytes an imported item, against about 215 as a dictionary of `ItemKey`s, each with
/// its own allocations).
///
/// A record, big-endian: the id (8 bytes); the key's length (4) and bytes; a byte 1 and the
/// file's device, inode, size and mtime in nanoseconds (8 bytes each) for a scanned item, else
/// a byte 0; the address and the title, each a length (4; −1 for none) and UTF-8.
package struct PackedItemKeys: Sendable {
    package private(set) var bytes: [UInt8]

    /// Records as another process sent them: `add(to:)` checks them.
    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package init(_ keys: [Int64: ItemKey]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.values.reduce(0) { $0 + 8 + 4 + $1.key.count + 1 + 8 + ($1.url?.utf8.count ?? 0) + ($1.title?.utf8.count ?? 0) })
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        func append(_ text: String?) {
            guard var text else { return append(Int32(-1)) }
            text.withUTF8 { utf8 in
                append(Int32(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }
        for (id, key) in keys {
            append(id)
            append(Int32(key.key.count))
            bytes.append(contentsOf: key.key)
            if let file = key.file {
                bytes.append(1)
                append(file.device)
                append(file.inode)
                append(file.size)
                append(file.mtimeNanoseconds)
            } else {
                bytes.append(0)
            }
            append(key.url)
            append(key.title)
        }
        self.bytes = bytes
    }

    /// Adds each key to `keys`, keeping a key already there; a record cut short or with a bad
    /// length or flag is an error (nothing is added past it).
    package func add(to keys: inout [Int64: ItemKey]) throws {
        try bytes.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var reader = Reader(bytes: bytes)
            while !reader.isAtEnd {
                let id = try reader.integer(Int64.self)
                guard let key = try reader.field() else { throw reader.corrupt }
                var file: FileIdentity?
                switch try reader.take(1)[0] {
                case 0: break
                case 1: file = FileIdentity(device: try reader.integer(Int64.self), inode: try reader.integer(Int64.self),
                                            size: try reader.integer(Int64.self), mtimeNanoseconds: try reader.integer(Int64.self))
                default: throw reader.corrupt
                }
                let url = try reader.field().map { String(decoding: $0, as: UTF8.self) }
                let title = try reader.field().map { String(decoding: $0, as: UTF8.self) }
                if keys[id] == nil { keys[id] = ItemKey(key: key, file: file, url: url, title: title) }
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0
        var isAtEnd: Bool { at == bytes.count }
        var corrupt: StoreError { StoreError.database("items' keys that cannot be read (at byte \(at) of \(bytes.count))") }

        mutating func take(_ count: Int) throws(StoreError) -> UnsafeRawBufferPointer {
            guard count >= 0, count <= bytes.count - at else { throw corrupt }
            defer { at += count }
            return UnsafeRawBufferPointer(rebasing: bytes[at..<at + count])
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(StoreError) -> T {
            T(bigEndian: try take(MemoryLayout<T>.size).loadUnaligned(as: T.self))
        }

        /// A 4-byte length and that many bytes; nil for −1.
        mutating func field() throws(StoreError) -> Data? {
            let length = try integer(Int32.self)
            return length == -1 ? nil : Data(try take(Int(length)))
        }
    }
}
