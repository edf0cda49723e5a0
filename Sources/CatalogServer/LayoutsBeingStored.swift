import CatalogKit
import ServiceLifecycle
import Synchronization

/// Layouts this server computed and is storing, by configuration: pages are served from them
/// while their stores run (`CatalogService.page`), and a graceful shutdown waits for those
/// stores once the last requests are answered, so that a layout that took seconds to compute
/// is not lost to a stop.
final class LayoutsBeingStored: Service, Sendable {
    struct Entry: Sendable {
        let layout: ComputedLayout
        /// Ends when the layout is stored, or its store failed (a later request computes it again).
        let stored: Task<Void, Never>
        /// Tells this entry from a later one of the same configuration.
        let number: Int
    }

    /// At most this many layouts are computed and held at once: a computation waits for a place
    /// (`reserve`), and its layout gives it back when its store ends. A layout of 10,000,000
    /// items is about 320 MB; as many as the reads that run at once, as when each computation
    /// held its layout through its whole store on a read thread.
    let limit: Int
    private let places = Mutex<(taken: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))
    private let entries = Mutex<[String: Entry]>([:])
    /// The layouts as their stores need them (an extended one with the stored windows of the
    /// layout it extends), by entry number, until their stores take them.
    private let unstored = Mutex<[Int: ComputedLayout]>([:])
    private let lastNumber = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    /// Whether a graceful shutdown has begun: a store's task then ends once the layout is
    /// stored, without waiting for a replica to show it.
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a place to compute a layout in. The caller gives it back with `release()` if it
    /// stores nothing, else `start` keeps it until the store ends.
    func reserve() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = places.withLock { places -> Bool in
                guard places.taken < limit else {
                    places.waiting.append(continuation)
                    return false
                }
                places.taken += 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Gives a place back: to the computation that waited longest, if any.
    func release() {
        let next = places.withLock { places -> CheckedContinuation<Void, Never>? in
            guard !places.waiting.isEmpty else {
                places.taken -= 1
                return nil
            }
            return places.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Computations waiting for a place.
    var waiting: Int { places.withLock { $0.waiting.count } }

    /// Places taken: computations under way and layouts being stored (replaced ones included).
    var taken: Int { places.withLock { $0.taken } }

    /// The layout of configuration `key` being stored, if any.
    func entry(_ key: String) -> Entry? {
        entries.withLock { $0[key] }
    }

    /// How many layouts are being stored.
    var count: Int { entries.withLock { $0.count } }

    /// Holds `layout` for pages while `store` stores it (true if it did) and, once stored,
    /// `afterwards` runs; then lets it go, and gives back the place `reserve` gave for it. The
    /// stored windows an extended layout carries for its store are let go of as soon as the
    /// store ends.
    func start(_ layout: ComputedLayout, store: @escaping @Sendable (ComputedLayout) async -> Bool,
               afterwards: @escaping @Sendable () async -> Void) -> Entry {
        let key = layout.configuration.key
        let number = lastNumber.add(1, ordering: .relaxed).newValue
        unstored.withLock { $0[number] = layout }
        return entries.withLock { entries in
            // Made under the lock: the task's own removal cannot come before this insertion.
            let stored = Task {
                var done = false
                if let layout = self.unstored.withLock({ $0.removeValue(forKey: number) }) { done = await store(layout) }
                if done { await afterwards() }
                self.entries.withLock { if $0[key]?.number == number { $0[key] = nil } }
                self.release()
            }
            let entry = Entry(layout: layout.forPages, stored: stored, number: number)
            entries[key] = entry
            return entry
        }
    }

    /// Waits for the graceful shutdown, then (the server has answered its last requests, which
    /// may have started computations and stores) for those under way, `shutdownWait` at most.
    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return // cancelled: no graceful shutdown to wait for
        }
        stopping.store(true, ordering: .relaxed)
        let deadline = ContinuousClock.now + Self.shutdownWait
        // A computation waits for a place only while every place is taken.
        while taken > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return } // cancelled
        }
    }

    /// How long a graceful stop waits for stores: a store that takes longer (a database that
    /// does not answer) is abandoned, and the layout computed again after the restart.
    static let shutdownWait = Duration.seconds(60)
}
