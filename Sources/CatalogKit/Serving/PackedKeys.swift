import CatalogModel
import Foundation

/// A window's item keys as the page cache keeps them: one buffer of records instead of a
/// dictionary of `ItemKey`s, each with its own allocations for the key, the address and the
/// title. About 70 bytes an imported item with an address and a title against about 180 as a
/// dictionary, so the same budget holds two to three times the windows. Read back (`add`) for
/// each page made from it: a few dozen records.
///
/// A record, in this machine's byte order: the id (8 bytes); the key's length (4) and bytes; a
/// byte 1 and the file's device, inode, size and mtime (8 bytes each) for a scanned item, else
/// a byte 0; the address and the title, each a length (4; −1 for none) and UTF-8.
struct PackedKeys: Sendable {
    private(set) var storage: [UInt8] = []

    init(_ keys: [Int64: ItemKey]) {
        var storage: [UInt8] = []
        storage.reserveCapacity(keys.values.reduce(0) { $0 + 8 + 4 + $1.key.count + 1 + 8 + ($1.url?.utf8.count ?? 0) + ($1.title?.utf8.count ?? 0) })
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value) { storage.append(contentsOf: $0) } }
        func append(_ text: String?) {
            guard var text else { return append(Int32(-1)) }
            text.withUTF8 { bytes in
                append(Int32(bytes.count))
                storage.append(contentsOf: bytes)
            }
        }
        for (id, key) in keys {
            append(id)
            append(Int32(key.key.count))
            storage.append(contentsOf: key.key)
            if let file = key.file {
                storage.append(1)
                append(file.device)
                append(file.inode)
                append(file.size)
                append(file.mtimeNanoseconds)
            } else {
                storage.append(0)
            }
            append(key.url)
            append(key.title)
        }
        self.storage = storage
    }

    /// Bytes kept.
    var count: Int { storage.count }

    /// Adds each key to `keys`, keeping a key already there.
    func add(to keys: inout [Int64: ItemKey]) {
        storage.withUnsafeBytes { bytes in
            var at = 0
            func integer<T: FixedWidthInteger>(_: T.Type) -> T {
                defer { at += MemoryLayout<T>.size }
                return bytes.loadUnaligned(fromByteOffset: at, as: T.self)
            }
            func data(_ count: Int) -> UnsafeRawBufferPointer {
                defer { at += count }
                return UnsafeRawBufferPointer(rebasing: bytes[at..<at + count])
            }
            func text() -> String? {
                let count = Int(integer(Int32.self))
                return count < 0 ? nil : String(decoding: data(count), as: UTF8.self)
            }
            while at < bytes.count {
                let id = integer(Int64.self)
                let key = Data(data(Int(integer(Int32.self))))
                let file = data(1)[0] == 1
                    ? FileIdentity(device: integer(Int64.self), inode: integer(Int64.self), size: integer(Int64.self),
                                   mtimeNanoseconds: integer(Int64.self))
                    : nil
                let url = text()
                let title = text()
                if keys[id] == nil { keys[id] = ItemKey(key: key, file: file, url: url, title: title) }
            }
        }
    }
}
