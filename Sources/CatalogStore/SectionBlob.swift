import CatalogModel

/// One order chunk's section keys (OrderData, Migrations/0006_section_keys.sql): the runs of its
/// entries' month keys and parent-folder keys, each run as the offset of its first entry and
/// its key. Dates are newest first in date order, so a chunk of 4,096 items holds a run or two
/// of months; folders run long in path order.
struct SectionBlob {
    var months: [(offset: Int, key: UInt64)] = []
    var folders: [(offset: Int, key: UInt64)] = []
    /// The last entry's parent folder, so that a run of one folder is hashed once.
    private var folder: [UInt8] = []
    private var folderKey: UInt64 = 0

    init() {}

    /// Empty, keeping the buffers' memory.
    init(reusing old: SectionBlob) {
        months = old.months
        folders = old.folders
        folder = old.folder
        months.removeAll(keepingCapacity: true)
        folders.removeAll(keepingCapacity: true)
        folder.removeAll(keepingCapacity: true)
    }

    /// Notes the keys of entry `entry` (entries come in order from 0).
    mutating func note(entry: Int, date: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) {
        let month = SectionGrouping.month(ofDate: date)
        if entry == 0 || months.last?.key != month { months.append((entry, month)) }
        let end = key.lastIndex(of: UInt8(ascii: "/")) ?? 0
        let parent = UnsafeRawBufferPointer(rebasing: key[..<end])
        if entry == 0 || !parent.elementsEqual(folder) {
            folder.removeAll(keepingCapacity: true)
            folder.append(contentsOf: parent)
            folderKey = SectionGrouping.folderKey(of: key)
        }
        if entry == 0 || folders.last?.key != folderKey { folders.append((entry, folderKey)) }
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + months.count * 8 + folders.count * 12)
        Self.varint(months.count, into: &bytes)
        for (offset, key) in months {
            Self.varint(offset, into: &bytes)
            Self.varint(Int(key), into: &bytes)
        }
        Self.varint(folders.count, into: &bytes)
        for (offset, key) in folders {
            Self.varint(offset, into: &bytes)
            withUnsafeBytes(of: key.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// The runs of a stored blob; nil for none (a chunk written before section keys) or one
    /// that does not read.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> (months: [(Int, UInt64)], folders: [(Int, UInt64)])? {
        guard bytes.baseAddress != nil, !bytes.isEmpty else { return nil }
        var offset = 0
        func varint() -> Int? {
            var value = 0
            var shift = 0
            while offset < bytes.count, shift < 63 {
                let byte = bytes[offset]
                offset += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        guard let monthCount = varint(), monthCount <= bytes.count else { return nil }
        var months: [(Int, UInt64)] = []
        for _ in 0..<monthCount {
            guard let entry = varint(), let key = varint() else { return nil }
            months.append((entry, UInt64(key)))
        }
        guard let folderCount = varint(), folderCount <= bytes.count else { return nil }
        var folders: [(Int, UInt64)] = []
        for _ in 0..<folderCount {
            guard let entry = varint(), offset + 8 <= bytes.count else { return nil }
            folders.append((entry, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))))
            offset += 8
        }
        return offset == bytes.count ? (months, folders) : nil
    }

    static func varint(_ value: Int, into bytes: inout [UInt8]) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}
