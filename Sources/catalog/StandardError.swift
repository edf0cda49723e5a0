#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one line to stderr: diagnostics never mix with results on stdout.
func printError(_ message: String, newline: Bool = true) {
    var line = message
    if newline { line += "\n" }
    _ = line.withUTF8 { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
