@testable import CatalogKit
import Foundation
import Testing

/// A scan reads a file's first bytes once, for the probe and the fingerprint both. The
/// fingerprint made from them must be the one made by reading the file (what catalogs already
/// hold): a file moved to another inode is recognised by it.
@Suite struct FileFingerprintTests {
    /// Runs `body` with `bytes` written to a file of their own, open for reading.
    static func withFile(_ bytes: [UInt8], _ body: (Int32) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fingerprint-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        try body(fd)
    }

    static let sizes = [0, 1, 7, 4095, 4096, 4097, 8191, 8192, 10_000, 16_383, 16_384, 16_385, 20_000, 40_000]

    @Test(arguments: sizes)
    func whenTheHeadIsGiven_thenTheFingerprintIsTheOneReadFromTheFile(_ size: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Self.withFile(bytes) { fd in
            let read = try #require(FileFingerprint.compute(fd: fd, size: Int64(size)))
            // What a scan's first read gets, none, part of it, and more than a span.
            for length in Set([min(size, 16_384), 0, min(size, 100), min(size, 4096), min(size, 5000), size]) {
                let given = bytes.prefix(length).withUnsafeBytes { FileFingerprint.compute(fd: fd, size: Int64(size), head: $0) }
                #expect(given == read, "\(size) bytes, \(length) of them given")
            }
            // Made from the bytes given, not from the size alone (no descriptor to read from): one
            // byte changed at either end changes it.
            if size > 0 && size <= 16_384 {
                for position in Set([0, size - 1]) {
                    var changed = bytes
                    changed[position] ^= 0xFF
                    let other = try #require(changed.withUnsafeBytes { FileFingerprint.compute(fd: -1, size: Int64(size), head: $0) })
                    #expect(other != read, "\(size) bytes, byte \(position) changed")
                }
            }
        }
    }

    /// Fingerprints as catalogs hold them, made by the reads of the code before the first bytes
    /// were shared (and by a Python copy of it): a change to the hash would make every file of
    /// an existing catalog look changed to a later scan's move detection.
    @Test(arguments: [(100, -8_265_718_036_335_163_609), (5000, 4_940_167_177_237_042_229), (20_000, 7_816_884_737_773_892_579)])
    func theFingerprintOfKnownBytesIsTheOneCatalogsHold(_ size: Int, _ expected: Int64) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try Self.withFile(bytes) { fd in
            #expect(FileFingerprint.compute(fd: fd, size: Int64(size)) == expected)
            #expect(bytes.prefix(16_384).withUnsafeBytes { FileFingerprint.compute(fd: fd, size: Int64(size), head: $0) } == expected)
        }
    }
}
