/// One byte range of a `Range: bytes=…` header, resolved against a file's size.
enum ByteRange {
    /// nil: no Range header, or one this server ignores (several ranges, another unit): the
    /// whole file is sent, as RFC 9110 allows. Throws a 416 for a range outside the file.
    static func parse(_ header: String?, size: Int64) throws(APIError) -> Range<Int64>? {
        // The unit is case-insensitive (RFC 9110, 14.1).
        guard let header, header.prefix(6).lowercased() == "bytes=", !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard spec.count == 2, spec.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        let unsatisfiable = APIError(status: 416, message: "the range \(header) lies outside the file's \(size) bytes", parameter: "Range")
        // Digits past Int64 are a position past any file: the end, or past it.
        func position(_ digits: String) -> Int64? { digits.isEmpty ? nil : Int64(digits) ?? .max }
        switch (position(spec[0]), position(spec[1])) {
        case (let first?, let last?) where first <= last:
            guard first < size else { throw unsatisfiable }
            return first..<(min(last, size - 1) + 1) // no overflow at last = Int64.max
        case (let first?, nil):
            guard first < size else { throw unsatisfiable }
            return first..<size
        case (nil, let suffix?):
            // A suffix of 0 bytes selects nothing: unsatisfiable (RFC 9110, 14.1.2).
            guard size > 0, suffix > 0 else { throw unsatisfiable }
            return max(0, size - suffix)..<size
        default:
            return nil
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
