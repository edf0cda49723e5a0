import Testing
import Thumbnailer

/// The reduction against a reference written from its definition: each thumbnail pixel is the
/// mean of the source area it covers (fractional edges weighted by the part covered), colour
/// weighted by alpha. Random RGBA images go in as real PNG bytes and come out as PNG (their
/// alpha keeps them lossless), so the pixels compare to within rounding.
@Suite struct ReductionTests {
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// A PNG of RGBA pixels, its zlib stream made of stored (uncompressed) blocks.
    static func png(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height { raw.append(0); raw += rgba[(y * width * 4)..<((y + 1) * width * 4)] }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            zlib.append(offset + length == raw.count ? 1 : 0)
            zlib += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            zlib += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        zlib += bigEndian(b << 16 | a)
        func chunk(_ kind: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(kind.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(Fixture.crc32(body))
        }
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 6, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// The definition: the area [x·sx, (x+1)·sx) × [y·sy, (y+1)·sy) of the source, averaged.
    static func reference(width: Int, height: Int, rgba: [UInt8], to w: Int, _ h: Int) -> [Double] {
        let sx = Double(width) / Double(w), sy = Double(height) / Double(h)
        func overlap(_ i: Int, _ start: Double, _ end: Double) -> Double { max(0, min(Double(i + 1), end) - max(Double(i), start)) }
        var out: [Double] = []
        for y in 0..<h {
            for x in 0..<w {
                var sums = [0.0, 0.0, 0.0, 0.0], area = 0.0
                let (x0, x1, y0, y1) = (Double(x) * sx, Double(x + 1) * sx, Double(y) * sy, Double(y + 1) * sy)
                for j in Int(y0)..<min(height, Int(y1.rounded(.up))) {
                    for i in Int(x0)..<min(width, Int(x1.rounded(.up))) {
                        let weight = overlap(i, x0, x1) * overlap(j, y0, y1)
                        let p = (j * width + i) * 4, alpha = Double(rgba[p + 3])
                        for c in 0..<3 { sums[c] += weight * alpha * Double(rgba[p + c]) }
                        sums[3] += weight * alpha
                        area += weight
                    }
                }
                let alpha = sums[3]
                out += [alpha > 0 ? sums[0] / alpha : 0, alpha > 0 ? sums[1] / alpha : 0, alpha > 0 ? sums[2] / alpha : 0, alpha / area]
            }
        }
        return out
    }

    @Test(arguments: 0..<12)
    func whenARandomImageIsReduced_thenEveryPixelIsTheMeanOfTheAreaItCovers(seed: Int) throws {
        var random = Generator(state: UInt64(seed) &* 0x9E37_79B9 &+ 7)
        let (width, height) = (9 + random.next(180), 9 + random.next(180))
        let box = 4 + random.next(min(width, height) - 4)
        // Blocks of colour and alpha (some fully transparent), so averages cross edges.
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let block = 1 + random.next(7)
        var colours: [[UInt8]] = []
        for _ in 0..<64 { colours.append([UInt8(random.next(256)), UInt8(random.next(256)), UInt8(random.next(256)), UInt8([0, 60, 200, 255][random.next(4)])]) }
        for y in 0..<height {
            for x in 0..<width { rgba.replaceSubrange(((y * width + x) * 4)..<((y * width + x) * 4 + 4), with: colours[(x / block * 7 + y / block * 3) % 64]) }
        }
        rgba[3] = 17 // at least one pixel that is not opaque: the output stays a lossless PNG
        let thumbnail = try Thumbnailer.thumbnail(bytes: Self.png(width: width, height: height, rgba: rgba), size: box)
        #expect(thumbnail.format == .png)
        let got = try Thumbnailer.decode(bytes: thumbnail.bytes)
        let want = Self.reference(width: width, height: height, rgba: rgba, to: got.width, got.height)
        var worst = 0.0
        for index in 0..<(got.width * got.height) {
            let alpha = want[index * 4 + 3]
            worst = max(worst, abs(Double(got.pixels[index * 4 + 3]) - alpha))
            // Colour is only defined where there is some alpha; below 1 the rounding of alpha dominates.
            if alpha >= 1 { for c in 0..<3 { worst = max(worst, abs(Double(got.pixels[index * 4 + c]) - want[index * 4 + c])) } }
        }
        #expect(worst <= 1, "\(width) x \(height) to \(got.width) x \(got.height): off by \(worst)")
        #expect(max(got.width, got.height) == box)
    }
}
