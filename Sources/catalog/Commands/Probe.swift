import ArgumentParser
import CatalogKit

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the size, orientation and date read from image headers.",
        discussion: """
            Reads only each file's header: a 20 MB photo costs about as much as a 20 KB one. \
            The format comes from the file's bytes, not its name. Files in a format it does not \
            read (it reads JPEG, PNG, WebP, GIF, HEIC and AVIF) are listed as unsupported; broken \
            files are reported on stderr and the exit status is 1 if any failed.
            """
    )

    @Argument(help: "Image files to probe.")
    var files: [String]

    @Flag(help: "Print one JSON object per file on stdout.")
    var json = false

    func run() throws {
        var failures = 0
        ProbeBatch().run(files) { paths, outcomes in
            for (path, outcome) in zip(paths, outcomes) {
                switch outcome {
                case .image(let facts):
                    print(json ? ProbeText.json(path: path, facts: facts) : ProbeText.text(path: path, facts: facts))
                case .unsupported:
                    print(json ? ProbeText.json(unsupportedPath: path) : "\(PathText.display(path.utf8))\tunsupported")
                case .failed(let reason):
                    failures += 1
                    if json { print(ProbeText.json(path: path, error: reason)) }
                    printError("\(path.isEmpty ? "\"\" (an empty path)" : PathText.display(path.utf8)): \(reason)")
                }
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }
}
