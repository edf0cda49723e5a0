#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Dispatch

/// Ctrl-C, SIGTERM or SIGHUP (a closed terminal) in a command that writes as it goes: one line
/// saying what is kept, then the exit status a shell gives a process the signal ended (128 + its
/// number), at once. What was committed stays and the transaction under way is rolled back, as
/// after a kill: nothing waits for the work in flight.
enum Interruption {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// From now on, an interruption says `kept` ("interrupted: KEPT"), ending through `ending`.
    static func announce(_ kept: String, endingThrough ending: @escaping @Sendable (() -> Never) -> Never = { $0() }) {
        sources = handle { number in interrupted(number, kept: kept, endingThrough: ending) }
    }

    /// The same, `kept` asked at the interruption (what is kept changes as the command goes).
    static func announce(_ kept: @escaping @Sendable () -> String) {
        sources = handle { number in interrupted(number, kept: kept()) }
    }

    /// Says what is kept, and ends the process as signal `number` would have; through `ending`,
    /// which may first make what is committed safe (`Catalog.endKeepingCommittedInItsFile`).
    static func interrupted(_ number: Int32, kept: String, endingThrough ending: (() -> Never) -> Never = { $0() }) -> Never {
        ending {
            printError("interrupted: \(kept)")
            _exit(128 + number)
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
