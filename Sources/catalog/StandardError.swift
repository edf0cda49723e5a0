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

/// Writes one line to stderr: diagnostics never mix with results on stdout. Control characters
/// in it (but its line breaks and tabs) are escaped: a message quotes what it was given (a
/// CSV's field, a file name), and an escape sequence there would reach the terminal.
func printError(_ message: String, newline: Bool = true) {
    var line = terminalSafe(message)
    if newline { line += "\n" }
    _ = line.withUTF8 { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Writes `text` over the progress line on a terminal's stderr (carriage return, erase the
/// line: the only escape sequence catalog sends on purpose); "" clears it.
func printProgress(_ text: String) {
    var line = "\r\u{1B}[K" + terminalSafe(text)
    _ = line.withUTF8 { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// `text` with the characters a terminal acts on escaped (`\x1b`, `\u{202e}`): C0 controls but
/// line breaks and tabs, DEL, C1 controls, and bidirectional overrides and isolates.
func terminalSafe(_ text: String) -> String {
    func acted(_ value: UInt32) -> Bool {
        (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }
    guard text.unicodeScalars.contains(where: { acted($0.value) }) else { return text }
    var escaped = ""
    for scalar in text.unicodeScalars {
        if !acted(scalar.value) {
            escaped.unicodeScalars.append(scalar)
        } else if scalar.value < 0x80 {
            escaped += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        } else {
            escaped += "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }
    return escaped
}

/// Exits 1 with a message when the output could not all be written (a full disk, a closed
/// pipe whose signal is ignored), as `cat` does: `catalog list --json > export.ndjson` cut
/// short must not look like an export.
func finishOutput() {
    errno = 0
    guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return }
    let reason = errno != 0 ? String(cString: strerror(errno)) : "a write failed"
    printError("Error: cannot write the output: \(reason)\(Output.written.map { "; \($0)" } ?? "")")
    Foundation.exit(1)
}
