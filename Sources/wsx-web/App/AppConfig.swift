import Foundation
import Logging
import Uploads

/// Everything `wsx-web serve` can be told, resolved from flags, `WSX_*` environment variables and
/// defaults (in that order). Tests build one directly.
struct AppConfig: Sendable {
    var host = "127.0.0.1"
    var port = 8080
    /// Folder of the SQLite database, the node's lock and secrets, and (unless `filesDirectory`
    /// says otherwise) the uploaded files.
    var dataDirectory = "./data"
    /// Folder of uploaded files and their thumbnails (`--files-dir`): on storage every node
    /// shares when several serve one PostgreSQL database. Nil: the data folder.
    var filesDirectory: String?

    /// Where uploaded files live.
    var filesFolder: String { filesDirectory ?? dataDirectory }
    /// Development: read templates from this folder (re-read on change) instead of the embedded copy.
    var templatesDirectory: String?
    /// Development: serve static files from this folder instead of the embedded copy.
    var publicDirectory: String?
    /// Mark cookies `Secure` (set when served over HTTPS).
    var secureCookies = false
    /// Trust `X-Forwarded-For` / `X-Forwarded-Proto` from a reverse proxy in front of wsx.
    var trustProxy = false
    /// The address people reach wsx at, for links in pages and printed by the CLI; when nil,
    /// pages use the address the browser asked for (its Host header).
    var baseURL: String?
    /// bcrypt work factor (4…31).
    var bcryptCost: UInt8 = 12
    var loginLimits = LoginThrottle.Limits.standard
    /// Who may sign up on the form (`--signup`, `--signup-domains`).
    var signup = SignupPolicy()
    /// Who must use two-step sign-in (`--require-2fa`).
    var requireTwoStep = TwoStepRequirement.off
    /// Sign-ups per address per hour (`--signup-max-per-ip`).
    var signupLimit = SignupLimiter.standard
    /// How fast one account may post, upload and search (`--post-burst`, `--posts-per-second`, …).
    var rateLimits = RateLimits()
    /// New invitations one owner, and one workspace, may make per hour (`--invitations-per-hour`; 0: no limit).
    var invitationsPerHour = 50
    /// Coins a new account starts with (`--signup-coins`).
    var signupCoins = 10
    /// Coins a new workspace costs (`--workspace-price`).
    var workspacePrice = 10
    /// How often one person's "typing" signal in one room reaches the others at most.
    var typingInterval: Duration = .seconds(3)
    var logLevel: Logger.Level = .info
    /// Mail (`--smtp-url`, …); nil: no mail is sent, invitation links are shown to the inviter
    /// and password resets are the operator's to issue.
    var mail: MailSettings?
    /// Password-reset requests one address may make per hour (`--reset-max-per-ip`; 0: no limit).
    var resetLimitPerAddress = 5
    /// Log lines as text for people, or JSON for log shippers (`--log-format`).
    var logFormat = LogFormat.text
    /// The bearer token a scraper shows for `/metrics` (`--metrics-token`); without one, only
    /// loopback clients that did not come through a proxy may read it.
    var metricsToken: String?
    /// What an acknowledged write survives (`--sync`): `normal`, a crashed process; `full`, a
    /// power loss too.
    var synchronous = DatabaseSync.normal
    /// Free space the data folder's disk keeps (`--min-free-space`): below it `/healthz` answers
    /// 503 and uploads are refused.
    var minimumFreeBytes = 64 << 20
    /// How long events stay in the outbox for reconnecting clients to replay.
    var eventRetention: TimeInterval = 7 * 24 * 60 * 60
    var realtime = RealtimeHub.Settings()
    /// Time, rate and count limits of connections (`--request-head-timeout`, `--max-connections`, …).
    var connections = ConnectionLimits()
    /// Upload limits (`--max-files`, `--max-file-size`, `--max-image-pixels`).
    var uploads = UploadPolicy()
    /// Link preview cards under messages (`--link-previews off` turns them off), and the hosts
    /// whose private addresses previews may still fetch (`--link-preview-hosts`).
    var linkPreviews = true
    var linkPreviewHosts: [String] = []
    /// Web Push (`PushOptions`).
    var webPush = WebPushSettings()
    /// The apps' API (`APIOptions`): off by default.
    var api = APISettings()
    /// How long a preview's page fetch (redirects included) may take, and its picture's again.
    var linkPreviewTimeout: Duration = .seconds(5)
    var payments = PaymentSettings()
    /// How often expired events and sessions are swept.
    var housekeepingInterval: Duration = .seconds(3600)
}

/// How log lines are written.
enum LogFormat: String, Sendable {
    case text, json
}

/// SQLite's `synchronous` setting for the server's database.
enum DatabaseSync: String, Sendable {
    /// WAL with `synchronous = NORMAL`: a commit survives the process crashing, not the machine
    /// losing power (the last transactions may roll back; the database stays whole).
    case normal
    /// `synchronous = FULL`: every commit is on disk before it is acknowledged.
    case full

    /// The statement that sets it on a connection.
    var pragma: String {
        switch self {
        case .normal: "PRAGMA synchronous = NORMAL"
        case .full: "PRAGMA synchronous = FULL"
        }
    }
}

/// How coins are sold (`--payments`, `--coin-packs`, …).
struct PaymentSettings: Sendable {
    /// Whether coins are sold, and through what.
    enum Mode: String, Sendable {
        /// Not sold: the store shows the balance; operators grant coins (`wsx-web coins grant`).
        case off
        /// The built-in test gateway: anyone can "buy" coins without paying. Testing only.
        case sandbox
        /// PortOne (iamport) V1.
        case portone
    }

    var mode = Mode.off
    var packs = CoinPack.standard
    var currency = "KRW"
    /// Sandbox: how long a paid payment reads as `ready` before `paid`.
    var sandboxConfirmDelay: TimeInterval = 1
    /// Sandbox: the webhook's HMAC secret; made and kept in the data folder when nil.
    var sandboxSecret: String?
    var portOneAPI = "https://api.iamport.kr"
    var portOneKey = ""
    var portOneSecret = ""
    var portOneMerchantCode = ""
    var portOnePG = "html5_inicis"
}
