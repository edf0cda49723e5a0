#if canImport(Darwin)
import Darwin
#endif
import Foundation

/// The kernel's id of the running boot: it changes every time the machine starts.
enum BootID {
    /// nil where the system does not tell it.
    static let current: String? = {
        #if os(Linux)
        let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        return text.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        #elseif canImport(Darwin)
        var size = 0
        guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 1 else { return nil }
        var bytes = [CChar](repeating: 0, count: size)
        guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
        return String(cString: bytes)
        #else
        return nil
        #endif
    }()
}
