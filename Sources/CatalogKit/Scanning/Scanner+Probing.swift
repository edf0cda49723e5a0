import CatalogModel
import Dispatch
import Foundation
import ImageProbe

extension Scanner {
    struct Probed: Sendable {
        var outcome: FileOutcome
        var fingerprint: Int64?
    }

    /// Opens and probes a folder's files on all cores. Each file is opened relative to its
    /// folder, without blocking and (unless asked) without following links, and checked to be
    /// a regular file: a FIFO swapped in after the walk saw a file never hangs the scan.
    static func probeAll(_ files: [DirectoryWalker.File], followSymlinks: Bool) -> [Probed] {
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (followSymlinks ? 0 : O_NOFOLLOW)
        return [Probed](unsafeUninitializedCapacity: files.count) { buffer, count in
            nonisolated(unsafe) let output = buffer.baseAddress!
            DispatchQueue.concurrentPerform(iterations: files.count) { index in
                let file = files[index]
                let fd = file.withName { openat($0, $1, flags) }
                let probed: Probed
                if fd < 0 {
                    probed = Probed(outcome: .cannotOpen(SystemError.text()), fingerprint: nil)
                } else {
                    var info = stat()
                    probed = fstat(fd, &info) == 0 ? probe(fd: fd, stat: info)
                        : Probed(outcome: .cannotStat(SystemError.text()), fingerprint: nil)
                    close(fd)
                }
                (output + index).initialize(to: probed)
            }
            count = files.count
        }
    }

    /// Probes the open file `fd`, which `info` is the `fstat` of. The file's first bytes are read
    /// once, for the probe and the fingerprint both (a small file's fingerprint reads nothing
    /// more), and the probe does not stat the file again.
    static func probe(fd: Int32, stat info: stat) -> Probed {
        guard info.st_mode & S_IFMT == S_IFREG else { return Probed(outcome: .failed("not a regular file any more"), fingerprint: nil) }
        let size = Int64(info.st_size)
        return withUnsafeTemporaryAllocation(byteCount: ImageProbe.headLength, alignment: 8) { buffer in
            // A read that fails leaves the head empty: the probe reads again, and reports why not.
            let read = FileReads.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(size, Int64(buffer.count)))]), at: 0)
            let head = UnsafeRawBufferPointer(rebasing: buffer[..<read.count])
            do throws(ImageProbeError) {
                guard let image = try ImageProbe.probe(fileDescriptor: fd, size: size, head: head) else {
                    return Probed(outcome: .unsupported, fingerprint: nil)
                }
                let facts = ImageFacts(image, modifiedAt: Timestamps.iso8601(secondsSince1970: Int(info.st_mtim.tv_sec)))
                return Probed(outcome: .image(facts), fingerprint: FileFingerprint.compute(fd: fd, size: size, head: head))
            } catch {
                return Probed(outcome: .failed(error.description), fingerprint: nil)
            }
        }
    }

    static func fileStat(_ info: stat) -> FileStat {
        FileStat(device: Int64(bitPattern: UInt64(info.st_dev)), inode: Int64(bitPattern: UInt64(info.st_ino)),
                 size: Int64(info.st_size), mtimeNanoseconds: WallClock.nanoseconds(info.st_mtim))
    }

    /// `root` made absolute against the working directory, without a trailing slash.
    static func absolute(_ root: String) -> String {
        var path = root.hasPrefix("/") ? root : FileManager.default.currentDirectoryPath + "/" + root
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return (path as NSString).standardizingPath
    }
}
