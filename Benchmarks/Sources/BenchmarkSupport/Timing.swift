// What the in-process benchmarks share: the same random items every run, and timing.
import Foundation

/// splitmix64, so every run lays out the same items.
public struct Random {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}

public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The value `body` returns and the seconds it took.
public func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, seconds(ContinuousClock.now - start))
}

/// The value at fraction `p` of the sorted values (0.5: the median).
public func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

/// Seconds as people read them: "1.23 s", "4.56 ms", "7.89 µs".
public func format(_ seconds: Double) -> String {
    seconds >= 1 ? String(format: "%.2f s", seconds)
        : seconds >= 1e-3 ? String(format: "%.2f ms", seconds * 1e3) : String(format: "%.2f µs", seconds * 1e6)
}
