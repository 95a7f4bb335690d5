import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import wsx_web

/// A wsx server for one test: its own temporary data folder, fast bcrypt, a clock the test can
/// move, and logs captured for assertions.
struct TestApp {
    var config: AppConfig
    let clock: ManualClock
    let logs: CapturedLogs
    /// Runs on SQLite even when the suites run on PostgreSQL (`WSX_TEST_BACKEND`): for the tests
    /// of what SQLite alone has (its file, its writer, backups by `VACUUM INTO`).
    private(set) var sqliteOnly = false

    /// A server on the embedded SQLite file whatever backend the suites run on.
    static func sqlite(configure: (inout AppConfig) -> Void = { _ in }) -> TestApp {
        TestApp(configure: configure).onSQLite
    }

    /// This server on the embedded SQLite file whatever backend the suites run on.
    var onSQLite: TestApp {
        var app = self
        app.sqliteOnly = true
        return app
    }

    init(configure: (inout AppConfig) -> Void = { _ in }) {
        var config = AppConfig()
        config.dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wsx-test-\(UUID().uuidString)").path
        config.bcryptCost = 4
        config.port = 0
        // Tests sign up many people from one address: the per-address sign-up limit is raised,
        // as any suite that signs up in bulk must (the limit's own tests set it back).
        config.signupLimit.limit = 100_000
        // Suites sign up many people on the form: sign-up is open, as `make run` and any bulk
        // sign-up must say (`--signup open`); the policy's own tests set it back.
        config.signup.mode = .open
        // Suites post, upload and search in bulk on a clock that stands still (no bucket would
        // ever refill): the per-account limits are off, as for any bulk poster (RateLimitTests
        // turn them on).
        config.rateLimits = .off
        // Messages with links fetch nothing unless a test turns previews on (LinkPreviewTests,
        // with its local site listed).
        config.linkPreviews = false
        configure(&config)
        self.config = config
        clock = ManualClock()
        logs = CapturedLogs(level: config.logLevel)
    }

    /// Runs `body` against the app in-process (Hummingbird's router test client).
    func run<Value: Sendable>(_ body: @Sendable (TestSession) async throws -> Value) async throws -> Value {
        try await run(.router, body)
    }

    /// Runs `body` against the app, in-process or over a real socket.
    func run<Value: Sendable>(_ setup: TestingSetup, _ body: @Sendable (TestSession) async throws -> Value) async throws -> Value {
        var postgres: PostgresBackend?
        var address = postgresAddress
        // `WSX_TEST_BACKEND=postgres swift test` runs every in-process suite on PostgreSQL.
        if address == nil, !sqliteOnly, ProcessInfo.processInfo.environment["WSX_TEST_BACKEND"] == "postgres" {
            address = try await PostgresTestCluster.shared().migratedDatabase()
        }
        if let address {
            postgres = try await PostgresBackend.open(address: address, logger: logs.logger(), clock: clock.wallClock, sessionCount: 2)
        }
        do {
            let value = try await run(setup, postgres: postgres, address: address, body)
            await postgres?.close()
            return value
        } catch {
            await postgres?.close()
            throw error
        }
    }

    /// The embedded templates and static files, loaded once for every test server.
    private static let embeddedViews = Result { try LoadedViews(AppConfig()) }

    private func run<Value: Sendable>(_ setup: TestingSetup, postgres: PostgresBackend?, address: PostgresAddress?,
                                      _ body: @Sendable (TestSession) async throws -> Value) async throws -> Value {
        // Hundreds of servers start in one run: the embedded templates are parsed once for all.
        let views = config.templatesDirectory == nil && config.publicDirectory == nil ? try Self.embeddedViews.get() : nil
        if postgres == nil { try MigratedDatabase.shared.get().copy(into: config.dataDirectory) }
        let services = try AppServices(config: config, clock: clock.wallClock, logger: logs.logger(), postgres: postgres, views: views)
        let router = buildRouter(services)
        extraRoutes(router)
        let app = Application(router: router, server: httpServer(services, logger: logs.logger()),
                              configuration: serverConfiguration(config, logger: logs.logger()), services: services.backgroundServices,
                              onServerRunning: { channel in services.site.listening(on: channel.localAddress?.port ?? 0) },
                              logger: logs.logger())
        defer { try? FileManager.default.removeItem(atPath: config.dataDirectory) }
        return try await app.test(setup) { client in
            try await body(TestSession(client: client, services: services, clock: clock, logs: logs, postgresAddress: address))
        }
    }

    /// A PostgreSQL database to run on instead of SQLite in the data folder (`serve --database`).
    var postgresAddress: PostgresAddress?

    /// Routes only tests add (after every middleware), e.g. one that fails on purpose.
    var extraRoutes: @Sendable (Router<AppRequestContext>) -> Void = { _ in }
}

/// What a test has in hand: a client, direct access to the services (database, accounts) for
/// assertions, the clock and the logs.
struct TestSession: Sendable {
    let client: any TestClientProtocol
    let services: AppServices
    let clock: ManualClock
    let logs: CapturedLogs
    /// The PostgreSQL database the app runs on, if it does not run on SQLite.
    let postgresAddress: PostgresAddress?

    var database: AppDatabase { services.database }

    /// What an operator's command run beside this server names to reach its data: the data
    /// folder, and the database when it is PostgreSQL's.
    var storageFlags: [String] {
        ["--data-dir", services.config.dataDirectory] + (postgresAddress.map { ["--database", $0.description] } ?? [])
    }

    /// A new browser: its own cookie jar.
    func browser(acceptLanguage: String? = "en-US,en;q=0.9") -> TestBrowser {
        TestBrowser(client: client, acceptLanguage: acceptLanguage)
    }

    /// Marks the address of the account as confirmed, as following the mailed link does (the
    /// link itself is tested with mail in `AccountControlTests`).
    func confirmAddress(_ email: String) async throws {
        let key = email.lowercased()
        try await database.write { tx in
            let user = try #require(try tx.accounts.user(emailKey: key))
            try tx.accounts.confirmEmail(userId: user.id!, at: user.createdAt)
        }
    }

    /// A browser signed in as a new account.
    func signedInBrowser(email: String = "user\(UUID().uuidString.prefix(8))@example.com", nickname: String = "Tester",
                         password: String = "correct horse") async throws -> TestBrowser {
        let browser = browser()
        let response = try await browser.signUp(email: email, nickname: nickname, password: password)
        precondition(response.status == .seeOther, "sign-up failed with \(response.status): \(response.text)")
        return browser
    }
}
