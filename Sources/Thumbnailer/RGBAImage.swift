/// Decoded pixels: 8-bit RGBA, rows top to bottom, not premultiplied.
public struct RGBAImage: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "RGBA pixels: width x height x 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at (x, y): red, green, blue, alpha.
    public subscript(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}
