import Assets
import Foundation
import Logging
import Views

/// The app's long-lived parts, built once from the configuration and handed to the router and
/// controllers explicitly (no globals).
struct AppServices: Sendable {
    let config: AppConfig
    let database: AppDatabase
    let accounts: AccountService
    let sessions: SessionStore
    let throttle: LoginThrottle
    let cookies: CookiePolicy
    let pages: Pages
    let clock: WallClock

    /// Opens the database (migrating it) and loads templates and static files, failing with a
    /// clear message when any of them is missing.
    init(config: AppConfig, clock: WallClock = .system) throws {
        self.config = config
        self.clock = clock
        database = try AppDatabase.open(dataDirectory: config.dataDirectory)
        let hasher = PasswordHasher(cost: config.bcryptCost)
        accounts = AccountService(database: database, hasher: hasher, clock: clock)
        sessions = SessionStore(database: database, clock: clock)
        throttle = LoginThrottle(limits: config.loginLimits, clock: clock)
        cookies = CookiePolicy(alwaysSecure: config.secureCookies, trustProxy: config.trustProxy)
        let renderer = try PageRenderer(source: config.templatesDirectory.map { .directory($0) }
            ?? .files(EmbeddedFiles.files(in: "Templates")))
        let assets = try StaticAssets(source: config.publicDirectory.map { .directory($0) }
            ?? .files(EmbeddedFiles.files(in: "Public")))
        pages = Pages(renderer: renderer, assets: assets)
    }
}
