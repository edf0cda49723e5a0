import Testing
import Thumbnailer

@Suite struct ThumbnailerTests {
    struct Kind: CustomTestStringConvertible, Sendable {
        var file: String
        var format: ThumbnailFormat
        var size: (Int, Int)
        var decoded: (Int, Int)
        var testDescription: String { file }
    }

    /// Every kind of file a camera or an export makes, at the default box of 256: the exact size,
    /// the JPEG's DCT-scaled decode (the smallest k/8 that covers the box), and the format.
    static let kinds: [Kind] = [
        Kind(file: "baseline.jpg", format: .jpeg, size: (256, 192), decoded: (320, 240)),
        Kind(file: "progressive.jpg", format: .jpeg, size: (256, 192), decoded: (320, 240)),
        Kind(file: "restart.jpg", format: .jpeg, size: (256, 192), decoded: (320, 240)),
        Kind(file: "grayscale.jpg", format: .jpeg, size: (192, 256), decoded: (240, 320)),
        Kind(file: "cmyk.jpg", format: .jpeg, size: (256, 192), decoded: (280, 210)),
        Kind(file: "rgb.png", format: .jpeg, size: (256, 171), decoded: (300, 200)),
        Kind(file: "interlaced.png", format: .jpeg, size: (256, 171), decoded: (300, 200)),
        Kind(file: "rgb16.png", format: .jpeg, size: (256, 171), decoded: (300, 200)),
        Kind(file: "gray.png", format: .jpeg, size: (171, 256), decoded: (200, 300)),
        Kind(file: "palette.png", format: .png, size: (256, 128), decoded: (320, 160)),
        Kind(file: "gray-alpha.png", format: .png, size: (256, 128), decoded: (256, 128)),
        Kind(file: "opaque-rgba.png", format: .jpeg, size: (100, 100), decoded: (100, 100)),
    ]

    @Test(arguments: kinds)
    func whenAFileOfEveryKindIsReduced_thenItHasTheExactSizeAndFormat(kind: Kind) throws {
        let thumbnail = try Thumbnailer.thumbnail(path: Fixture.path(kind.file))
        #expect(thumbnail.format == kind.format)
        #expect((thumbnail.width, thumbnail.height) == kind.size)
        #expect((thumbnail.decodedWidth, thumbnail.decodedHeight) == kind.decoded)
        let pixels = try Thumbnailer.decode(bytes: thumbnail.bytes)
        #expect((pixels.width, pixels.height) == kind.size, "the encoded image has the size reported")
        #expect(thumbnail.bytes.prefix(2) == (kind.format == .jpeg ? [0xFF, 0xD8] : [0x89, 0x50]))
    }

    /// The gradient fixtures run red left to right (and green top to bottom, for the JPEGs): the
    /// reduced pixels still do, CMYK included (Adobe's inverted CMYK read as Pillow wrote it).
    /// A PNG 1,200,000 pixels wide (or tall), far within the pixel budget, is reduced like any
    /// other: libpng's own limit of 1,000,000 a side called it corrupt ("Invalid IHDR data").
    @Test(arguments: [("wide.png", (256, 1)), ("tall.png", (1, 256))])
    func whenAPNGIsOverAMillionPixelsOnOneSide_thenItIsReduced(file: String, size: (Int, Int)) throws {
        let thumbnail = try Thumbnailer.thumbnail(path: Fixture.path(file))
        #expect((thumbnail.width, thumbnail.height) == size)
        let pixels = try Thumbnailer.decode(bytes: thumbnail.bytes)
        #expect(near(pixels.at(0, 0).red, 40, 30) && near(pixels.at(0.99, 0.99).red, 220, 30), "dark at one end, light at the other")
    }

    @Test(arguments: ["baseline.jpg", "progressive.jpg", "restart.jpg", "cmyk.jpg"])
    func whenAGradientIsReduced_thenItsColoursStayWhereTheyWere(file: String) throws {
        let pixels = try Thumbnailer.decode(bytes: try Thumbnailer.thumbnail(path: Fixture.path(file)).bytes)
        for (u, v) in [(0.1, 0.1), (0.5, 0.5), (0.9, 0.3), (0.3, 0.9)] {
            let pixel = pixels.at(u, v)
            #expect(near(pixel.red, Int(255 * u), 16) && near(pixel.green, Int(255 * v), 16) && near(pixel.blue, 128, 16),
                    "at (\(u), \(v)): \(pixel)")
        }
    }

    @Test func whenAGreyJPEGOr16BitPNGIsReduced_thenItsLevelsStay() throws {
        let grey = try Thumbnailer.decode(bytes: try Thumbnailer.thumbnail(path: Fixture.path("grayscale.jpg")).bytes)
        // Pillow made it from the RGB gradient (229, 127, 128) here: luma 0.299 R + 0.587 G + 0.114 B.
        #expect(near(grey.at(0.9, 0.5).red, 158, 12) && grey.at(0.9, 0.5).red == grey.at(0.9, 0.5).blue, "grey stays grey: \(grey.at(0.9, 0.5))")
        let deep = try Thumbnailer.decode(bytes: try Thumbnailer.thumbnail(path: Fixture.path("rgb16.png")).bytes)
        #expect(near(deep.at(0.95, 0.05).red, 242) && near(deep.at(0.95, 0.05).blue, 90), "16-bit samples scaled to 8: \(deep.at(0.95, 0.05))")
    }

    /// The asymmetric image (red, green / blue, yellow) in each EXIF orientation: the quadrants
    /// the thumbnail shows are the ones the orientation puts there (TIFF 6.0's table).
    static let orientations: [(Int, [[UInt8]])] = {
        let (r, g, b, y): ([UInt8], [UInt8], [UInt8], [UInt8]) = ([255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0])
        return [(1, [r, g, b, y]), (2, [g, r, y, b]), (3, [y, b, g, r]), (4, [b, y, r, g]),
                (5, [r, b, g, y]), (6, [b, r, y, g]), (7, [y, g, b, r]), (8, [g, y, r, b])]
    }()

    @Test(arguments: ["quadrants.jpg", "quadrants.png"], 1...8)
    func whenAnOrientationIsApplied_thenTheQuadrantsMoveAsItSays(file: String, orientation: Int) throws {
        let thumbnail = try Thumbnailer.thumbnail(path: Fixture.path(file), orientation: orientation)
        let stored = file.hasSuffix("jpg") ? (256, 171) : (60, 40) // 600 x 400 reduced; 60 x 40 never enlarged
        #expect((thumbnail.width, thumbnail.height) == (orientation >= 5 ? (stored.1, stored.0) : stored))
        let pixels = try Thumbnailer.decode(bytes: thumbnail.bytes)
        let expected = Self.orientations[orientation - 1].1
        for (index, (u, v)) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)].enumerated() {
            let pixel = pixels.at(u, v)
            let want = expected[index]
            #expect(near(pixel.red, Int(want[0]), 24) && near(pixel.green, Int(want[1]), 24) && near(pixel.blue, Int(want[2]), 24),
                    "orientation \(orientation), quadrant \(index): \(pixel), expected \(want)")
        }
    }

    /// Sizes fit the box, are never enlarged, and keep the aspect ratio within a pixel.
    @Test(arguments: [1, 2, 3, 64, 100, 256, 512, 639, 640, 1000])
    func whenABoxIsAskedFor_thenTheLargerSideFitsItAndTheRatioHolds(box: Int) throws {
        let thumbnail = try Thumbnailer.thumbnail(path: Fixture.path("baseline.jpg"), size: box)
        let long = min(box, 640)
        let short = max(1, Int((Double(long) * 480 / 640).rounded()))
        #expect((thumbnail.width, thumbnail.height) == (long, short))
        #expect(thumbnail.decodedWidth >= thumbnail.width && thumbnail.decodedHeight >= thumbnail.height)
        #expect(thumbnail.decodedWidth < 2 * thumbnail.width + 80, "the smallest DCT scale that covers the box: \(thumbnail.decodedWidth)")
        let tall = try Thumbnailer.thumbnail(path: Fixture.path("baseline.jpg"), size: box, orientation: 6)
        #expect((tall.width, tall.height) == (short, long))
    }

    /// Transparency is kept (PNG output), and colour is averaged weighted by alpha: a half
    /// transparent grey is still that grey, not darkened by the transparent pixels beside it.
    @Test func whenAnImageHasAlpha_thenThePNGKeepsItAndColoursAreNotDarkened() throws {
        let palette = try Thumbnailer.decode(bytes: try Thumbnailer.thumbnail(path: Fixture.path("palette.png")).bytes)
        #expect(palette.at(0.1, 0.5).alpha == 0, "tRNS index 0 is transparent")
        #expect(palette.at(0.35, 0.5) == (255, 0, 0, 255) && palette.at(0.6, 0.5) == (0, 255, 0, 255) && palette.at(0.9, 0.5) == (0, 0, 255, 255))
        let grey = try Thumbnailer.decode(bytes: try Thumbnailer.thumbnail(path: Fixture.path("gray-alpha.png"), size: 64).bytes)
        #expect(grey.width == 64 && grey.height == 32)
        #expect(grey.at(0.02, 0.5).alpha < 8 && grey.at(0.98, 0.5).alpha > 247, "alpha follows the columns")
        #expect(near(grey.at(0.5, 0.3).alpha, 128, 4))
        #expect(grey.at(0.5, 0.3).red == 64 && grey.at(0.5, 0.3).green == 64, "grey level of the band, alpha-weighted: \(grey.at(0.5, 0.3))")
    }

    @Test func whenQualityChanges_thenTheJPEGShrinksOrGrows() throws {
        let low = try Thumbnailer.thumbnail(path: Fixture.path("baseline.jpg"), quality: 20)
        let high = try Thumbnailer.thumbnail(path: Fixture.path("baseline.jpg"), quality: 95)
        #expect(low.bytes.count < high.bytes.count)
    }
}
