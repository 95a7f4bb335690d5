import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The server process as the kernel sees it (`/proc/self`), for the `process_*` series every
/// Prometheus client library exports: resident and virtual memory, CPU time, open descriptors
/// and their limit, and the start time.
struct ProcessStats: Sendable {
    var residentBytes: Double = 0
    var virtualBytes: Double = 0
    var cpuSeconds: Double = 0
    var openDescriptors: Double = 0
    var maximumDescriptors: Double = 0
    var startTimeSeconds: Double = 0

    /// Reads them now; a value the kernel does not give stays 0.
    static func current() -> ProcessStats {
        var stats = ProcessStats()
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if fields.count >= 2 { (stats.virtualBytes, stats.residentBytes) = (fields[0] * page, fields[1] * page) }
        }
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            stats.cpuSeconds = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }
        stats.openDescriptors = Double((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { stats.maximumDescriptors = Double(limit.rlim_cur) }
        stats.startTimeSeconds = startTime
        return stats
    }

    /// When this process started, in seconds since 1970: the boot time plus the start's clock
    /// ticks (field 22 of `/proc/self/stat`).
    private static let startTime: Double = {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")"),
              let proc = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let bootLine = proc.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let boot = Double(bootLine.dropFirst(6))
        else { return Date().timeIntervalSince1970 }
        // After the command's name in parentheses come fields 3…; the start time is field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return Date().timeIntervalSince1970 }
        return boot + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }()
}
