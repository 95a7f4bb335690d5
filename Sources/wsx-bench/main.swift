// wsx-bench thumbnails FILE [RUNS]
//
// Makes RUNS thumbnails of FILE in this process with wsx's Thumbnailer (the code the server
// runs) and prints one JSON line: per-image milliseconds and the process's peak RSS before and
// after, so bench/run.py can put the in-process figure beside vipsthumbnail and ImageMagick.
import Foundation
import Uploads

func peakRSSKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, arguments[1] == "thumbnails" else {
    FileHandle.standardError.write(Data("usage: wsx-bench thumbnails FILE [RUNS]\n".utf8))
    exit(64)
}
let source = URL(fileURLWithPath: arguments[2])
let runs = arguments.count > 3 ? Int(arguments[3]) ?? 10 : 10
let library = try ImageLibrary()
let thumbnailer = Thumbnailer(library: library, policy: UploadPolicy(), concurrency: 1)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

let before = peakRSSKilobytes()
var milliseconds: [Double] = []
for run in 0..<runs {
    let target = folder.appendingPathComponent("t\(run).jpg")
    let start = ContinuousClock.now
    _ = try await thumbnailer.makeThumbnail(of: source, to: target)
    let elapsed = ContinuousClock.now - start
    milliseconds.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
}
let after = peakRSSKilobytes()
let json = "{\"ms\": [\(milliseconds.map { String(format: "%.2f", $0) }.joined(separator: ", "))], \"rss_before_kb\": \(before), \"rss_after_kb\": \(after)}"
print(json)
