import Foundation

/// When a file's writes may skip waiting for the disk, and the stamp that tells, later, whether
/// they all reached it (LayoutFile). Writes the kernel was given are lost only if the machine
/// stops, and a new boot follows: the stamp names the boot. Where the disk can go away while
/// the machine runs (a USB drive or an SD card pulled, a network share) or the system gives no
/// boot id, there is no stamp, and writes wait.
enum UnsyncedWrites {
    /// Local disk file systems.
    static let localFileSystems: Set<String> = ["ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "zfs", "bcachefs", "tmpfs", "overlay"]

    /// The stamp (nonzero) for files in `folder` in this boot; nil where their writes must wait.
    static func stamp(forFolder folder: String) -> Int32? {
        #if os(Linux)
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        let real = URL(fileURLWithPath: absolute).resolvingSymlinksInPath().standardizedFileURL.path
        guard let bootID = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
              let mountInfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8),
              let mount = mount(of: real, in: mountInfo) else { return nil }
        // A block device's place in sysfs says how it is attached (…/usb2/2-1/…/block/sdb/sdb1).
        var blockDevice: String?
        var removable = false
        if !mount.device.hasPrefix("0:") {
            let link = "/sys/dev/block/\(mount.device)"
            blockDevice = (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) ?? "unknown"
            removable = [link + "/removable", link + "/../removable"].contains { file in
                (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            }
        }
        return stamp(bootID: bootID, fileSystem: mount.fileSystem, blockDevice: blockDevice, removable: removable)
        #else
        return nil
        #endif
    }

    /// The stamp for a file system of type `fileSystem` on the block device at `blockDevice` in
    /// sysfs (nil: none, such as tmpfs or a btrfs subvolume), marked `removable` or not, in the
    /// boot `bootID`.
    static func stamp(bootID: String, fileSystem: String, blockDevice: String?, removable: Bool) -> Int32? {
        let boot = bootID.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !boot.isEmpty, localFileSystems.contains(fileSystem), !removable else { return nil }
        if let blockDevice, blockDevice == "unknown" || blockDevice.contains("/usb") || blockDevice.contains("/mmc") { return nil }
        var hash: UInt32 = 2_166_136_261 // FNV-1a
        for byte in boot.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash == 0 ? 1 : Int32(bitPattern: hash)
    }

    /// The mount `path` (absolute, no symbolic links) is under, from `/proc/self/mountinfo`: the
    /// one with the longest mount point that holds the path, the last listed of those at one
    /// mount point (the one on top). Its device ("major:minor") and file system type.
    static func mount(of path: String, in mountInfo: String) -> (device: String, fileSystem: String)? {
        var best: (device: String, fileSystem: String, length: Int)?
        // "36 35 98:0 /root /mnt/point rw,noatime master:1 - ext4 /dev/sda1 rw"
        for line in mountInfo.split(separator: "\n") {
            let halves = line.split(separator: " - ", maxSplits: 1)
            let fields = halves[0].split(separator: " ")
            guard halves.count == 2, fields.count >= 5, let fileSystem = halves[1].split(separator: " ").first else { continue }
            let point = unescape(String(fields[4]))
            guard path == point || point == "/" || path.hasPrefix(point + "/"), point.count >= best?.length ?? -1 else { continue }
            best = (String(fields[2]), String(fileSystem), point.count)
        }
        return best.map { ($0.device, $0.fileSystem) }
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
