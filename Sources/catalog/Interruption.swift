#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Dispatch
import Synchronization

/// Ctrl-C, SIGTERM or SIGHUP (a closed terminal) in a command that writes as it goes: one line
/// saying what is kept, then the exit status a shell gives a process the signal ended (128 + its
/// number). What was committed stays and the transaction under way is rolled back, as after a
/// kill; a scan first lets the batch under way commit and copies what is committed into an
/// SQLite catalog's file (`Catalog.endKeepingCommittedInItsFile`), and a second signal
/// meanwhile ends it at once.
enum Interruption {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    /// Set at the first interruption, whose ending may wait (a batch's commit).
    private static let ending = Atomic<Bool>(false)

    /// From now on, an interruption says `kept` ("interrupted: KEPT"), ending through `ending`.
    static func announce(_ kept: String, endingThrough ending: (@Sendable (() -> Never) -> Never)? = nil) {
        sources = handle { number in interrupted(number, kept: kept, endingThrough: ending) }
    }

    /// The same, `kept` asked at the interruption (what is kept changes as the command goes).
    static func announce(_ kept: @escaping @Sendable () -> String) {
        sources = handle { number in interrupted(number, kept: kept()) }
    }

    /// Says what is kept, and ends the process as signal `number` would have; through `ending`,
    /// which may first make what is committed safe (`Catalog.endKeepingCommittedInItsFile`), on
    /// a queue of its own: the signal's handler returns, so that a second signal is heard, and
    /// ends the process at once (it waited behind the first handler, unheard). Without one, at
    /// once, in the handler (an import's `kept` has removed the catalog it was making).
    static func interrupted(_ number: Int32, kept: String, endingThrough ending: (@Sendable (() -> Never) -> Never)? = nil) {
        guard !Self.ending.exchange(true, ordering: .relaxed) else {
            printError("interrupted again: stopped at once; \(kept)")
            _exit(128 + number)
        }
        guard let ending else {
            printError("interrupted: \(kept)")
            _exit(128 + number)
        }
        DispatchQueue(label: "catalog.interruption").async {
            ending {
                printError("interrupted: \(kept)")
                _exit(128 + number)
            }
        }
    }

    /// Calls `body` with the signal's number on SIGINT, SIGTERM or SIGHUP instead of their
    /// default (ending the process at once), until the sources returned are cancelled. Call it
    /// on the main thread (a command's `run`): it blocks them there (``block()``).
    static func handle(_ body: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        block()
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { body(number) }
            source.resume()
            return source
        }
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP on the calling thread and the threads it makes from
    /// now on, so that they stay pending for the process until a dispatch signal source reads
    /// them (a signalfd). libdispatch's own threads block them already; the main thread, left
    /// open, took them through libdispatch's fallback, a handler that forwards the signal to
    /// the thread that registered the first source. A `scan --watch` lost about one Ctrl-C in
    /// a hundred there and went on watching. (`serve` runs its main thread as libdispatch's
    /// signal thread, which waits for signals with none blocked: this cannot hold there.)
    static func block() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, number) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }
}
