import CatalogModel
import Foundation

/// When a file's writes may skip waiting for the disk, and the stamp that tells, later, whether
/// they all reached it (LayoutFile). Writes the kernel was given are lost only if the machine
/// stops, and a new boot follows: the stamp names the boot. Only a local disk file system on a
/// disk that stays while the machine runs qualifies: not a USB drive, an SD card, a removable
/// or hot-pluggable device, a network share, or a device the kernel makes of others that
/// cannot be traced to such disks. Elsewhere, or without a boot id, there is no stamp and
/// writes wait.
enum UnsyncedWrites {
    /// File systems on one block device, which `/proc/self/mountinfo` names.
    static let localFileSystems: Set<String> = ["ext2", "ext3", "ext4", "xfs", "f2fs"]

    /// What the checks read of sysfs: a file's text, a folder's entries, where a link leads.
    struct Sysfs: Sendable {
        var contents: @Sendable (String) -> String?
        var entries: @Sendable (String) -> [String]
        var resolve: @Sendable (String) -> String

        static let system = Sysfs(
            contents: { try? String(contentsOfFile: $0, encoding: .utf8) },
            entries: { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] },
            resolve: { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
    }

    /// This boot's mark (nonzero): a hash of the kernel's boot id; nil where there is none.
    static func bootMark() -> Int32? {
        #if os(Linux)
        guard let bootID = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else { return nil }
        return bootMark(bootID)
        #else
        return nil
        #endif
    }

    static func bootMark(_ bootID: String) -> Int32? {
        let boot = bootID.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !boot.isEmpty else { return nil }
        var hash: UInt32 = 2_166_136_261 // FNV-1a
        for byte in boot.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash == 0 ? 1 : Int32(bitPattern: hash)
    }

    /// Whether files in `folder` may be written without waiting for the disk: a local disk file
    /// system on a disk that stays while the machine runs.
    static func staysAttached(folder: String) -> Bool {
        #if os(Linux)
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        let real = URL(fileURLWithPath: absolute).resolvingSymlinksInPath().standardizedFileURL.path
        guard let mountInfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8),
              let mount = mount(of: real, in: mountInfo), localFileSystems.contains(mount.fileSystem),
              !mount.device.hasPrefix("0:") else { return false }
        return staysAttached(Sysfs.system.resolve("/sys/dev/block/\(mount.device)"), sysfs: .system)
        #else
        return false
        #endif
    }

    /// Whether the block device at `device` (its folder under /sys/devices) stays while the
    /// machine runs: not attached through USB or an SD/MMC slot, no `removable` mark on it or on
    /// anything it hangs from (block devices say 1, PCI ports of Thunderbolt and USB4 say
    /// "removable"), and a device the kernel makes of others (device mapper, RAID) only if all
    /// of those stay; one made of none (a loop device, a network block device, zram) does not.
    static func staysAttached(_ device: String, sysfs: Sysfs, depth: Int = 0) -> Bool {
        // USB, SD/MMC, iSCSI sessions, Fibre Channel remote ports.
        guard depth < 8, device.hasPrefix("/sys/devices/"),
              !["/usb", "/mmc", "/session", "/rport-"].contains(where: device.contains) else { return false }
        var folder = device
        while folder.count > "/sys/devices".count {
            if let mark = sysfs.contents(folder + "/removable")?.trimmingCharacters(in: .whitespacesAndNewlines),
               mark == "1" || mark == "removable" { return false }
            folder = FilePath.folder(of: folder)
        }
        guard device.hasPrefix("/sys/devices/virtual/") else { return true }
        // A partition's components are its disk's.
        let slaves = sysfs.entries(device + "/slaves") + sysfs.entries(FilePath.folder(of: device) + "/slaves")
        return !slaves.isEmpty && slaves.allSatisfy { slave in
            staysAttached(sysfs.resolve("/sys/class/block/\(slave)"), sysfs: sysfs, depth: depth + 1)
        }
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
