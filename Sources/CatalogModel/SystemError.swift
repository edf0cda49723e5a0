#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text of a C library error number: the one place errno becomes words.
package enum SystemError {
    /// `strerror(code)`; call it right after the failing call, before anything resets errno.
    package static func text(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
