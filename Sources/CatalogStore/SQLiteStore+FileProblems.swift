import CatalogModel
import Foundation
import GRDB

/// Why a catalog cannot be opened or written, said so that the user knows what to do: files
/// this user may not write, a read-only file system, a full disk.
extension SQLiteStore {
    /// Why opening the SQLite catalog at `path` (a file with SQLite's header) is refused before
    /// SQLite tries: this user may read it but not write it, and may write its folder, where
    /// SQLite and the layout file would make files of theirs that are not there yet (-shm, the
    /// layouts' file...): the catalog's owner could not open it after them. Nil otherwise (the
    /// folder not writable: nothing is made, and SQLite says whether it can read it).
    static func wouldLeaveFilesBeside(_ path: String) -> String? {
        guard access(path, R_OK) == 0, access(path, W_OK) != 0, access(directory(holding: path), W_OK) == 0,
              fileSuffixes.dropFirst().contains(where: { access(path + $0, F_OK) != 0 && !$0.hasSuffix("-journal") }),
              hasSQLiteHeader(path) else { return nil }
        return unwritable(path) ?? unwritableReason
    }

    /// Whether the file starts as an SQLite database does. (Its descriptor closed at once: only
    /// called on a file this process cannot write, which it has no SQLite connection to.)
    static func hasSQLiteHeader(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        return Glibc.read(fd, &header, 16) == 16 && header == Array("SQLite format 3\0".utf8)
    }

    /// Whether another process has the catalog at `path` open: each SQLite connection in WAL
    /// mode holds a read lock on the -shm file's "deadman switch" byte (os_unix.c's
    /// UNIX_SHM_DMS, byte 128) while it is open. `F_GETLK` shows other processes' locks only.
    /// (Closing the descriptor drops this process's own locks on the file: for a process about to
    /// remove the catalog, or one without it open.)
    package static func isOpenInAnotherProcess(_ path: String) -> Bool {
        let fd = Glibc.open(path + "-shm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false } // no -shm: no connection has it open
        defer { close(fd) }
        var lock = deadmanSwitch()
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return true } // unknown: as if it were
        return lock.l_type != Int16(F_UNLCK)
    }

    /// A write lock on the -shm file's "deadman switch" byte (os_unix.c's UNIX_SHM_DMS, byte 128).
    static func deadmanSwitch() -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        return lock
    }

    /// Why SQLite cannot work on the catalog at `path` although it exists and can be read: even
    /// to read, it writes beside the file (the -wal and -shm files, the stored layouts' file).
    static func unwritable(_ path: String) -> String? {
        let folder = directory(holding: path)
        let (file, beside) = (access(path, W_OK) == 0, access(folder, W_OK) == 0)
        guard !file || !beside else { return nil }
        // No user may write there: "run catalog as the catalog's owner" sent its owner nowhere.
        var disk = statvfs()
        if statvfs(folder, &disk) == 0, disk.f_flag & UInt(ST_RDONLY) != 0 {
            let way = access(path, F_OK) == 0 ? "copy the catalog to a disk that can be written" : "give a --db on a disk that can be written"
            return "it is on a read-only file system (a backup disk, a snapshot, a mount with -o ro), where SQLite cannot make the files "
                + "it keeps beside the catalog, which it needs even to read; \(way), or mount this one read-write"
        }
        // Its owner, who took its write permission away: "run catalog as the catalog's owner" said nothing to do.
        var info = stat()
        if !file, beside, stat(path, &info) == 0, info.st_uid == getuid() {
            return "this user owns it but may not write it (mode \(String(info.st_mode & 0o777, radix: 8))), which SQLite needs even to read "
                + "(the files it keeps beside the catalog); chmod u+w \(FilePath.shellWord(path)) gives that back"
        }
        return unwritableReason
    }

    /// The folder that holds `path`, as the system calls take it: "." for a bare name.
    static func directory(holding path: String) -> String {
        let folder = FilePath.folder(of: path)
        return folder.isEmpty ? "." : folder
    }

    static let unwritableReason = "this user cannot write it or its folder, which SQLite needs even to read (the files it "
        + "keeps beside the catalog); run catalog as the catalog's owner, or copy it"

    /// The error as a StoreError, a full disk said as one, with the places it may be, and a
    /// damaged file as one: `damaged` is where the call read and wrote.
    func wrap(_ error: any Error, damaged: StoreError.DamagedFile = .catalogOrLayouts) -> StoreError {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            return .full(path: path, reason: Self.fullReason(path))
        }
        // A catalog this user may read but not write, opened because its -wal and -shm were there
        // (left by a process that was killed): a write says why, as an opening refused for it does.
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_READONLY, let reason = Self.unwritable(path) {
            // Not "which SQLite needs even to read": it has just read.
            return .notPermitted(path: path, reason: reason == Self.unwritableReason
                                 ? "this user cannot write it or its folder: run catalog as the catalog's owner, or copy it" : reason)
        }
        // The catalog writable, its file of stored layouts not (another user's, who made it):
        // a page is made all the same, its layout not stored (`Pager`), and `layout` says why.
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_READONLY, damaged != .catalog,
           access(path + ".layouts", F_OK) == 0, access(path + ".layouts", W_OK) != 0 {
            return .notPermitted(path: path, reason: "this user may not write its file of stored layouts, \(path).layouts; it is a cache: "
                + "its owner may let others write it (chmod a+w), or delete it while no catalog command runs, and the next command makes it again")
        }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_CORRUPT {
            // A torn page the check at opening did not read (it reads the schema only).
            return .damaged(path: path, reason: error.message ?? "database disk image is malformed", file: damaged)
        }
        return StoreError.wrap(error)
    }

    /// Where a full disk may be, for the catalog at `path`.
    static func fullReason(_ path: String) -> String {
        "no room on the disk of the catalog, of its file of stored layouts (\(path).layouts), "
            + "or of the folder SQLite writes its temporary files in (\(temporaryFolder), $SQLITE_TMPDIR sets another)"
    }

    /// SQLite's "disk I/O error" at opening, with less than `roomToOpen` left beside the
    /// catalog's `files`: it could not make its -shm file, which it needs even to read.
    static func isFullAtOpening(_ error: DatabaseError, files: String) -> Bool {
        error.resultCode == .SQLITE_IOERR && roomBeside(files) < roomToOpen
    }

    /// The room an opening may need beside the catalog: SQLite's -shm and -wal, and a new file
    /// of stored layouts (its tables' first pages and its journal, in 64 KiB pages).
    static let roomToOpen = 1 << 20

    /// A full disk met while opening the catalog: said as one, with the room an opening needs,
    /// and the file of stored layouts as what may be deleted when that frees more than it takes
    /// to make again (the next opening makes a new one).
    static func fullAtOpeningReason(_ path: String) -> String {
        var status = stat()
        let layouts = stat(path + ".layouts", &status) == 0 ? Int(status.st_size) : 0
        return "no room on the catalog's disk (\(roomBeside(path) >> 10) KiB free): even to read, SQLite makes files beside "
            + "the catalog, and catalog makes its file of stored layouts there when it is missing; at least \(roomToOpen >> 20) MiB must be free there"
            + (layouts > roomToOpen ? "; its file of stored layouts, \(path).layouts (\(layouts) bytes), is a cache that may be deleted while no catalog command runs" : "")
    }

    /// Bytes this user may still write on the disk that holds `path`'s folder (root may write
    /// the blocks kept for it too); Int.max when it cannot be told.
    static func roomBeside(_ path: String) -> Int {
        var status = statvfs()
        guard statvfs(directory(holding: path), &status) == 0 else { return .max }
        return Int(getuid() == 0 ? status.f_bfree : status.f_bavail) * Int(status.f_frsize)
    }

    /// Where SQLite writes its temporary files (sorts, big transactions' spill): the first of
    /// $SQLITE_TMPDIR, $TMPDIR, /var/tmp, /usr/tmp and /tmp that is a folder it may write in.
    static var temporaryFolder: String {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["SQLITE_TMPDIR"], environment["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp"].compactMap { $0 }
        return candidates.first { !$0.isEmpty && access($0, W_OK | X_OK) == 0 } ?? "."
    }
}
