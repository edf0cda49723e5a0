import Foundation
import Testing
import Thumbnailer

/// Truncated, corrupt, unsupported and oversized input: a clear error every time, never a
/// crash, memory bounded whatever the header declares.
@Suite struct BadInputTests {
    func failure(_ bytes: [UInt8], size: Int = 256) -> ThumbnailError? {
        do {
            _ = try Thumbnailer.thumbnail(bytes: bytes, size: size)
            return nil
        } catch {
            return error
        }
    }

    @Test func whenTheBytesAreNoImage_thenUnsupportedFormat_orEmpty() {
        #expect(failure([]) == .truncated(detail: "the file is empty"), "as the probe says it, not \"not a JPEG, PNG...\"")
        #expect(failure(Array("hello, world".utf8)) == .unsupportedFormat)
        #expect(failure([0xFF, 0xD8]) == .unsupportedFormat, "two bytes are not a JPEG yet")
    }

    @Test(arguments: ["baseline.jpg", "progressive.jpg", "rgb.png", "interlaced.png", "palette.png"])
    func whenAFileIsCutShort_thenTruncated(file: String) throws {
        let bytes = try Fixture.bytes(file)
        for cut in [bytes.count / 2, bytes.count - 40, 30] {
            guard case .truncated? = failure(Array(bytes[..<cut])) else {
                Issue.record("\(file) cut at \(cut): \(String(describing: failure(Array(bytes[..<cut]))))")
                continue
            }
        }
    }

    @Test func whenAPNGChunkIsDamaged_thenCorrupt() throws {
        var data = try Fixture.bytes("rgb.png")
        data[data.count / 2] ^= 0x55 // inside IDAT: zlib's check fails before the chunk's CRC is read
        #expect(failure(data) == .corrupt(detail: "IDAT: incorrect data check"))
        var header = try Fixture.bytes("rgb.png")
        header[30] ^= 0x55 // IHDR's CRC
        #expect(failure(header) == .corrupt(detail: "IHDR: CRC error"))
    }

    /// A JPEG of full length whose image data holds a marker where data should be (a damaged
    /// byte: 0xFF then a marker's code), or whose data reaches its end marker early (a flipped
    /// bit desyncs the Huffman decoding), is corrupt, not "truncated": it was called that, and
    /// only a file cut short is.
    @Test func whenAJPEGsImageDataIsDamaged_thenCorrupt_notTruncated() throws {
        var bytes = try Fixture.bytes("baseline.jpg")
        let sos = try #require(Fixture.jpegMarker(bytes, 0xDA))
        let data = sos + 2 + Int(bytes[sos + 2]) << 8 + Int(bytes[sos + 3])
        let middle = (data + bytes.count - 2) / 2
        bytes[middle] = 0xFF
        bytes[middle + 1] = 0xC4
        let damaged = ThumbnailError.corrupt(detail: "the JPEG's image data is damaged: it meets a marker before the image is complete")
        #expect(failure(bytes) == damaged)
        var flipped = try Fixture.bytes("baseline.jpg")
        flipped[middle] ^= 0x10
        #expect(failure(flipped) == damaged)
    }

    @Test func whenAJPEGHeaderIsDamaged_thenCorruptWithLibjpegsReason() throws {
        var bytes = try Fixture.bytes("baseline.jpg")
        let sof = try #require(Fixture.jpegMarker(bytes, 0xC0))
        bytes[sof + 9] = 0 // zero components
        guard case .corrupt(let detail)? = failure(bytes) else { Issue.record("\(String(describing: failure(bytes)))"); return }
        #expect(!detail.isEmpty)
    }

    @Test func whenAJPEGHas12BitSamples_thenAClearError() throws {
        let bytes = Fixture.jpeg(try Fixture.bytes("baseline.jpg"), sof: 0xC0, width: 640, height: 480, precision: 12)
        #expect(failure(bytes) == .unsupportedKind(detail: "a 12-bit JPEG: this build of libjpeg-turbo decodes 8-bit JPEGs only"))
    }

    /// Lossless and hierarchical JPEGs, which libjpeg-turbo 2 does not decode: said so by name,
    /// not "corrupt" (their size is read by the probe, and they are items). A hierarchical file
    /// starts with a DHP segment, where libjpeg stops.
    @Test(arguments: [(UInt8(0xC3), false, "a lossless JPEG (SOF3)"), (0xCB, false, "a lossless JPEG (SOF11)"),
                      (0xC5, true, "a hierarchical JPEG (DHP)")])
    func whenAJPEGIsLosslessOrHierarchical_thenAClearError(_ marker: UInt8, _ hierarchical: Bool, _ kind: String) throws {
        var bytes = try Fixture.bytes("baseline.jpg")
        let sof = try #require(Fixture.jpegMarker(bytes, 0xC0))
        bytes[sof + 1] = marker
        if hierarchical {
            bytes.insert(contentsOf: [0xFF, 0xDE, 0, 11, 8, 0, 16, 0, 24, 1, 1, 0x11, 0], at: sof)
        }
        #expect(failure(bytes) == .unsupportedKind(detail: "\(kind): this build of libjpeg-turbo does not decode it"))
    }

    /// Huge declared sizes. 65,000 x 65,000: a progressive JPEG would need 24 GiB of
    /// coefficients and is refused before anything is allocated; a baseline one is decoded at
    /// 1/8, a few rows at a time, until its data runs out. 65,535 a side is past what libjpeg
    /// decodes at all. A PNG has no reduced decode: over the pixel budget it is refused.
    @Test func whenAHeaderDeclaresAHugeImage_thenItIsRefusedOrDecodedSmallWithMemoryBounded() throws {
        let progressive = Fixture.jpeg(try Fixture.bytes("progressive.jpg"), sof: 0xC2, width: 65000, height: 65000)
        guard case .tooLarge(let detail)? = failure(progressive) else { Issue.record("progressive: \(String(describing: failure(progressive)))"); return }
        #expect(detail.contains("65000 x 65000") && detail.contains("MiB"), "\(detail)")
        let baseline = Fixture.jpeg(try Fixture.bytes("baseline.jpg"), sof: 0xC0, width: 65000, height: 65000)
        guard case .corrupt? = failure(baseline) else { Issue.record("baseline: \(String(describing: failure(baseline)))"); return }
        let widest = Fixture.jpeg(try Fixture.bytes("baseline.jpg"), sof: 0xC0, width: 65535, height: 65535)
        #expect(failure(widest) == .tooLarge(detail: "a JPEG of 65535 x 65535 pixels: libjpeg decodes at most 65500 pixels a side"))
        let png = Fixture.png(try Fixture.bytes("rgb.png"), width: 65535, height: 65535)
        guard case .tooLarge(let pngDetail)? = failure(png) else { Issue.record("png: \(String(describing: failure(png)))"); return }
        #expect(pngDetail.contains("\(Thumbnailer.pixelBudget)"))
        // Within the budget it is decoded, and its data (300-pixel rows) does not fit 8192.
        let withinBudget = Fixture.png(try Fixture.bytes("rgb.png"), width: 8192, height: 8192)
        #expect(failure(withinBudget) == .corrupt(detail: "bad adaptive filter value"))
    }

    @Test func whenTheRequestIsInvalid_thenInvalidArgument() throws {
        let bytes = try Fixture.bytes("baseline.jpg")
        #expect(failure(bytes, size: 0) == .invalidArgument(detail: "a box of 0 pixels"))
        #expect(throws: ThumbnailError.invalidArgument(detail: "orientation 9 is not 1...8")) {
            try Thumbnailer.thumbnail(bytes: bytes, orientation: 9)
        }
        #expect(throws: ThumbnailError.invalidArgument(detail: "JPEG quality 0 is not 1...100")) {
            try Thumbnailer.thumbnail(bytes: bytes, quality: 0)
        }
    }

    @Test func whenThePathIsNoFile_thenTheErrorSaysSo() throws {
        #expect(throws: ThumbnailError.notARegularFile) { try Thumbnailer.thumbnail(path: Fixture.folder.path) }
        do {
            _ = try Thumbnailer.thumbnail(path: "/nonexistent/x.jpg")
            Issue.record("a missing file must be unreadable")
        } catch {
            #expect(error == .unreadable(reason: "No such file or directory"))
        }
    }
}
