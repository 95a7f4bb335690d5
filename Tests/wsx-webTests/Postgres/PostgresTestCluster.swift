import Foundation
import Logging
import PostgresNIO
@testable import wsx_web
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for the suite: Debian's PostgreSQL (`make deps` installs it),
/// `initdb` in a temporary folder as the `postgres` user (it refuses root), on a free loopback
/// port, started once per test process on first use and stopped when the process exits. Each test
/// gets a database of its own (`database()`), so tests run in parallel on one cluster.
final class PostgresTestCluster: Sendable {
    let port: Int
    let folder: URL
    let binaries: URL

    /// The cluster the whole run shares (one per run, not per test: starting one takes a second).
    static func shared() async throws -> PostgresTestCluster {
        try await starting.value
    }

    /// Started on a thread of its own: `pg_ctl -w` blocks while the server comes up.
    private static let starting = Task { try await onOwnThread { try PostgresTestCluster.start() } }

    private init(port: Int, folder: URL, binaries: URL) {
        (self.port, self.folder, self.binaries) = (port, folder, binaries)
    }

    /// The address of a new, empty database on the cluster (UTF8 unless told otherwise).
    func database(encoding: String = "UTF8") async throws -> PostgresAddress {
        try await create("ENCODING '\(encoding)' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
    }

    /// The address of a new database with wsx's schema: a copy of one migrated once per run, which
    /// takes a fraction of migrating each (the suites on PostgreSQL start hundreds of servers).
    func migratedDatabase() async throws -> PostgresAddress {
        let template = try await Self.migratedTemplate.value
        return try await create("TEMPLATE \(template.database)")
    }

    /// Made on first use; nothing connects to it afterwards (a template being copied must have no
    /// connections).
    private static let migratedTemplate = Task {
        let cluster = try await shared()
        let template = try await cluster.database()
        let logger = Logger(label: "test.postgres")
        try await PostgresConnector(address: template, logger: logger).withConnection { connection in
            _ = try await PostgresSchema.migrate(connection, logger: logger)
        }
        return template
    }

    private func create(_ options: String) async throws -> PostgresAddress {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = PostgresConnector(address: address(database: "postgres"), logger: Logger(label: "test.postgres"))
        try await admin.withConnection { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) \(options)"),
                                           logger: Logger(label: "test.postgres")).collect()
        }
        return address(database: name)
    }

    func address(database: String) -> PostgresAddress {
        PostgresAddress(host: "127.0.0.1", port: port, user: "postgres", database: database)
    }

    private static func start() throws -> PostgresTestCluster {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw ClusterFailure("PostgreSQL is not installed (make deps installs Debian's postgresql)")
        }
        let binaries = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if getuid() == 0 { try run("/bin/chown", ["postgres", folder.path]) }
        try runAsOwner(binaries.appendingPathComponent("initdb").path,
                       ["-D", folder.appendingPathComponent("data").path, "-E", "UTF8", "--locale=C.UTF-8", "-A", "trust",
                        "-U", "postgres", "--no-sync"])
        // The port is free when chosen, but another process may bind it before the server does:
        // then the start fails, and another port is tried.
        var port = 0
        for attempt in 1...3 {
            port = try freePort()
            do {
                try runAsOwner(binaries.appendingPathComponent("pg_ctl").path,
                               // `-t 60`: pg_ctl waits at most a minute for the server, so a start that hangs fails
                               // the suite that asked for the cluster instead of holding it.
                               ["-D", folder.appendingPathComponent("data").path, "-w", "-t", "60", "-l", folder.appendingPathComponent("log").path,
                                "-o", "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=1000 -c shared_buffers=32MB",
                                "start"])
                break
            } catch let failure as ClusterFailure {
                let log = (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
                guard attempt < 3 else { throw ClusterFailure("\(failure)\n--- server log ---\n\(log.suffix(2000))") }
            }
        }
        let cluster = PostgresTestCluster(port: port, folder: folder, binaries: binaries)
        stopAtExit = (binaries.appendingPathComponent("pg_ctl").path, folder.path)
        atexit {
            guard let (pgCtl, folder) = PostgresTestCluster.stopAtExit else { return }
            try? PostgresTestCluster.runAsOwner(pgCtl, ["-D", folder + "/data", "-m", "immediate", "stop"])
            try? FileManager.default.removeItem(atPath: folder)
        }
        return cluster
    }

    /// What the exit handler stops: pg_ctl and the cluster's folder.
    nonisolated(unsafe) private static var stopAtExit: (String, String)?

    /// Runs a PostgreSQL tool as the `postgres` user when the suite runs as root.
    private static func runAsOwner(_ tool: String, _ arguments: [String]) throws {
        if getuid() == 0 {
            try run("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments)
        } else {
            try run(tool, arguments)
        }
    }

    /// Runs a tool to its end (`ChildProcess`: Foundation's `Process` left `runuser` a zombie here
    /// and never returned).
    private static func run(_ tool: String, _ arguments: [String]) throws {
        let child = try ChildProcess(tool, arguments, in: URL(fileURLWithPath: "/"))
        guard child.waitUntilExit() == 0 else {
            throw ClusterFailure("\(tool) \(arguments.joined(separator: " ")) failed: \(child.output)")
        }
    }

    /// A port nothing listens on now, below the range the system hands out for port 0, where
    /// the run's hundreds of test servers take theirs.
    private static func freePort() throws -> Int {
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<32_000)
            if canBind(port) { return port }
        }
        throw ClusterFailure("cannot find a free port")
    }

    private static func canBind(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    struct ClusterFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Runs blocking PostgreSQL statements (`PostgresSession`) on a thread of their own, as the
/// PostgreSQL store does: never on the cooperative pool or an event loop.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
