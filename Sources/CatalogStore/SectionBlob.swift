import CatalogModel
import Foundation

/// One order chunk's section keys (OrderData, Migrations/0006_section_keys.sql): the runs of its
/// entries' month keys and parent-folder keys, each run as the offset of its first entry and
/// its key. Dates are newest first in date order, so a chunk of 4,096 items holds a run or two
/// of months; folders run long in path order.
struct SectionBlob {
    struct Run {
        var offset: Int
        var key: UInt64
    }

    var months: [Run] = []
    var folders: [Run] = []
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

    /// Notes the keys of entry `entry` (entries come in order from 0): its month key
    /// (`SectionGrouping.month(ofDate:)` of its date) and its key.
    mutating func note(entry: Int, month: UInt64, key: UnsafeRawBufferPointer) {
        if entry == 0 || months[months.count - 1].key != month { months.append(Run(offset: entry, key: month)) }
        var end = key.count
        while end > 0, key[end - 1] != UInt8(ascii: "/") { end -= 1 }
        let parentLength = max(0, end - 1)
        let same = entry > 0 && parentLength == folder.count && folder.withUnsafeBytes { previous in
            parentLength == 0 || memcmp(previous.baseAddress!, key.baseAddress!, parentLength) == 0
        }
        if !same {
            folder.removeAll(keepingCapacity: true)
            if parentLength > 0 { folder.append(contentsOf: UnsafeRawBufferPointer(rebasing: key[..<parentLength])) }
            folderKey = SectionGrouping.folderKey(of: key)
        }
        if entry == 0 || folders[folders.count - 1].key != folderKey { folders.append(Run(offset: entry, key: folderKey)) }
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + months.count * 8 + folders.count * 12)
        Self.varint(months.count, into: &bytes)
        for run in months {
            Self.varint(run.offset, into: &bytes)
            Self.varint(Int(run.key), into: &bytes)
        }
        Self.varint(folders.count, into: &bytes)
        for run in folders {
            Self.varint(run.offset, into: &bytes)
            withUnsafeBytes(of: run.key.littleEndian) { bytes.append(contentsOf: $0) }
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
