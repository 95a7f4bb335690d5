import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Uploads

/// `wsx-web serve`: runs the server until SIGINT/SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the web server.")

    @Option(help: "Address to listen on (env WSX_HOST, default 127.0.0.1; 0.0.0.0 for every interface).")
    var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (env WSX_PORT, default 8080).")
    var port: Int?
    @OptionGroup var data: DataDirectoryOption
    @OptionGroup var databaseOption: DatabaseOption
    @OptionGroup var connections: ConnectionOptions
    @OptionGroup var signIns: SignInOptions
    @OptionGroup var rateLimits: RateLimitOptions
    @OptionGroup var mail: MailOptions
    @OptionGroup var accountOptions: AccountOptions
    @OptionGroup var payments: PaymentOptions
    @OptionGroup var push: PushOptions
    @OptionGroup var api: APIOptions
    @Option(name: .customLong("files-dir"), help: "Folder of uploaded files and thumbnails, shared by every node on one --database (env WSX_FILES_DIR, default the data folder).")
    var filesDirectory: String?
    @Option(name: .customLong("templates-dir"), help: "Development: read templates from this folder, re-read on change (env WSX_TEMPLATES_DIR).")
    var templatesDirectory: String?
    @Option(name: .customLong("public-dir"), help: "Development: serve static files from this folder (env WSX_PUBLIC_DIR).")
    var publicDirectory: String?
    @Flag(name: .customLong("secure-cookies"), help: "Mark cookies Secure, for HTTPS (env WSX_SECURE_COOKIES).")
    var secureCookies = false
    @Flag(name: .customLong("trust-proxy"), help: "Trust X-Forwarded-For/-Proto from a reverse proxy (env WSX_TRUST_PROXY).")
    var trustProxy = false
    @Option(name: .customLong("base-url"), help: "Public address of the site, for printed links (env WSX_BASE_URL).")
    var baseURL: String?
    @Option(name: .customLong("bcrypt-cost"), help: "bcrypt work factor 4-31 (env WSX_BCRYPT_COST, default 12).")
    var bcryptCost: Int?
    @Option(name: .customLong("event-retention"), help: "How long live events are kept for reconnecting clients, e.g. 7d, 36h, 90m, 600s (env WSX_EVENT_RETENTION, default 7d).")
    var eventRetention: String?
    @Option(name: .customLong("sse-heartbeat"), help: "Seconds between keep-alive comments on event streams (env WSX_SSE_HEARTBEAT, default 15).")
    var sseHeartbeat: Double?
    @Option(name: .customLong("sse-write-delay"), help: "Milliseconds a stream's events may wait, while more keep coming, to share one write (env WSX_SSE_WRITE_DELAY, default 10).")
    var sseWriteDelay: Int?
    @Option(name: .customLong("sse-buffer"), help: "Unsent bytes an event stream may fall behind before it is disconnected, e.g. 1MB, 256KB (env WSX_SSE_BUFFER, default 1MB).")
    var sseBuffer: String?
    @Option(name: .customLong("signup-coins"), help: "Coins a new account starts with (env WSX_SIGNUP_COINS, default 10).")
    var signupCoins: Int?
    @Option(name: .customLong("workspace-price"), help: "Coins a new workspace costs (env WSX_WORKSPACE_PRICE, default 10).")
    var workspacePrice: Int?
    @Option(name: .customLong("max-files"), help: "Files per message (env WSX_MAX_FILES, default 5).")
    var maxFiles: Int?
    @Option(name: .customLong("max-file-size"), help: "Largest upload, e.g. 5MB, 500KB, 1GB (env WSX_MAX_FILE_SIZE, default 100MB).")
    var maxFileSize: String?
    @Option(name: .customLong("max-image-pixels"), help: "Largest image in pixels, refused before decoding (env WSX_MAX_IMAGE_PIXELS, default 50000000).")
    var maxImagePixels: Int?
    @Option(name: .customLong("image-memory"), help: "Memory images being decoded at once may take together, e.g. 512MB; the rest wait their turn (env WSX_IMAGE_MEMORY, default 512MB).")
    var imageMemory: String?
    @Option(name: .customLong("link-previews"), help: "Preview cards under messages' first link: on or off (env WSX_LINK_PREVIEWS, default on).")
    var linkPreviews: String?
    @Option(name: .customLong("link-preview-hosts"), help: "Comma-separated host names whose private or loopback addresses previews may fetch, e.g. an intranet wiki (env WSX_LINK_PREVIEW_HOSTS, default none).")
    var linkPreviewHosts: String?
    @Option(name: .customLong("link-preview-timeout"), help: "Seconds a link preview's fetches may take in all, page and picture each (env WSX_LINK_PREVIEW_TIMEOUT, default 5).")
    var linkPreviewTimeout: Double?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env WSX_LOG_LEVEL, default info).")
    var logLevel: String?
    @Option(name: .customLong("log-format"), help: "text, or json for log shippers: one object per line, with the request's id (env WSX_LOG_FORMAT, default text).")
    var logFormat: String?
    @Option(name: .customLong("metrics-token"), help: "Bearer token that lets a scraper read /metrics from anywhere; without it only loopback clients not behind a proxy may (env WSX_METRICS_TOKEN).")
    var metricsToken: String?
    @Option(name: .customLong("sync"), help: "normal: an acknowledged write survives a crash of the server; full: a power loss too, at some cost in write speed (env WSX_SYNC, default normal).")
    var sync: String?
    @Option(name: .customLong("min-free-space"), help: "Free space the data folder's disk keeps: below it /healthz answers 503 and uploads are refused, e.g. 64MB, 1GB (env WSX_MIN_FREE_SPACE, default 64MB).")
    var minFreeSpace: String?

    /// The configuration these flags, the environment and the defaults add up to.
    func resolvedConfig(environment env: EnvironmentDefaults = EnvironmentDefaults()) throws -> AppConfig {
        var config = AppConfig()
        config.host = host ?? env.string("WSX_HOST") ?? config.host
        config.port = try port ?? env.int("WSX_PORT") ?? config.port
        config.dataDirectory = data.dataDirectory ?? env.string("WSX_DATA_DIR") ?? config.dataDirectory
        config.filesDirectory = filesDirectory ?? env.string("WSX_FILES_DIR")
        config.templatesDirectory = templatesDirectory ?? env.string("WSX_TEMPLATES_DIR")
        config.publicDirectory = publicDirectory ?? env.string("WSX_PUBLIC_DIR")
        config.secureCookies = try secureCookies || (env.bool("WSX_SECURE_COOKIES") ?? false)
        config.trustProxy = try trustProxy || (env.bool("WSX_TRUST_PROXY") ?? false)
        config.baseURL = (baseURL ?? env.string("WSX_BASE_URL")).map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        let cost = try bcryptCost ?? env.int("WSX_BCRYPT_COST") ?? Int(config.bcryptCost)
        guard (4...31).contains(cost) else { throw ValidationError("--bcrypt-cost must be between 4 and 31") }
        config.bcryptCost = UInt8(cost)
        if let text = eventRetention ?? env.string("WSX_EVENT_RETENTION") {
            guard let seconds = DurationText.seconds(text), seconds > 0 else {
                throw ValidationError("--event-retention: \(text) is not a duration like 7d, 36h, 90m or 600s")
            }
            config.eventRetention = seconds
        }
        if let heartbeat = try sseHeartbeat ?? env.string("WSX_SSE_HEARTBEAT").map({ text in
            guard let value = Double(text) else { throw ValidationError("WSX_SSE_HEARTBEAT=\(text) is not a number") }
            return value
        }) {
            guard heartbeat > 0 else { throw ValidationError("--sse-heartbeat must be positive") }
            config.realtime.heartbeat = .milliseconds(Int(heartbeat * 1000))
        }
        if let delay = try sseWriteDelay ?? env.int("WSX_SSE_WRITE_DELAY") {
            guard (0...1000).contains(delay) else { throw ValidationError("--sse-write-delay must be between 0 and 1000 milliseconds") }
            config.realtime.writeDelay = .milliseconds(delay)
        }
        if let text = sseBuffer ?? env.string("WSX_SSE_BUFFER") {
            guard let bytes = ByteSizeText.bytes(text), bytes >= 16 * 1024 else {
                throw ValidationError("--sse-buffer: \(text) is not a size of at least 16KB, like 1MB or 256KB")
            }
            config.realtime.bufferBytes = bytes
        }
        try connections.apply(to: &config, environment: env)
        try signIns.apply(to: &config, environment: env)
        try mail.apply(to: &config, environment: env)
        try push.apply(to: &config, mailFrom: mail.mailFrom, environment: env)
        try api.apply(to: &config, environment: env)
        try accountOptions.apply(to: &config, environment: env)
        config.signupCoins = try signupCoins ?? env.int("WSX_SIGNUP_COINS") ?? config.signupCoins
        config.workspacePrice = try workspacePrice ?? env.int("WSX_WORKSPACE_PRICE") ?? config.workspacePrice
        guard config.signupCoins >= 0, config.workspacePrice >= 0 else {
            throw ValidationError("--signup-coins and --workspace-price cannot be negative")
        }
        config.uploads.maximumFiles = try maxFiles ?? env.int("WSX_MAX_FILES") ?? config.uploads.maximumFiles
        if let text = maxFileSize ?? env.string("WSX_MAX_FILE_SIZE") {
            guard let bytes = ByteSizeText.bytes(text), bytes > 0 else {
                throw ValidationError("--max-file-size: \(text) is not a size like 5MB, 500KB or 1048576")
            }
            config.uploads.maximumFileBytes = bytes
        }
        config.uploads.maximumPixels = try maxImagePixels ?? env.int("WSX_MAX_IMAGE_PIXELS") ?? config.uploads.maximumPixels
        // One image may take what an 8-bit RGBA image at the pixel limit takes.
        config.uploads.maximumDecodeBytes = config.uploads.maximumPixels * 4
        if let text = imageMemory ?? env.string("WSX_IMAGE_MEMORY") {
            guard let bytes = ByteSizeText.bytes(text), bytes >= 16 << 20 else {
                throw ValidationError("--image-memory: \(text) is not a size of at least 16MB, like 512MB or 1GB")
            }
            config.uploads.decodeMemory = bytes
        }
        guard config.uploads.maximumFiles > 0, config.uploads.maximumPixels > 0 else {
            throw ValidationError("--max-files and --max-image-pixels must be positive")
        }
        try rateLimits.apply(to: &config, environment: env)
        switch linkPreviews ?? env.string("WSX_LINK_PREVIEWS") ?? "on" {
        case "on": config.linkPreviews = true
        case "off": config.linkPreviews = false
        case let other: throw ValidationError("--link-previews: \(other) is not on or off")
        }
        config.linkPreviewHosts = (linkPreviewHosts ?? env.string("WSX_LINK_PREVIEW_HOSTS") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if let seconds = try linkPreviewTimeout ?? env.string("WSX_LINK_PREVIEW_TIMEOUT").map({ text in
            guard let value = Double(text) else { throw ValidationError("WSX_LINK_PREVIEW_TIMEOUT=\(text) is not a number") }
            return value
        }) {
            guard seconds > 0 else { throw ValidationError("--link-preview-timeout must be positive") }
            config.linkPreviewTimeout = .milliseconds(Int(seconds * 1000))
        }
        try payments.apply(to: &config, environment: env)
        let level = logLevel ?? env.string("WSX_LOG_LEVEL") ?? "info"
        guard let parsed = Logger.Level(rawValue: level) else { throw ValidationError("unknown log level \(level)") }
        config.logLevel = parsed
        let format = logFormat ?? env.string("WSX_LOG_FORMAT") ?? "text"
        guard let parsedFormat = LogFormat(rawValue: format) else { throw ValidationError("--log-format: \(format) is not text or json") }
        config.logFormat = parsedFormat
        config.metricsToken = (metricsToken ?? env.string("WSX_METRICS_TOKEN")).flatMap { $0.isEmpty ? nil : $0 }
        if let token = config.metricsToken, token.utf8.count < 16 {
            throw ValidationError("--metrics-token must be at least 16 characters")
        }
        let syncText = sync ?? env.string("WSX_SYNC") ?? "normal"
        guard let parsedSync = DatabaseSync(rawValue: syncText) else { throw ValidationError("--sync: \(syncText) is not normal or full") }
        config.synchronous = parsedSync
        if let text = minFreeSpace ?? env.string("WSX_MIN_FREE_SPACE") {
            guard let bytes = ByteSizeText.bytes(text), bytes >= 0 else {
                throw ValidationError("--min-free-space: \(text) is not a size like 64MB or 1GB")
            }
            config.minimumFreeBytes = bytes
        }
        return config
    }

    func run() async throws {
        let config = try resolvedConfig()
        let host = config.host
        var logger = makeLogger(config)
        for notice in payments.notices() { logger.warning("\(notice)") }
        if config.payments.mode == .sandbox {
            logger.warning("payments run in the sandbox: anyone can buy coins without paying. For real payments use --payments portone; to sell none, --payments off")
        }
        logger.notice("\(config.signup.summary)")
        if config.baseURL == nil {
            logger.warning("no --base-url: links the server shows (invitations) start with http://localhost:\(config.port) and work only on this machine; set --base-url to the address people reach it at")
        }
        HeapTrimming.apply()
        if !TasksOnEventLoops.install() {
            logger.notice("route handlers run on Swift's global pool: this runtime has no hook for running them on the event loops")
        }
        let descriptors = DescriptorTable.prepare()
        logger.info("open files", metadata: ["limit": "\(descriptors.limit)", "was": "\(descriptors.previousLimit)",
                                             "table": "\(descriptors.reserved)"])
        let cap = config.connections.connections(forDescriptorLimit: descriptors.limit)
        logger.info("connections", metadata: [
            "max": "\(cap)", "per_address": config.trustProxy ? "off (behind a proxy)" : "\(config.connections.connectionsPerAddress(cap: cap))",
            "event_streams_per_account": "\(config.realtime.maxStreamsPerAccount)"])
        if descriptors.limit < 4096 {
            logger.warning("the open-file limit allows only about \(descriptors.limit) connections, event streams included; raise the hard limit (ulimit -Hn, systemd LimitNOFILE=)")
        }
        // A missing template or folder throws here; ArgumentParser prints its description
        // ("template login.mustache is missing") and exits non-zero.
        let format = config.logFormat
        // On PostgreSQL the schema is brought up to date (under its advisory lock) before the
        // node serves; the address is logged without its password.
        var postgres: PostgresBackend?
        if let address = try databaseOption.address() {
            logger.notice("database: PostgreSQL at \(address)")
            postgres = try await PostgresBackend.open(address: address, logger: logger)
        }
        let app = try buildApplication(config: config, postgres: postgres) { port in
            // One line on stdout that scripts and tests wait for, whatever the log level; with
            // `--log-format json` a JSON object like every other line.
            let text = "wsx-web listening on http://\(host):\(port)"
            switch format {
            case .text: print(text)
            case .json:
                JSONLogHandler.line(level: .notice, message: text, label: "wsx-web", source: "wsx_web",
                                    metadata: ["address": "http://\(host):\(port)"]).map(JSONLogHandler.standardOutput)
            }
            fflush(nil)
        }
        try await app.runService()
    }
}
