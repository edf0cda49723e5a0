@testable import CatalogKit
import Foundation
import Testing

/// A scan reads a file's first bytes once, for the probe and the fingerprint both. The
/// fingerprint made from them must be the one made by reading the file (what catalogs already
/// hold): a file moved to another inode is recognised by it.
@Suite struct FileFingerprintTests {
    static let sizes = [0, 1, 7, 4095, 4096, 4097, 8191, 8192, 10_000, 16_383, 16_384, 16_385, 20_000, 40_000]

    @Test(arguments: sizes)
    func whenTheHeadIsGiven_thenTheFingerprintIsTheOneReadFromTheFile(_ size: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fingerprint-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let read = try #require(FileFingerprint.compute(fd: fd, size: Int64(size)))
        // What a scan's first read gets, none, part of it, and more than a span.
        for length in Set([min(size, 16_384), 0, min(size, 100), min(size, 4096), min(size, 5000), size]) {
            let given = bytes.prefix(length).withUnsafeBytes { FileFingerprint.compute(fd: fd, size: Int64(size), head: $0) }
            #expect(given == read, "\(size) bytes, \(length) of them given")
        }
        // Made from the bytes, not from the size alone: one byte changed at either end changes it.
        if size > 0 {
            for position in Set([0, size - 1]) {
                var changed = bytes
                changed[position] ^= 0xFF
                let other = changed.prefix(16_384).withUnsafeBytes { head in
                    size <= 16_384 ? FileFingerprint.compute(fd: -1, size: Int64(size), head: head) : nil
                }
                if let other { #expect(other != read, "\(size) bytes, byte \(position) changed") }
            }
        }
    }
}
