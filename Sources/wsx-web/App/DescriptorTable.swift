import Foundation

/// Makes the process ready to hold thousands of open sockets before the server starts.
///
/// Every open event stream is a socket. The soft open-file limit (1,024 on a stock Debian
/// login) would cap a team at about a thousand open tabs, so it is raised to the hard limit.
///
/// And the kernel grows a process's descriptor table by doubling it, which in a multithreaded
/// process waits for an RCU grace period (`expand_files` -> `synchronize_rcu`). Measured here:
/// the connection that got descriptor 1,024 waited 7–17 ms inside `accept4`, its event loop
/// stalled meanwhile, and the same happens again at 2,048, 4,096 and so on, always while the
/// server is busiest. So the table is grown once, at start, to `reserving` slots (a descriptor is
/// opened at that number and closed; the table never shrinks). Its cost is kernel memory, about
/// 8 bytes per slot (512 KB for 65,536).
enum DescriptorTable {
    /// What `prepare` found and did.
    struct Outcome: Sendable, Equatable {
        /// The soft open-file limit before.
        let previousLimit: Int
        /// The soft open-file limit now.
        let limit: Int
        /// Descriptors the table holds without growing.
        let reserved: Int
    }

    /// Raises the soft open-file limit to the hard one and grows the table to hold
    /// `min(reserving, limit)` descriptors.
    @discardableResult
    static func prepare(reserving wanted: Int = 65_536) -> Outcome {
        var limits = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        let previous = Int(clamping: limits.rlim_cur)
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        let limit = Int(clamping: limits.rlim_cur)
        let reserved = grow(to: min(wanted, limit))
        return Outcome(previousLimit: previous, limit: limit, reserved: reserved)
    }

    /// Opens a descriptor numbered at least `size - 1`, which makes the kernel size the table
    /// to hold it, and closes it again. Returns the table's size afterwards.
    private static func grow(to size: Int) -> Int {
        let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard probe >= 0 else { return currentSize() }
        defer { close(probe) }
        if size > 1 {
            // F_DUPFD takes the lowest free number at or above the one asked for: it never
            // replaces an open descriptor.
            let high = fcntl(probe, F_DUPFD_CLOEXEC, Int32(clamping: size - 1))
            if high >= 0 { close(high) }
        }
        return currentSize()
    }

    /// The soft open-file limit now.
    static func openFileLimit() -> Int {
        var limits = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        return Int(clamping: limits.rlim_cur)
    }

    /// Slots in the descriptor table now (`FDSize` in `/proc/self/status`).
    static func currentSize() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("FDSize:") {
            return Int(line.dropFirst("FDSize:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }
}
