import CatalogLayout
#if canImport(Glibc)
import Glibc
#endif

/// Transparent huge pages for the layout engine's large arrays, on Linux.
///
/// A layout of 10,000,000 items writes about 320 MB of new memory: with 4 KiB pages, 80,000
/// first-touch faults that cost more than laying the items out. Where the kernel gives huge
/// pages only to memory that asks for them (`/sys/kernel/mm/transparent_hugepage/enabled` set
/// to `madvise`, Debian's default), the engine's arrays of 4 MiB or more ask, through
/// ``MemoryAdvice``, with `madvise(MADV_HUGEPAGE)`: 2 MiB pages, 512 times fewer faults
/// (BENCHMARKS.md, "The layout engine's compute"). `CATALOG_HUGE_PAGES=0` in the environment
/// leaves the engine's memory as the allocator gives it.
public enum HugePages {
    /// Whether the advice is installed: the first use installs it unless the environment says
    /// no. Every `Catalog` reads this when it is made, before any of its layouts.
    public static let installed: Bool = {
        #if os(Linux)
        if isTurnedOff(by: getenv("CATALOG_HUGE_PAGES").map { String(cString: $0) }) { return false }
        MemoryAdvice.install { start, bytes in
            // madvise takes whole pages: the buffer's own, not its neighbours' at either end.
            let page = Int(getpagesize())
            let first = (Int(bitPattern: start) + page - 1) & ~(page - 1)
            let end = (Int(bitPattern: start) + bytes) & ~(page - 1)
            guard end > first else { return }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_HUGEPAGE)
        }
        return true
        #else
        return false
        #endif
    }()

    /// Whether `setting`, the value of `CATALOG_HUGE_PAGES`, turns the advice off.
    package static func isTurnedOff(by setting: String?) -> Bool {
        ["0", "no", "off", "false"].contains(setting?.lowercased() ?? "")
    }
}
