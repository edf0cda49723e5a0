import Foundation
import ImageProbe
import Testing

@Suite struct ImageProbeTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        let name: String
        let format: ImageFormat
        let width: Int
        let height: Int
        var testDescription: String { name }
    }

    static let fixtures: [Expected] = [
        .init(name: "baseline.jpg", format: .jpeg, width: 24, height: 16),
        .init(name: "progressive.jpg", format: .jpeg, width: 40, height: 30),
        .init(name: "grayscale.jpg", format: .jpeg, width: 20, height: 36),
        .init(name: "cmyk.jpg", format: .jpeg, width: 18, height: 12),
        .init(name: "restart.jpg", format: .jpeg, width: 64, height: 48),
        .init(name: "rgb.png", format: .png, width: 30, height: 20),
        .init(name: "interlaced.png", format: .png, width: 33, height: 17),
        .init(name: "palette.png", format: .png, width: 16, height: 9),
        .init(name: "gray-alpha.png", format: .png, width: 12, height: 25),
        .init(name: "rgb16.png", format: .png, width: 10, height: 14),
    ]

    @Test(arguments: fixtures)
    func whenFixtureIsProbed_thenSizeAndFormatAreExact(_ expected: Expected) throws {
        let path = ImageBytes.fixtures.appendingPathComponent(expected.name).path
        let info = try #require(try ImageProbe.probe(path: path))
        #expect(info.format == expected.format)
        #expect(info.pixelWidth == expected.width)
        #expect(info.pixelHeight == expected.height)
        #expect(info.displayWidth == expected.width)
        #expect(info.displayHeight == expected.height)
        #expect(info.orientation == .up)
        #expect(info.captureDate == nil)
        #expect(info.byteSize == Int64(try ImageBytes.fixture(expected.name).count))
    }

    /// The fixtures really are what their names say; otherwise the test above proves little.
    @Test func fixturesHaveTheFeaturesTheirNamesClaim() throws {
        #expect(ImageBytes.markerOffset(try ImageBytes.fixture("progressive.jpg"), 0xC2) != nil)
        #expect(ImageBytes.markerOffset(try ImageBytes.fixture("baseline.jpg"), 0xC0) != nil)
        #expect(ImageBytes.markerOffset(try ImageBytes.fixture("restart.jpg"), 0xDD) != nil) // DRI
        #expect(ImageBytes.markerOffset(try ImageBytes.fixture("cmyk.jpg"), 0xEE) != nil) // Adobe APP14
        let gray = try ImageBytes.fixture("grayscale.jpg")
        let sof = try #require(ImageBytes.markerOffset(gray, 0xC0))
        #expect(gray[sof + 9] == 1) // one component
        func ihdr(_ name: String) throws -> (depth: UInt8, color: UInt8, interlace: UInt8) {
            let b = try ImageBytes.fixture(name)
            return (b[24], b[25], b[28])
        }
        #expect(try ihdr("interlaced.png").interlace == 1)
        #expect(try ihdr("palette.png").color == 3)
        #expect(try ihdr("gray-alpha.png").color == 4)
        #expect(try ihdr("rgb16.png").depth == 16)
    }

    @Test(arguments: ["baseline.jpg", "interlaced.png"])
    func pathDescriptorAndMemoryProbesAgree(_ name: String) throws {
        let path = ImageBytes.fixtures.appendingPathComponent(name).path
        let byPath = try ImageProbe.probe(path: path)
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(lseek(fd, 5, SEEK_SET) == 5)
        let byDescriptor = try ImageProbe.probe(fileDescriptor: fd)
        #expect(lseek(fd, 0, SEEK_CUR) == 5, "the probe reads with pread and leaves the offset alone")
        let byMemory = try ImageProbe.probe(bytes: try ImageBytes.fixture(name))
        #expect(byPath != nil)
        #expect(byPath == byDescriptor)
        #expect(byPath == byMemory)
    }

    /// Files whose probe ends within the first bytes, and one whose EXIF and frame header lie
    /// past them (40 KB of ICC profile first), so that the probe reads on from the descriptor.
    static func headCases() throws -> [(name: String, bytes: [UInt8])] {
        let tiff = TIFFBuilder(bigEndian: false, orientation: 6, dateTimeOriginal: "2021:07:04 09:15:30")
        let far = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"),
                                  inserting: ImageBytes.iccSegments(size: 40_000) + [ImageBytes.exifSegment(tiff.bytes())])
        let jpeg = try ImageBytes.fixture("baseline.jpg"), png = try ImageBytes.fixture("rgb.png")
        let heic = try ImageBytes.fixture("plain.heic")
        var cases: [(name: String, bytes: [UInt8])] = []
        for name in ["baseline.jpg", "interlaced.png", "lossy.webp", "still.gif", "plain.heic"] {
            cases.append((name, try ImageBytes.fixture(name)))
        }
        cases.append(("exif-past-the-head.jpg", far))
        cases.append(("not-an-image.txt", Array("just words".utf8)))
        // As long as the first read, and between one and two of them.
        cases.append(("padded-to-the-head.jpg", jpeg + [UInt8](repeating: 0, count: ImageProbe.headLength - jpeg.count)))
        cases.append(("padded-past-the-head.png", png + [UInt8](repeating: 0, count: ImageProbe.headLength + 3000 - png.count)))
        // Errors: cut short, cut inside the signature, empty.
        cases.append(("truncated.jpg", Array(far.prefix(20_000))))
        cases.append(("truncated.png", Array(png.prefix(20))))
        cases.append(("truncated.heic", Array(heic.prefix(heic.count / 3))))
        cases.append(("signature.jpg", [0xFF, 0xD8]))
        cases.append(("empty.png", []))
        return cases
    }

    /// A probe's result, or the error it threw, to compare.
    static func outcome(_ probe: () throws(ImageProbeError) -> ImageInfo?) -> String {
        do {
            let info = try probe()
            return "\(String(describing: info)), \(info?.bytesRead ?? -1) bytes read"
        } catch {
            return "\(error)"
        }
    }

    @Test func whenTheCallerHasReadTheHead_thenTheProbeAgreesWithOneThatReadsItself() throws {
        let folder = try TemporaryFolder()
        for (name, bytes) in try Self.headCases() {
            let path = try folder.write(name, bytes)
            let fd = open(path, O_RDONLY)
            try #require(fd >= 0)
            defer { close(fd) }
            let itself = Self.outcome { () throws(ImageProbeError) in try ImageProbe.probe(fileDescriptor: fd) }
            #expect(itself == Self.outcome { () throws(ImageProbeError) in try ImageProbe.probe(bytes: bytes) }, "\(name)")
            // As a scanner reads it (what a first read gets), none, a few (the rest is read from the
            // file), and more than are used.
            for length in [min(bytes.count, ImageProbe.headLength), 0, 1, 5, 100, bytes.count] {
                let given = bytes.prefix(length).withUnsafeBytes { head in
                    Self.outcome { () throws(ImageProbeError) in try ImageProbe.probe(fileDescriptor: fd, size: Int64(bytes.count), head: head) }
                }
                #expect(given == itself, "\(name), \(length) bytes given") // even the bytes read
            }
        }
        #expect(try Self.headCases().contains { $0.bytes.count > 2 * ImageProbe.headLength })
        #expect(try Self.headCases().contains { $0.bytes.count == ImageProbe.headLength })
        #expect(throws: ImageProbeError.self) { try ImageProbe.probe(fileDescriptor: -1, size: 100, head: UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    @Test func whenAPNGIsNamedJpg_thenItIsAPNG() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("really-a-png.jpg", try ImageBytes.fixture("rgb.png"))
        let info = try #require(try ImageProbe.probe(path: path))
        #expect(info.format == .png)
        #expect(info.pixelWidth == 30)
    }

    @Test func whenManyThreadsProbeAtOnce_thenEveryResultIsRight() async throws {
        let names = Self.fixtures.map(\.name)
        let expected = try names.map { try ImageProbe.probe(bytes: try ImageBytes.fixture($0)) }
        let corrupt = ImageBytes.png(try ImageBytes.fixture("rgb.png"), width: 30, height: 20, validCRC: false)
        let results = try await withThrowingTaskGroup(of: (Int, ImageInfo?, Bool).self) { group in
            for round in 0..<400 {
                group.addTask {
                    let index = round % names.count
                    let path = ImageBytes.fixtures.appendingPathComponent(names[index]).path
                    let failed = (try? ImageProbe.probe(bytes: corrupt)) == nil // errors interleave with successes
                    return (index, try ImageProbe.probe(path: path), failed)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 400)
        for (index, info, failed) in results {
            #expect(info == expected[index])
            #expect(failed)
        }
    }
}
