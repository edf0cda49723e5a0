import Foundation

/// Host names as a browser sends them: each label with letters beyond ASCII as `xn--` and its
/// Punycode (RFC 3492), lower-cased and in NFC first (the core of IDNA's mapping). A policy's
/// host source must be ASCII, and a browser fetches `https://bücher.example/` from
/// `xn--bcher-kva.example`.
enum Punycode {
    /// `authority` (a host, and perhaps `:port`) with its labels beyond ASCII encoded, the dots
    /// IDNA takes for dots (`。`, `．`, `｡`) as dots; nil when a label cannot be encoded.
    static func asciiHost(_ authority: String) -> String? {
        guard !authority.unicodeScalars.allSatisfy(\.isASCII) else { return authority }
        // The port after the last ':' (a host beyond ASCII is no IPv6 literal).
        let colon = authority.lastIndex(of: ":")
        let host = colon.map { authority[..<$0] } ?? authority[...]
        let port = colon.map { authority[$0...] } ?? ""
        var labels: [String] = []
        for label in host.split(omittingEmptySubsequences: false, whereSeparator: { ".。．｡".contains($0) }).map(String.init) {
            let mapped = label.lowercased().precomposedStringWithCanonicalMapping // K (Kelvin) is k
            if mapped.unicodeScalars.allSatisfy(\.isASCII) {
                labels.append(mapped)
            } else {
                guard let encoded = encode(mapped) else { return nil }
                labels.append("xn--" + encoded)
            }
        }
        return labels.joined(separator: ".") + port
    }

    /// RFC 3492's encoding of one label (6.3), without the `xn--` prefix.
    static func encode(_ label: String) -> String? {
        let (base, tMin, tMax, skew, damp): (UInt32, UInt32, UInt32, UInt32, UInt32) = (36, 1, 26, 38, 700)
        let points = label.unicodeScalars.map(\.value)
        var output = points.filter { $0 < 0x80 }.map { UInt8($0) }
        let basic = output.count
        if basic > 0 { output.append(UInt8(ascii: "-")) }
        func digit(_ value: UInt32) -> UInt8 { value < 26 ? UInt8(value) + 97 : UInt8(value - 26) + 48 }
        func adapt(_ delta: UInt32, _ count: UInt32, _ first: Bool) -> UInt32 {
            var delta = first ? delta / damp : delta / 2
            delta += delta / count
            var k: UInt32 = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (base - tMin + 1) * delta / (delta + skew)
        }
        var (n, delta, bias, handled): (UInt32, UInt32, UInt32, Int) = (128, 0, 72, basic)
        while handled < points.count {
            guard let next = points.filter({ $0 >= n }).min() else { return nil }
            let (step, over) = (next - n).multipliedReportingOverflow(by: UInt32(handled + 1))
            guard !over, delta <= UInt32.max - step else { return nil }
            delta += step
            n = next
            for point in points {
                if point < n {
                    guard delta < UInt32.max else { return nil }
                    delta += 1
                }
                guard point == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, UInt32(handled + 1), handled == basic)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}
