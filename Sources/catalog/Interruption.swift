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
    /// default (ending the process at once), until the sources returned are cancelled.
    static func handle(_ body: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { body(number) }
            source.resume()
            return source
        }
    }
}
