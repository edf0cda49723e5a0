import Foundation
import ImageProbe
import Testing

/// WebP, GIF, HEIC and AVIF (issue #15): sizes from the headers through libwebp, giflib and
/// libheif, on real files (Fixtures/generate.py: Pillow and heif-enc, irot and imir added by box
/// surgery), sniffed by content whatever the name, and broken files refused with a clear error.
@Suite struct FormatTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        let name: String
        let format: ImageFormat
        let width: Int
        let height: Int
        var displayWidth: Int? = nil
        var displayHeight: Int? = nil
        var date: String? = nil
        var testDescription: String { name }
    }

    static let fixtures: [Expected] = [
        .init(name: "lossy.webp", format: .webp, width: 36, height: 20),
        .init(name: "lossless.webp", format: .webp, width: 22, height: 31),
        // EXIF orientation 6 applies to WebP as to JPEG: 20x36 stored, 36x20 shown.
        .init(name: "exif6.webp", format: .webp, width: 20, height: 36, displayWidth: 36, displayHeight: 20, date: "2021-04-05T06:07:08"),
        .init(name: "animated.webp", format: .webp, width: 28, height: 18),
        .init(name: "still.gif", format: .gif, width: 26, height: 14),
        .init(name: "animated.gif", format: .gif, width: 30, height: 22),
        // HEIF and AVIF: the size after irot/imir is the stored size; their EXIF orientation is
        // not applied again. The date comes from the Exif item heif-enc copied from the JPEG.
        .init(name: "plain.heic", format: .heic, width: 48, height: 32, date: "2022-08-09T10:11:12"),
        .init(name: "irot90.heic", format: .heic, width: 32, height: 48, date: "2022-08-09T10:11:12"),
        .init(name: "irot180.heic", format: .heic, width: 48, height: 32, date: "2022-08-09T10:11:12"),
        .init(name: "irot270.heic", format: .heic, width: 32, height: 48, date: "2022-08-09T10:11:12"),
        .init(name: "imir.heic", format: .heic, width: 48, height: 32, date: "2022-08-09T10:11:12"),
        .init(name: "irot90-imir.heic", format: .heic, width: 32, height: 48, date: "2022-08-09T10:11:12"),
        .init(name: "thumbnail-item.heic", format: .heic, width: 64, height: 40),
        .init(name: "plain.avif", format: .avif, width: 48, height: 32, date: "2022-08-09T10:11:12"),
        .init(name: "irot90.avif", format: .avif, width: 32, height: 48, date: "2022-08-09T10:11:12"),
        .init(name: "irot180.avif", format: .avif, width: 48, height: 32, date: "2022-08-09T10:11:12"),
        .init(name: "irot270.avif", format: .avif, width: 32, height: 48, date: "2022-08-09T10:11:12"),
        .init(name: "imir.avif", format: .avif, width: 48, height: 32, date: "2022-08-09T10:11:12"),
        .init(name: "irot90-imir.avif", format: .avif, width: 32, height: 48, date: "2022-08-09T10:11:12"),
    ]

    @Test(arguments: fixtures)
    func sizesFormatsOrientationsAndDates(_ expected: Expected) throws {
        let bytes = try ImageBytes.fixture(expected.name)
        for info in [try ImageProbe.probe(path: ImageBytes.fixtures.appendingPathComponent(expected.name).path),
                     try ImageProbe.probe(bytes: [UInt8](bytes))] {
            let info = try #require(info)
            #expect(info.format == expected.format)
            #expect((info.pixelWidth, info.pixelHeight) == (expected.width, expected.height))
            #expect((info.displayWidth, info.displayHeight) == (expected.displayWidth ?? expected.width, expected.displayHeight ?? expected.height))
            #expect(info.captureDate?.description == expected.date)
            #expect(info.byteSize == Int64(bytes.count))
            #expect(info.bytesRead > 0 && info.bytesRead <= Int64(bytes.count), "read \(info.bytesRead) of \(bytes.count)")
        }
    }

    /// The name says nothing: a WebP called .jpg, a HEIC called .png, an AVIF without a name.
    @Test func contentDecidesNotTheName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("format-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (source, name, format) in [("lossy.webp", "photo.jpg", ImageFormat.webp), ("plain.heic", "photo.png", .heic),
                                       ("plain.avif", "noextension", .avif), ("still.gif", "still.webp", .gif)] {
            let url = folder.appendingPathComponent(name)
            try Data(ImageBytes.fixture(source)).write(to: url)
            #expect(try ImageProbe.probe(path: url.path)?.format == format, "\(name)")
        }
    }

    /// A HEIC's size costs what its boxes cost, not its pixels: the coded data is skipped. Like
    /// the JPEG probe, the first read is one buffer (16 KiB); nothing more for a bigger mdat.
    @Test(arguments: ["plain.heic", "plain.avif"])
    func aHeifProbeReadsItsBoxesNotItsImageData(_ name: String) throws {
        let bytes = try ImageBytes.fixture(name)
        func padded(_ megabytes: Int) throws -> ImageInfo {
            let padding = [UInt8](repeating: 0, count: megabytes << 20)
            return try #require(try ImageProbe.probe(bytes: bytes + ImageBytes.be32(padding.count + 8) + Array("mdat".utf8) + padding))
        }
        let one = try padded(1), ten = try padded(10)
        #expect(one.bytesRead == ten.bytesRead && one.bytesRead <= 16384 + 4096, "read \(one.bytesRead) and \(ten.bytesRead) bytes")
        #expect((ten.pixelWidth, ten.pixelHeight) == (48, 32))
    }

    /// A GIF's size is its screen grown to hold the first frame, as Chromium, Firefox and libvips
    /// draw it (found against them): a screen of 0x0, one too short, a frame placed past its corner.
    @Test func aGifIsTheSizeBrowsersDrawIt() throws {
        let gif = [UInt8](try ImageBytes.fixture("still.gif")) // screen and frame 26 x 14 at 0, 0
        let frame = try #require(ImageBytes.gifImageDescriptor(gif))
        func size(_ bytes: [UInt8]) throws -> [Int] {
            let info = try #require(try ImageProbe.probe(bytes: bytes))
            return [info.pixelWidth, info.pixelHeight]
        }
        #expect(try size(gif) == [26, 14])
        var short = gif
        short[8] = 5 // the screen 26 x 5
        #expect(try size(short) == [26, 14])
        var zero = gif
        zero.replaceSubrange(6..<10, with: [0, 0, 0, 0])
        #expect(try size(zero) == [26, 14])
        var placed = gif
        placed.replaceSubrange((frame + 1)..<(frame + 5), with: [10, 0, 3, 0]) // left 10, top 3
        #expect(try size(placed) == [36, 17])
        // The screen is still the size when the records cannot be read past it.
        #expect(try size(Array(gif.prefix(frame + 3))) == [26, 14])
        // Nor is the whole file read for a frame 100,000 empty extensions in: at most 4,096
        // records, then the screen as it says.
        var padded = short
        padded.insert(contentsOf: Array(repeating: [UInt8]([0x21, 0xFE, 0x00]), count: 100_000).joined(), at: frame)
        let info = try #require(try ImageProbe.probe(bytes: padded))
        #expect([info.pixelWidth, info.pixelHeight] == [26, 5] && info.bytesRead < 40_000, "\(info.bytesRead) bytes read")
    }

    /// Orientation and date at the start of an EXIF block longer than the 256 KiB the parser
    /// holds: read from a WebP chunk with no "Exif\0\0" before it (it was passed over whole,
    /// where the same block with the prefix was read), and from a HEIF Exif item (its date was).
    @Test func exifBlocksLongerThanTheParserHolds_stillGiveTheirFirstTags() throws {
        let tiff = TIFFBuilder(bigEndian: false, orientation: 6, dateTimeOriginal: "2007:07:07 07:07:07").bytes()
        let long = tiff + [UInt8](repeating: 0x5A, count: 300_000)
        let lossy = [UInt8](try ImageBytes.fixture("lossy.webp"))
        let plain = try #require(try ImageProbe.probe(bytes: lossy))
        for exif in [long, Array("Exif\0\0".utf8) + long, tiff] {
            let info = try #require(try ImageProbe.probe(bytes: ImageBytes.webp(lossy, exif: exif, width: plain.pixelWidth, height: plain.pixelHeight)))
            #expect(info.orientation.rawValue == 6 && info.captureDate?.description == "2007-07-07T07:07:07", "\(exif.count) bytes: \(info)")
            #expect(info.displayWidth == plain.pixelHeight && info.displayHeight == plain.pixelWidth)
        }
        // long-exif.avif: plain.avif's Exif item made 279,112 bytes long (generate.py).
        let avif = try #require(try ImageProbe.probe(bytes: [UInt8](try ImageBytes.fixture("long-exif.avif"))))
        #expect(avif.captureDate?.description == "2022-08-09T10:11:12" && avif.displayWidth == 48 && avif.displayHeight == 32, "\(avif)")
    }

    @Test(.timeLimit(.minutes(1))) func brokenFilesGiveClearErrors() throws {
        let webp = [UInt8](try ImageBytes.fixture("lossy.webp"))
        let gif = [UInt8](try ImageBytes.fixture("still.gif"))
        let heic = [UInt8](try ImageBytes.fixture("plain.heic"))
        func error(_ bytes: [UInt8]) -> ImageProbeError? {
            do { _ = try ImageProbe.probe(bytes: bytes); return nil } catch { return error }
        }
        // Truncated inside the RIFF header, inside the VP8 header; after the header is fine.
        #expect(error(Array(webp.prefix(14))) == .truncated(.webp))
        #expect(error(Array(webp.prefix(24))) == .truncated(.webp))
        #expect(error(Array(webp.prefix(40))) == nil)
        var badVP8 = webp
        badVP8[23] ^= 0xFF // the VP8 frame's start code
        #expect(error(badVP8).map { if case .corruptHeader(.webp, _) = $0 { true } else { false } } == true)
        // GIF: truncated header, a zero screen with no frame to size it.
        #expect(error(Array(gif.prefix(9))) == .truncated(.gif))
        var zero = Array(gif.prefix(13 + 3 * 128)) // the header and colour table, no record

        zero[6] = 0
        zero[7] = 0
        #expect(error(zero).map { if case .badDimensions(.gif, _) = $0 { true } else { false } } == true)
        // HEIF: truncated in ftyp, in meta; a box whose size points past the end; a box of size 0 inside meta.
        #expect(error(Array(heic.prefix(14))).map { if case .truncated(.heic) = $0 { true } else if case .corruptHeader(.heic, _) = $0 { true } else { false } } == true)
        let meta = try #require(ImageBytes.boxOffset(heic, "meta"))
        #expect(error(Array(heic.prefix(meta + 40))) != nil)
        var past = heic
        past.replaceSubrange(meta..<(meta + 4), with: ImageBytes.be32(1 << 30))
        #expect(error(past) != nil)
        // Boxes whose sizes would loop a naive parser: 0 (to the end), 1 without a 64-bit size,
        // smaller than a box header; and the same in a thumbnail. An error or a size, never a hang
        // (the time limit); a size is plain.heic's, 48x32 (its ftyp is intact: never unsupported).
        let iinf = try #require(ImageBytes.boxOffset(heic, "iinf"))
        for size in [0, 1, 4, 7] {
            var looping = heic
            looping.replaceSubrange(iinf..<(iinf + 4), with: ImageBytes.be32(size))
            for probed in [looping, Array(looping.prefix(iinf + 12))] {
                do {
                    let info = try ImageProbe.probe(bytes: probed)
                    #expect(info?.format == .heic && info?.pixelWidth == 48 && info?.pixelHeight == 32,
                            "iinf of size \(size), \(probed.count) bytes: \(String(describing: info))")
                } catch {
                    // A clear error: the other outcome allowed.
                }
            }
        }
        // ispe of 0, and of more than 2^24 (every ispe: the coded image's and the primary's).
        var zeroSize = heic, huge = heic
        var at = 0
        while let ispe = ImageBytes.boxOffset(Array(heic[at...]), "ispe").map({ $0 + at }) {
            zeroSize.replaceSubrange((ispe + 12)..<(ispe + 16), with: [0, 0, 0, 0])
            huge.replaceSubrange((ispe + 12)..<(ispe + 20), with: ImageBytes.be32(1 << 25) + ImageBytes.be32(1 << 25))
            at = ispe + 8
        }
        #expect(error(zeroSize) != nil)
        #expect(error(huge) != nil)
        // An MP4 is not an image: unsupported, not an error.
        let mp4 = ImageBytes.be32(20) + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8)
        #expect(try ImageProbe.probe(bytes: mp4) == nil)
    }
}
