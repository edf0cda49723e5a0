// Probe throughput next to the bare-read floor, on all cores, warm page cache.
//   ProbeBenchmark FILELIST [RUNS]
// FILELIST holds one path per line. Prints files/s (median of RUNS) for:
//   floor   open + read the first 64 KiB + close, nothing else
//   probe   ImageProbe.probe(path:)
import Dispatch
import Foundation
import ImageProbe

let arguments = CommandLine.arguments
guard arguments.count >= 2, let list = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write("usage: ProbeBenchmark FILELIST [RUNS]\n".data(using: .utf8)!)
    exit(2)
}
let paths = list.split(separator: "\n").map(String.init)
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let cores = ProcessInfo.processInfo.activeProcessorCount
let slices = cores * 16

/// Runs `body` over all paths split into slices on all cores; returns files/s.
func rate(_ body: @Sendable @escaping (String) -> Int) -> (Double, Int) {
    let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: slices)
    defer { counts.deallocate() }
    nonisolated(unsafe) let output = counts
    let start = ContinuousClock.now
    DispatchQueue.concurrentPerform(iterations: slices) { slice in
        var sum = 0
        var index = slice
        while index < paths.count {
            sum += body(paths[index])
            index += slices
        }
        output[slice] = sum
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (Double(paths.count) / seconds, counts.reduce(0, +))
}

let floor: @Sendable (String) -> Int = { path in
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { buffer in
        read(fd, buffer.baseAddress, 65536) > 0 ? 1 : 0
    }
}

let probe: @Sendable (String) -> Int = { path in
    ((try? ImageProbe.probe(path: path)) ?? nil).map { $0.pixelWidth > 0 ? 1 : 0 } ?? 0
}

var stats = (bytesRead: Int64(0), bytes: Int64(0), images: 0, exif: 0)
for path in paths {
    guard let info = try? ImageProbe.probe(path: path) else { continue }
    stats.images += 1
    stats.bytes += info.byteSize
    stats.bytesRead += info.bytesRead
    if info.orientation != .up || info.captureDate != nil { stats.exif += 1 }
}
print("corpus\t\(paths.count) files, \(stats.images) images, \(stats.exif) with EXIF, \(stats.bytes / 1_048_576) MiB; probe reads \(stats.bytesRead * 100 / max(stats.bytes, 1))% of the bytes")

_ = rate(floor) // warm the page cache
for (name, body) in [("floor", floor), ("probe", probe)] {
    var rates: [Double] = []
    var ok = 0
    for _ in 0..<runs {
        let (r, count) = rate(body)
        rates.append(r)
        ok = count
    }
    rates.sort()
    print("\(name)\t\(Int(rates[rates.count / 2]))\t\(ok)/\(paths.count)\t\(runs)")
}
