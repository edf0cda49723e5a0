// Thumbnails of every file in a list, on THREADS threads, written to OUT/<line number>.<ext>:
// the library path a gallery's server takes (read, probe the orientation, decode at reduced
// size, reduce, orient, encode, write). See BENCHMARKS.md and scripts/thumbnails.sh.
//   ThumbnailBenchmark LIST OUT [THREADS] [SIZE]
import Dispatch
import Foundation
import ImageProbe
import Thumbnailer

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: ThumbnailBenchmark LIST OUT [THREADS] [SIZE]\n".utf8))
    exit(2)
}
let paths = try String(contentsOfFile: arguments[1], encoding: .utf8).split(separator: "\n").map(String.init)
let out = arguments[2]
let threads = arguments.count > 3 ? Int(arguments[3])! : ProcessInfo.processInfo.activeProcessorCount
let size = arguments.count > 4 ? Int(arguments[4])! : 256
try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

let failures = NSLock()
nonisolated(unsafe) var failed: [String] = []
let start = ContinuousClock.now
DispatchQueue.concurrentPerform(iterations: threads) { worker in
    for index in stride(from: worker, to: paths.count, by: threads) {
        do {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: paths[index])))
            let orientation = (try? ImageProbe.probe(bytes: bytes))??.orientation.rawValue ?? 1
            let thumbnail = try Thumbnailer.thumbnail(bytes: bytes, size: size, orientation: orientation)
            try Data(thumbnail.bytes).write(to: URL(fileURLWithPath: "\(out)/\(index + 1).\(thumbnail.format.fileExtension)"))
        } catch {
            failures.withLock { failed.append("\(paths[index]): \(error)") }
        }
    }
}
let elapsed = ContinuousClock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
for line in failed.prefix(5) { FileHandle.standardError.write(Data("failed: \(line)\n".utf8)) }
print("\(paths.count - failed.count) thumbnails in \(String(format: "%.3f", seconds)) s: \(Int(Double(paths.count - failed.count) / seconds))/s, \(failed.count) failed")
