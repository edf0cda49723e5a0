package import Foundation

/// What groups consecutive items of an order into sections: the year or the month of their
/// sort date, or their parent folder. Each item gets a key; a section is a run of equal keys.
public enum SectionGrouping: String, Sendable, Hashable, CaseIterable {
    case year
    case month
    case folder

    /// The month key of a sort date ("2024-03-01T10:00:00" → 202403): year × 100 + month; 0
    /// for a date that does not start with "YYYY-MM".
    package static func month(ofDate date: UnsafeRawBufferPointer) -> UInt64 {
        guard date.count >= 7, date[4] == UInt8(ascii: "-") else { return 0 }
        var value: UInt64 = 0
        for offset in 0..<7 where offset != 4 {
            let digit = date[offset] &- UInt8(ascii: "0")
            guard digit < 10 else { return 0 }
            value = value * 10 + UInt64(digit)
        }
        return value
    }

    package static func month(ofDate date: String) -> UInt64 {
        var date = date
        return date.withUTF8 { month(ofDate: UnsafeRawBufferPointer($0)) }
    }

    /// An item key's parent folder: its bytes up to the last "/" (the empty folder for a key
    /// without one: an import key such as "pin-1").
    package static func folder(of key: Data) -> Data {
        guard let slash = key.lastIndex(of: UInt8(ascii: "/")) else { return Data() }
        return Data(key[..<slash])
    }

    /// The folder key: FNV-1a (64 bits) of the parent folder's bytes. Two folders next to each
    /// other in an order share a key only if their 64-bit hashes collide.
    package static func folderKey(of key: UnsafeRawBufferPointer) -> UInt64 {
        var end = key.count
        while end > 0, key[end - 1] != UInt8(ascii: "/") { end -= 1 }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for offset in 0..<max(0, end - 1) { hash = (hash ^ UInt64(key[offset])) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    package static func folderKey(of key: Data) -> UInt64 {
        key.withUnsafeBytes { folderKey(of: $0) }
    }

    /// A section's title: the year ("2024"), the month ("2024-03"), or the folder's bytes for
    /// `folder` (the caller shows them as a path).
    package func title(key: UInt64) -> String {
        switch self {
        case .year: key == 0 ? "undated" : String(format: "%04d", Int(key)) // "0050", as months are "0050-06"
        case .month: key == 0 ? "undated" : String(format: "%04d-%02d", Int(key / 100), Int(key % 100))
        case .folder: ""
        }
    }
}

/// A section of an order: where it starts (the position of its first item) and its key.
package struct SectionRun: Sendable, Hashable {
    package var position: Int
    package var key: UInt64

    package init(position: Int, key: UInt64) {
        self.position = position
        self.key = key
    }
}
