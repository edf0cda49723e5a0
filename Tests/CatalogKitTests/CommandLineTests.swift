import CatalogKit
import Foundation
import GRDB
import Testing

/// A suite that runs the built `catalog` and reads its output as text.
protocol RunsTheTool {}

extension RunsTheTool {
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try BuiltTool.run(arguments)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    /// The same, as `nobody` when the tests run as root, whom no permission stops.
    func runAsNobody(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        guard getuid() == 0 else { return try run(arguments) }
        let result = try BuiltTool.run(["-u", "nobody", "--", BuiltTool.catalog.path] + arguments, executable: URL(fileURLWithPath: "/sbin/runuser"))
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    /// Runs the binary with stdout on /dev/full: it must fail with the output's error.
    func expectFullDiskFails(_ arguments: [String], message: String = "Error: cannot write the output: No space left on device\n",
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let process = Process()
        process.executableURL = BuiltTool.catalog
        process.arguments = arguments
        process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, sourceLocation: sourceLocation)
        #expect(stderr == message, "\(stderr)", sourceLocation: sourceLocation)
    }
}

/// What a new user meets first: `--version`, scans of roots that cannot be scanned, commands
/// mistyped, output that cannot be written (the layout options: CommandLineOptionTests).
@Suite struct CommandLineTests: RunsTheTool {

    @Test func versionPrintsTheVersionAndTheSchema() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let result = try run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "catalog \(Catalog.version)\n")
        #expect(result.stdout.contains("schema 00"))
    }

    /// Too few open files to run at all (at 7 to 9 a scan died of SIGILL in libdispatch): said
    /// in words.
    @Test func tooFewOpenFilesAreRefusedInWords() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--nofile=8:8", "--", BuiltTool.catalog.path, "scan", "--db", library.catalogPath, library.root.path]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 1)
        #expect(said == "Error: catalog needs at least 32 open files, and this process may open 8 (ulimit -n)\n", "\(said)")
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath))
    }

    /// SIGTERM in the middle of an import (its input still coming): one line saying what is
    /// kept, the status a shell expects of a signal, and the catalog as it was; a catalog the
    /// import was making is removed (a mistyped --db is not left as a new, empty catalog).
    @Test func anInterruptedImportSaysWhatIsKept() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        func interruptedImport(whileWaiting: () throws -> Void = {}) throws -> String {
            let process = Process()
            process.executableURL = BuiltTool.catalog
            process.arguments = ["import", "--db", library.catalogPath, "--format", "csv", "-"]
            let input = Pipe(), errors = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            // More than the 1 MiB piece the import reads at a time: it opens the catalog and writes.
            input.fileHandleForWriting.write(Data("key,width,height\n".utf8 + (0..<100_000).flatMap { "pin-\($0),300,200\n".utf8 }))
            // The input stays open: the import waits for more, inside its transaction.
            while !FileManager.default.fileExists(atPath: library.catalogPath + "-wal") && process.isRunning {
                Thread.sleep(forTimeInterval: 0.02)
            }
            try #require(process.isRunning, "the import waits for its input")
            try whileWaiting()
            kill(process.processIdentifier, SIGTERM)
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            #expect(process.terminationReason == .exit && process.terminationStatus == 128 + SIGTERM)
            return said
        }
        let folder = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
        #expect(try interruptedImport() == "interrupted: nothing of this import was written (an import is one transaction), and the catalog it was making is removed\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["photos"], "no catalog, nor its files")
        // Unless another process has opened it meanwhile (a server): its files stay under it.
        let server = Process()
        server.executableURL = BuiltTool.catalog
        server.arguments = ["serve", "--db", library.catalogPath, "--port", "0", "--quiet"]
        let listening = Pipe()
        server.standardOutput = listening
        server.standardError = FileHandle.nullDevice
        defer { if server.isRunning { server.terminate(); server.waitUntilExit() } }
        var listened: String?
        let said = try interruptedImport(whileWaiting: {
            try server.run()
            var lines = LineReader(listening.fileHandleForReading)
            listened = lines.next() // "listening on ...": it has the catalog open
        })
        #expect(listened?.hasPrefix("listening on ") == true)
        #expect(said == "interrupted: nothing of this import was written (an import is one transaction); the catalog is as it was\n")
        #expect(FileManager.default.fileExists(atPath: library.catalogPath))
        server.terminate()
        server.waitUntilExit()
        let first = try library.write("first.csv", Data("key,width,height\nkept,10,20\n".utf8))
        #expect(try run(["import", "--db", library.catalogPath, first]).status == 0)
        #expect(try interruptedImport() == "interrupted: nothing of this import was written (an import is one transaction); the catalog is as it was\n")
        #expect(try library.catalog().items(order: .path).map(\.key) == [Data("kept".utf8)])
    }

    @Test func aMissingRootExits1NamingIt_whileTheOtherRootsAreScanned() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let missing = library.root.path + "-typo"
        let result = try run(["scan", "--db", library.catalogPath, missing, library.root.path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("added 1,"), "the good root was scanned: \(result.stdout)")
        #expect(result.stderr.contains("error: \(missing): No such file or directory"), "\(result.stderr)")
        #expect(try library.items().count == 1)
        // Nothing under a root that went missing is removed.
        try FileManager.default.moveItem(atPath: library.root.path, toPath: missing)
        let again = try run(["scan", "--db", library.catalogPath, library.root.path, "--json"])
        #expect(again.status == 1)
        #expect(again.stdout.contains(#""removed":0"#))
        #expect(again.stdout.contains(#""unscannedRoots":[""#))
        #expect(try library.items().count == 1)
    }

    /// A mistyped command is named, with the command it is nearest to (the parser said "2
    /// unexpected arguments").
    @Test func aMistypedCommandIsNamed_withTheNearestOne() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let typo = try run(["scna", "Pictures"])
        #expect(typo.status == 2)
        #expect(typo.stderr.hasPrefix("Error: unknown command 'scna'; did you mean 'scan'?"), "\(typo.stderr)")
        let far = try run(["frobnicate"])
        #expect(far.status == 2)
        #expect(far.stderr.hasPrefix("Error: unknown command 'frobnicate' (the commands: scan, import,"), "\(far.stderr)")
        #expect(try run(["help", "scan"]).status == 0)
        let help = try run(["help", "nothing"])
        #expect(help.status == 2 && help.stderr.hasPrefix("Error: unknown command 'nothing'"), "\(help.stderr)")
    }

    /// `--watch` with no root that can be scanned stops with exit 1 instead of watching nothing
    /// until Ctrl-C (into a catalog there already: without one, none is made).
    @Test func watchingWithNoRootThatExists_stopsWithExit1() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        #expect(try run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        let missing = library.root.path + "-typo"
        let result = try run(["scan", "--watch", "--db", library.catalogPath, missing])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: \(missing): No such file or directory"), "\(result.stderr)")
        #expect(result.stderr.contains("error: no root can be watched"), "\(result.stderr)")
        #expect(!result.stderr.contains("watching 0 folders"), "\(result.stderr)")
    }

    /// An empty --db (an unset variable) is not the default catalog, another scheme's URL is not
    /// a relative path, and a password in a URL is never printed back.
    @Test func anEmptyDbOrAnotherSchemesURL_isRefused_andAPasswordIsNotShown() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let empty = try run(["list", "--db", ""])
        #expect(empty.status == 2)
        #expect(empty.stderr.hasPrefix("Error: --db is empty"), "\(empty.stderr)")
        let other = try run(["scan", "--db", "mysql://host/catalog.sqlite", library.root.path])
        #expect(other.status == 2)
        #expect(other.stderr.hasPrefix("Error: --db is a mysql:// URL"), "\(other.stderr)")
        let made = FileManager.default.fileExists(atPath: "mysql:") // relative to this process's folder, as for the tool
        if made { try? FileManager.default.removeItem(atPath: "mysql:") }
        #expect(!made, "no folder made of the URL")
        let password = try run(["list", "--db", "postgres://someone:s3cret@localhost/db"])
        #expect(password.status == 1)
        #expect(password.stderr.contains("postgres://someone:***@localhost/db") && !password.stderr.contains("s3cret"), "\(password.stderr)")
        // Nor is an empty root the current folder (it scanned wherever the command ran).
        for command in [["scan", "--db", library.catalogPath, library.root.path, ""], ["serve", "--db", library.catalogPath, "--scan", ""]] {
            let root = try run(command)
            #expect(root.status == 2)
            #expect(root.stderr.contains("a folder to scan is empty (an unset variable?)"), "\(command): \(root.stderr)")
        }
        // Nor is an empty token file (serve said "there is no token file at .", and its advice failed).
        for command in [["serve", "--db", library.catalogPath, "--token-file", ""], ["token", "new", "--db", library.catalogPath, "--token-file", ""]] {
            let file = try run(command)
            #expect(file.status == 2)
            #expect(file.stderr.contains("--token-file must name a file, got an empty path"), "\(command): \(file.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath), "no catalog made")
        // Without $HOME, the default catalog is in the user's home folder, not at /.local.
        let home = try #require(getpwuid(getuid())).pointee.pw_dir.map { String(cString: $0) }
        let result = try BuiltTool.run(["stats", "--json"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.stderr.contains("\(home ?? "?")/.local/share/catalog/catalog.sqlite"), "\(result.stderr)")
    }

    @Test func aFileGivenAsARootIsRefusedWithAMessage() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let photo = try library.write("photo.jpg", Library.fixture("baseline.jpg"))
        let result = try run(["scan", "--db", library.catalogPath, photo])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: \(photo): not a folder"), "\(result.stderr)")
        #expect(result.stderr.contains("catalog probe"))
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath), "nothing to scan: no catalog made")
    }

    /// A scan with no root it can open makes no catalog (a mistyped --db or folder is not a new,
    /// empty catalog), with --watch too; into a catalog already there, it reports as any scan.
    @Test func aScanWithNothingToScanMakesNoCatalog() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let missing = library.root.path + "/nowhere"
        for watch in [[], ["--watch"]] {
            let result = try run(["scan", "--db", library.catalogPath] + watch + [missing])
            #expect(result.status == 1)
            #expect(result.stderr.contains("error: \(missing): No such file or directory; nothing scanned or removed under it"), "\(result.stderr)")
            #expect(result.stderr.contains("error: no catalog is made at \(library.catalogPath): there is nothing to scan into it"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: library.catalogPath))
            let folder = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["photos"], "nor its lock or layout files")
        }
        // Nor tables in an empty PostgreSQL database.
        let postgres = try TestPostgres.newDatabase()
        let refused = try run(["scan", "--db", postgres, missing])
        #expect(refused.status == 1 && refused.stderr.contains("error: no catalog is made at \(postgres): there is nothing to scan into it"),
                "\(refused.stderr)")
        #expect(try run(["stats", "--db", postgres]).stderr.contains("there is no catalog there (a database without tables)"))
        try library.write("photos/a.jpg", Library.fixture("baseline.jpg"))
        #expect(try run(["scan", "--db", library.catalogPath, library.path("photos")]).status == 0)
        let again = try run(["scan", "--db", library.catalogPath, missing])
        #expect(again.status == 1)
        #expect(again.stdout.hasPrefix("added 0, updated 0, moved 0, removed 0, unchanged 0"), "\(again.stdout)")
        #expect(again.stderr.contains("error: \(missing): No such file or directory"), "\(again.stderr)")
        #expect(try library.items().count == 1)
    }

    /// `serve`'s flags for what --scan walks are refused without --scan, rather than ignored.
    @Test(arguments: ["--include-hidden", "--one-file-system"])
    func serveRefusesAScanFlagWithoutScan(_ flag: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let result = try run(["serve", "--db", library.catalogPath, "--port", "0", flag])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: \(flag) applies to the folders of --scan, and none is given"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath), "nothing created")
    }

    /// A command that only reads refuses a catalog that does not exist, naming it, and creates
    /// neither it nor its folder (a mistyped --db used to become a new, empty catalog).
    @Test(arguments: [["list"], ["page", "--width", "375"], ["stats"], ["errors"], ["layouts"], ["layout", "--width", "375"],
                      ["sections", "--width", "375", "--sections", "month"], ["changes", "--since", "0"], ["thumbnails"],
                      ["serve", "--port", "0"]])
    func aCommandThatReadsRefusesACatalogThatDoesNotExist(_ arguments: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let folder = library.root.path + "-typo"
        let missing = folder + "/catalog.sqlite"
        let result = try run([arguments[0], "--db", missing] + arguments.dropFirst())
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: cannot open the catalog at \(missing): there is no catalog there;"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder), "nothing created")
    }

    /// `stats` counts the files that failed as "1 error", "2 errors" (it said "1 errors").
    @Test func statsCountsErrorsInWords() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("good.jpg", Library.fixture("baseline.jpg"))
        try library.write("broken.png", Library.fixture("rgb.png").prefix(20))
        for (broken, counted) in [(1, "1 error\n"), (2, "2 errors\n")] {
            if broken == 2 { try library.write("broken-too.png", Library.fixture("rgb.png").prefix(20)) }
            #expect(try run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
            let stats = try run(["stats", "--db", library.catalogPath]).stdout
            #expect(stats.contains("0 unsupported, \(counted)"), "\(stats)")
        }
    }

    /// A scan's `failing` counts the files under its roots that fail: a scan of a folder with
    /// nothing wrong said files under another root "failed before and did not change since".
    @Test func aScansFailingCountIsItsRoots() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let broken = try Library.fixture("rgb.png").prefix(20)
        for name in ["a/one.png", "a/two.png", "b/three.png"] { try library.write(name, broken) }
        try library.write("a/sub/good.jpg", Library.fixture("baseline.jpg"))
        try library.write("c/good.jpg", Library.fixture("baseline.jpg"))
        let a = library.path("a"), b = library.path("b"), c = library.path("c")
        for (roots, failed, failing) in [([a], 2, 2), ([b], 1, 1), ([a], 0, 2), ([c], 0, 0), ([library.path("a/sub")], 0, 0), ([a, b], 0, 3)] {
            let scan = try run(["scan", "--db", library.catalogPath, "--json"] + roots)
            #expect(scan.stdout.contains(#""failed":\#(failed),"failing":\#(failing),"#), "\(roots): \(scan.stdout)")
        }
        let text = try run(["scan", "--db", library.catalogPath, c]).stdout
        #expect(!text.contains("catalog errors"), "\(text)")
        #expect(try run(["scan", "--db", library.catalogPath, b]).stdout.contains("to see why 1 file fails: it failed before"))
    }

    /// Help and the version, which the argument parser prints, fail the same way.
    @Test(arguments: [["--version"], ["--help"], ["scan", "--help"], ["help", "page"]])
    func helpThatCannotBeWrittenFailsTheCommand(_ arguments: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        try expectFullDiskFails(arguments)
        // To a pipe they are printed whole, and exit 0.
        let written = try run(arguments)
        #expect(written.status == 0 && written.stderr.isEmpty, "\(written.stderr)")
        #expect(written.stdout.hasPrefix(arguments == ["--version"] ? "catalog " : "OVERVIEW: "), "\(written.stdout)")
    }

    /// Started with stdout closed (`>&-`, as some service managers and cron set-ups do): the
    /// output fails as on a closed descriptor, with EBADF, and the work is done. Before, the first
    /// descriptor the process opened took stdout's slot (dispatch's epoll: EINVAL), and a file
    /// opened for writing there would have had the output written into it.
    @Test(arguments: [["import"], ["scan"]])
    func aClosedStdoutFailsTheOutput_andNothingElse(_ command: [String]) throws {
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let csv = library.root.appendingPathComponent("pins.csv")
        try Data("key,width,height\npin-1,10,20\n".utf8).write(to: csv)
        let source = command == ["import"] ? csv.path : library.root.path
        let result = try BuiltTool.run(["-c", "exec \"$0\" \"$@\" >&-", BuiltTool.catalog.path, command[0], "--db", library.catalogPath, source], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 1)
        let kept = command == ["import"] ? "the import itself was written (its transaction had committed)" : "the scan itself was written"
        #expect(result.stderr == "Error: cannot write the output: Bad file descriptor; \(kept)\n", "\(result.stderr)")
        #expect(try library.items().count == 1)
    }

    /// A folder whose name starts with '-' is refused as an option, named, with the way to give
    /// it; it was read as -d -a -s -h and printed help with exit 0, having scanned nothing.
    @Test(arguments: ["-dash", "-x"])
    func aRootThatLooksLikeAnOption_isRefused_andScansAfterTheMark(_ name: String) throws {
        let library = try Library()
        try library.write(name + "/a.jpg", Library.fixture("baseline.jpg"))
        let refused = try run(["scan", "--db", library.catalogPath, name])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderr == "Error: unknown option '\(name)': catalog's options are long, as --db, but -h; a path that starts with '-' is written ./\(name), or after --\n", "\(refused.stderr)")
        let marked = try run(["scan", "--db", library.catalogPath, "--", library.root.path + "/" + name])
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(try library.items().count == 1)
        // Values that start with '-' are still values.
        let page = try run(["page", "--db", library.catalogPath, "--width", "300", "--offset", "-5"])
        #expect(page.status == 2 && page.stderr.hasPrefix("Error: --offset must be a number of points from 0"), "\(page.stderr)")
        let infinite = try run(["page", "--db", library.catalogPath, "--width", "300", "--offset", "-inf"])
        #expect(infinite.status == 2 && infinite.stderr.hasPrefix("Error: --offset must be a number of points from 0"), "\(infinite.stderr)")
        #expect(try run(["-help"]).status == 0)
    }

    /// An argument that is not UTF-8 is refused as such, rather than repaired into a name that
    /// does not exist ("No such file or directory" for a folder that is there); the folder
    /// above it scans the folder under its own bytes.
    @Test func anArgumentThatIsNotUTF8_isRefusedAsSuch() throws {
        let library = try Library()
        let folder = library.root.path + "/bad"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Library.fixture("baseline.jpg").write(to: URL(fileURLWithPath: folder + "/a.jpg"))
        // The folder's name ends in the byte 0xFF: made and named by the shell.
        let named = try BuiltTool.run(["-c", "mv \"$1/bad\" \"$1/bad$(printf '\\377')\" && exec \"$0\" scan --db \"$2\" \"$1/bad$(printf '\\377')\"", BuiltTool.catalog.path, library.root.path, library.catalogPath], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(named.status == 2)
        #expect(named.stderr == "Error: argument 4, \"\(library.root.path)/bad\\xff\", is not UTF-8 text, which catalog's arguments must be (to scan a folder so named, give a folder above it: the names met in a scan may be any bytes)\n", "\(named.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath))
        let above = try run(["scan", "--db", library.catalogPath, library.root.path])
        #expect(above.status == 0, "\(above.stderr)")
        #expect(try library.items().keys.sorted() == ["\(library.root.path)/bad\\xff/a.jpg"])
        // `probe` names the way round it that probe has (a folder above it is no file to read),
        // and an empty path as one.
        let probed = try BuiltTool.run(["-c", "exec \"$0\" probe \"$1/bad$(printf '\\377')/a.jpg\"", BuiltTool.catalog.path, library.root.path], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(probed.status == 2 && probed.stderr.contains("(to read a file so named, scan its folder:"), "\(probed.stderr)")
        let empty = try run(["probe", ""])
        #expect(empty.status == 1 && empty.stderr.hasPrefix("\"\" (an empty path): "), "\(empty.stderr)")
    }

    /// `catalog probe` prints a path as `catalog list` does: a tab, a line break or a backslash
    /// in a name is escaped, so it never splits a column or a line (it was printed raw).
    @Test func probePrintsPathsEscapedAsListDoes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let tab = try library.write("a\tb.jpg", Library.fixture("baseline.jpg"))
        let newline = try library.write("new\nline.txt", Data("not an image".utf8))
        let broken = try library.write("back\\slash.png", Library.fixture("rgb.png").prefix(20))
        let result = try run(["probe", tab, newline, broken])
        #expect(result.status == 1)
        let root = library.root.path
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix("\(root)/a\\tb.jpg\tjpeg\t") && lines[1] == "\(root)/new\\nline.txt\tunsupported",
                "\(result.stdout)")
        #expect(result.stderr.hasPrefix("\(root)/back\\\\slash.png: "), "\(result.stderr)")
    }
}
