/// One byte range of a `Range: bytes=…` header, resolved against a file's size.
enum ByteRange {
    /// nil: no Range header, or one this server ignores (several ranges, another unit): the
    /// whole file is sent, as RFC 9110 allows. Throws a 416 for a range outside the file.
    static func parse(_ header: String?, size: Int64) throws(APIError) -> Range<Int64>? {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard spec.count == 2 else { return nil }
        let unsatisfiable = APIError(status: 416, message: "the range \(header) lies outside the file's \(size) bytes", parameter: "Range")
        switch (Int64(spec[0]), Int64(spec[1])) {
        case (let first?, let last?) where first <= last && first >= 0:
            guard first < size else { throw unsatisfiable }
            return first..<(min(last, size - 1) + 1) // no overflow at last = Int64.max
        case (let first?, nil) where spec[1].isEmpty && first >= 0:
            guard first < size else { throw unsatisfiable }
            return first..<size
        case (nil, let suffix?) where spec[0].isEmpty && suffix > 0:
            guard size > 0 else { throw unsatisfiable }
            return max(0, size - suffix)..<size
        default:
            return nil
        }
    }
}

extension Substring {
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
