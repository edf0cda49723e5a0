#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Foundation

/// Takes the slots of stdin, stdout and stderr that the process was started without (`>&-`), with
/// /dev/null opened the other way round, so that reading stdin or writing stdout and stderr still
/// fails with EBADF, as on a closed descriptor, while no file the process opens later (a lock, the
/// layouts file, a thumbnail, dispatch's epoll) is given descriptor 1 or 2 and written to as output.
func reserveStandardDescriptors() {
    // In order: open gives the lowest free descriptor, which is the one found closed.
    for (descriptor, flags) in [(STDIN_FILENO, O_WRONLY), (STDOUT_FILENO, O_RDONLY), (STDERR_FILENO, O_RDONLY)] {
        guard fcntl(descriptor, F_GETFD) == -1, errno == EBADF else { continue }
        _ = open("/dev/null", flags)
    }
}

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
