#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// When a file's writes may skip waiting for the disk, and the stamp that tells, later, whether
/// they all reached it (LayoutFile). Writes the kernel was given are lost only if the machine
/// stops (a new boot follows) or the file system goes away under them (a drive pulled; it
/// is mounted again as a new mount). So the stamp names the boot and the mount, and only local
/// disk file systems qualify: a network file system can lose writes while both stay.
enum UnsyncedWrites {
    /// File systems whose unsynced writes survive as long as the boot and the mount do.
    static let localFileSystems: Set<String> = ["ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "bcachefs", "zfs", "jfs", "tmpfs", "overlay"]

    /// The stamp (nonzero) for files in `folder` in this boot and mount; nil where their writes
    /// must wait for the disk: not Linux, no boot id, or not a local file system.
    static func stamp(forFolder folder: String) -> Int32? {
        #if os(Linux)
        guard let bootID = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
              let mountInfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        var status = stat()
        guard stat(folder, &status) == 0 else { return nil }
        let real = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        return stamp(bootID: bootID, mountInfo: mountInfo, device: UInt64(status.st_dev), path: real)
        #else
        return nil
        #endif
    }

    /// The stamp from a boot id and `/proc/self/mountinfo`'s text, for a file on `device` at
    /// `path` (no symbolic links).
    static func stamp(bootID: String, mountInfo: String, device: UInt64, path: String) -> Int32? {
        let boot = bootID.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !boot.isEmpty, let mount = mount(of: path, device: device, in: mountInfo),
              localFileSystems.contains(mount.fileSystem) else { return nil }
        var hash: UInt32 = 2_166_136_261 // FNV-1a
        for byte in "\(boot) \(mount.id)".utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash == 0 ? 1 : Int32(bitPattern: hash)
    }

    /// The mount `path` is under: of the mounts of `device`, the one whose mount point is the
    /// longest prefix of the path (a device may be mounted at several places).
    static func mount(of path: String, device: UInt64, in mountInfo: String) -> (id: String, fileSystem: String)? {
        // glibc's encoding of dev_t.
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
        let wanted = "\(major):\(minor)"
        var best: (id: String, fileSystem: String, length: Int)?
        // "36 35 98:0 /root /mnt/point rw,noatime master:1 - ext4 /dev/sda1 rw"
        for line in mountInfo.split(separator: "\n") {
            let halves = line.split(separator: " - ", maxSplits: 1)
            let fields = halves[0].split(separator: " ")
            guard halves.count == 2, fields.count >= 5, fields[2] == wanted,
                  let fileSystem = halves[1].split(separator: " ").first else { continue }
            let point = unescape(String(fields[4]))
            guard path == point || point == "/" || path.hasPrefix(point + "/"), point.count > best?.length ?? -1 else { continue }
            best = (String(fields[0]), String(fileSystem), point.count)
        }
        return best.map { ($0.id, $0.fileSystem) }
    }

    /// mountinfo writes a space, tab, newline or backslash in a path as a three-digit octal escape.
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        let source = Array(field.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "\\"), index + 3 < source.count,
               let value = UInt8(String(decoding: source[(index + 1)...(index + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
