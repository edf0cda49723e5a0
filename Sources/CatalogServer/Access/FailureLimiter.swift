import Synchronization

/// Failed sign-ins and wrong tokens per client address, over a sliding window: past `limit`
/// failures in the window the address is refused (429) until enough of them are older than
/// the window. Memory is bounded: past `maximumAddresses`, the addresses with no failure in
/// the window are forgotten, then the oldest.
final class FailureLimiter: Sendable {
    let limit: Int
    let window: Duration
    let maximumAddresses: Int
    private let failures = Mutex<[String: [ContinuousClock.Instant]]>([:])

    init(limit: Int, window: Duration = .seconds(60), maximumAddresses: Int = 10_000) {
        self.limit = limit
        self.window = window
        self.maximumAddresses = maximumAddresses
    }

    /// How long `address` must wait before it may try again, or nil when it may now.
    func retryAfter(_ address: String, now: ContinuousClock.Instant = .now) -> Duration? {
        failures.withLock { failures in
            guard var times = failures[address] else { return nil }
            times.removeAll { now - $0 >= window }
            failures[address] = times.isEmpty ? nil : times
            guard times.count >= limit else { return nil }
            return times[times.count - limit] + window - now // when enough have aged out
        }
    }

    func recordFailure(_ address: String, now: ContinuousClock.Instant = .now) {
        failures.withLock { failures in
            if failures[address] == nil, failures.count >= maximumAddresses {
                failures = failures.filter { $0.value.contains { now - $0 < window } }
                if failures.count >= maximumAddresses, let oldest = failures.min(by: { $0.value.last! < $1.value.last! })?.key {
                    failures[oldest] = nil
                }
            }
            var times = failures[address, default: []]
            times.removeAll { now - $0 >= window }
            times.append(now)
            failures[address] = times
        }
    }
}
