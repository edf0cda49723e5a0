#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Foundation

/// Writes one line to stderr: diagnostics never mix with results on stdout.
func printError(_ message: String, newline: Bool = true) {
    var line = message
    if newline { line += "\n" }
    _ = line.withUTF8 { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Exits 1 with a message when the output could not all be written (a full disk, a closed
/// pipe whose signal is ignored), as `cat` does: `catalog list --json > export.ndjson` cut
/// short must not look like an export.
func finishOutput() {
    errno = 0
    guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return }
    let reason = errno != 0 ? String(cString: strerror(errno)) : "a write failed"
    printError("Error: cannot write the output: \(reason)")
    Foundation.exit(1)
}
