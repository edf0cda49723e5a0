import Foundation

/// Host names as a browser sends them: each label with letters beyond ASCII as `xn--` and its
/// Punycode (RFC 3492), lower-cased and in NFC first (the core of IDNA's mapping). A policy's
/// host source must be ASCII, and a browser fetches `https://bücher.example/` from
/// `xn--bcher-kva.example`.
enum Punycode {
    /// `host` with its labels beyond ASCII encoded; nil when one cannot be (too long to count).
    static func asciiHost(_ host: String) -> String? {
        guard !host.unicodeScalars.allSatisfy(\.isASCII) else { return host }
        var labels: [String] = []
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                labels.append(String(label))
            } else {
                guard let encoded = encode(String(label).lowercased().precomposedStringWithCanonicalMapping) else { return nil }
                labels.append("xn--" + encoded)
            }
        }
        return labels.joined(separator: ".")
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
