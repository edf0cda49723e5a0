/// A path's bytes as a C string, for the system calls that take one: paths are bytes, as the
/// kernel gives them, not necessarily UTF-8.
enum CPath {
    static func with<T>(_ path: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) -> T) -> T {
        (Array(path) + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
