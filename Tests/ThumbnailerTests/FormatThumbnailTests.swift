import Foundation
import Testing
import Thumbnailer

/// Thumbnails of WebP (libwebp's scaled decode), GIF and animated WebP (the first frame on its
/// canvas), HEIC and AVIF (libheif, transformations applied) on the probe's fixtures: exact
/// sizes in display orientation, the pixels of an irot file equal to the plain file's turned,
/// and broken files refused with an error, never a crash.
@Suite struct FormatThumbnailTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImageProbeTests/Fixtures")
    static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: folder.appendingPathComponent(name))) }

    struct Kind: CustomTestStringConvertible, Sendable {
        var file: String
        var orientation = 1
        var size: (Int, Int)
        var format: ThumbnailFormat = .jpeg
        var testDescription: String { file }
    }

    /// Box 24: every fixture is reduced (never enlarged), to its display aspect ratio.
    static let kinds: [Kind] = [
        Kind(file: "lossy.webp", size: (24, 13)),
        Kind(file: "lossless.webp", size: (17, 24)),
        Kind(file: "exif6.webp", orientation: 6, size: (24, 13)), // 20x36 stored, shown 36x20
        Kind(file: "animated.webp", size: (24, 15)),
        Kind(file: "still.gif", size: (24, 13)),
        Kind(file: "animated.gif", size: (24, 18)),
        Kind(file: "plain.heic", size: (24, 16)),
        Kind(file: "irot90.heic", size: (16, 24)),
        Kind(file: "irot270.avif", size: (16, 24)),
        Kind(file: "thumbnail-item.heic", size: (24, 15)),
        Kind(file: "plain.avif", size: (24, 16)),
    ]

    @Test(arguments: kinds)
    func everyFormatGivesTheExactSizeInDisplayOrientation(kind: Kind) throws {
        let thumbnail = try Thumbnailer.thumbnail(bytes: try Self.bytes(kind.file), size: 24, orientation: kind.orientation)
        #expect((thumbnail.width, thumbnail.height) == kind.size)
        #expect(thumbnail.format == kind.format)
        let decoded = try Thumbnailer.decode(bytes: thumbnail.bytes)
        #expect((decoded.width, decoded.height) == kind.size)
    }

    /// irot turns the plain image counterclockwise by 90° per step; imir mirrors it. The coded
    /// data is the same, so the decoded pixels are exactly the plain ones moved.
    @Test(arguments: ["heic", "avif"])
    func transformationsMoveThePixels(_ format: String) throws {
        let plain = try Thumbnailer.decode(bytes: try Self.bytes("plain.\(format)"))
        let turned = try Thumbnailer.decode(bytes: try Self.bytes("irot90.\(format)"))
        let half = try Thumbnailer.decode(bytes: try Self.bytes("irot180.\(format)"))
        let mirrored = try Thumbnailer.decode(bytes: try Self.bytes("imir.\(format)"))
        #expect((turned.width, turned.height) == (plain.height, plain.width))
        var counterclockwise = true, upsideDown = true, flippedX = true, flippedY = true
        for y in 0..<plain.height {
            for x in 0..<plain.width {
                let p = plain[x, y]
                // 90° counterclockwise: (x, y) goes to (y, width - 1 - x).
                if turned[y, plain.width - 1 - x] != p { counterclockwise = false }
                if half[plain.width - 1 - x, plain.height - 1 - y] != p { upsideDown = false }
                if mirrored[plain.width - 1 - x, y] != p { flippedX = false }
                if mirrored[x, plain.height - 1 - y] != p { flippedY = false }
            }
        }
        #expect(counterclockwise && upsideDown)
        #expect(flippedX != flippedY, "imir mirrors along one axis")
    }

    @Test func aGifsFirstFrameKeepsItsTransparency_andAnimationsGiveTheirFirstFrame() throws {
        let first = try Thumbnailer.decode(bytes: try Self.bytes("animated.gif"))
        #expect((first.width, first.height) == (30, 22))
        let webp = try Thumbnailer.decode(bytes: try Self.bytes("animated.webp"))
        #expect((webp.width, webp.height) == (28, 18))
        // The first frames are the unrotated gradients: dark at the top left, light at the bottom right.
        #expect(first[0, 0].red < first[29, 21].red && webp[0, 0].red < webp[27, 17].red)
    }

    /// A screen smaller than the first frame, or 0 x 0, grows to hold the frame, as the probe
    /// sizes the item and browsers draw it: the thumbnail was the screen's strip of the frame.
    @Test func aGifScreenGrowsToHoldItsFirstFrame() throws {
        let gif = try Self.bytes("still.gif") // screen and frame 26 x 14 at 0, 0
        let frame = 13 + 3 * 128 // after the header and the 128-colour table
        try #require(gif[frame] == 0x2C)
        var short = gif
        short[8] = 5
        var zero = gif
        zero.replaceSubrange(6..<10, with: [0, 0, 0, 0])
        let whole = try Thumbnailer.decode(bytes: gif)
        for variant in [short, zero] {
            let image = try Thumbnailer.decode(bytes: variant)
            #expect((image.width, image.height) == (26, 14))
            #expect(image[25, 13] == whole[25, 13] && image[0, 0] == whole[0, 0])
        }
        var placed = gif
        placed.replaceSubrange((frame + 1)..<(frame + 5), with: [10, 0, 3, 0])
        let moved = try Thumbnailer.decode(bytes: placed)
        #expect((moved.width, moved.height) == (36, 17))
        #expect(moved[0, 0].alpha == 0 && moved[35, 16] == whole[25, 13])
        // A first frame past 4,096 records is not looked for, as the probe does not look.
        var padded = short
        padded.insert(contentsOf: Array(repeating: [UInt8]([0x21, 0xFE, 0x00]), count: 5_000).joined(), at: frame)
        #expect { _ = try Thumbnailer.decode(bytes: padded) } throws: { error in
            if case ThumbnailError.corrupt(let detail) = error { detail.contains("4096 records") } else { false }
        }
    }

    /// A grid image whose tiles are derived from itself (a fuzzer's find): libheif 1.15 would
    /// recurse until the stack or the threads ran out; it is refused before decoding.
    /// The second: the reference box's size overruns its iref box, which libheif reads anyway.
    @Test(arguments: ["cyclic-grid.heic", "cyclic-grid-overrun.heic"])
    func aHeifDerivedFromItselfIsRefused(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path(name))))
        #expect(throws: ThumbnailError.self) { _ = try Thumbnailer.thumbnail(bytes: bytes, size: 64) }
    }

    /// 800 bytes that declare 50 x 32 pixels but whose coded stream is far larger (another
    /// fuzzer's find): refused, not reduced from whatever the codec produced.
    @Test func aCodedImageOtherThanTheDeclaredSizeIsRefused() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("coded-larger-than-declared.heic"))))
        #expect(throws: ThumbnailError.self) { _ = try Thumbnailer.thumbnail(bytes: bytes, size: 64) }
    }

    /// A 1 x 1 screen whose frame declares 10,000 x 10,000 pixels: refused before any row is
    /// decoded (its rows would be decoded even off the screen).
    @Test func aGifFrameFarLargerThanItsScreenIsRefused() throws {
        let bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
            + [0x2C, 0, 0, 0, 0, 0x10, 0x27, 0x10, 0x27, 0, 2, 2, 0x4C, 0x01, 0, 0x3B]
        #expect { _ = try Thumbnailer.thumbnail(bytes: bytes, size: 64) } throws: { error in
            if case ThumbnailError.tooLarge = error { true } else { false }
        }
    }

    @Test func brokenFilesAreErrors() throws {
        let files = ["lossy.webp", "still.gif", "plain.heic", "plain.avif", "animated.webp"]
        for name in files {
            let bytes = try Self.bytes(name)
            for cut in [13, 20, bytes.count / 2, bytes.count - 3] {
                #expect(throws: ThumbnailError.self, "\(name) cut at \(cut)") {
                    _ = try Thumbnailer.thumbnail(bytes: Array(bytes.prefix(cut)), size: 24)
                }
            }
            var scrambled = bytes
            for i in stride(from: 40, to: scrambled.count, by: 7) { scrambled[i] ^= 0x5A }
            _ = try? Thumbnailer.thumbnail(bytes: scrambled, size: 24) // an error or an image: never a crash
        }
    }
}
