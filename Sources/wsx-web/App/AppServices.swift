import Assets
import Foundation
import Mail
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkPreviews
import Logging
import NIOPosix
import Uploads
import ServiceLifecycle
import Views

/// The app's long-lived parts, built once from the configuration and handed to the router and
/// controllers explicitly (no globals).
struct AppServices: Sendable {
    let config: AppConfig
    /// This server's hold on its data folder, for its whole life: a second server, or a restore,
    /// is refused while it runs.
    let folderLock: DataFolderLock
    let database: AppDatabase
    /// Where the database reads no cache answered run, off the event loops.
    let readers: ReaderThreads
    /// What workspace homes list, kept between commits that change it.
    let homes: WorkspaceHomeReader
    /// What `/healthz` answers: free space, the writer, failed writes.
    let health: HealthCheck
    let accounts: AccountService
    let workspaces: WorkspaceService
    let members: MembershipService
    let invitations: Invitations
    let invitationLimits: InvitationLimits
    /// Where links point (`--base-url`, else http://localhost:PORT).
    let site: SiteAddress
    let channels: ChannelService
    let messages: MessageService
    let reactions: ReactionService
    let pins: PinService
    let threads: ThreadService
    let saved: SavedMessages
    let statuses: StatusService
    /// One "typing" signal per person and room every `AppConfig.typingInterval`.
    let typing: TypingThrottle
    let directRooms: DirectRooms
    let groups: GroupRooms
    let lastRooms: LastRooms
    let joinLinks: JoinLinks
    let notifySettings: NotifySettings
    let messageLists: MessageListRenderer
    let files: FileService
    let linkPreviews: LinkPreviewService
    let payments: PaymentService
    /// The built-in gateway, when it is the one in use.
    let sandbox: SandboxGateway?
    let webhooks: WebhookSender
    let sessions: SessionStore
    /// Sessions, cookies and the security log at the end of every way in.
    let signIns: SignInResponder
    /// Server administrators' work on accounts.
    let administration: AccountAdministration
    let twoStep: TwoStepService
    let twoStepCookies: TwoStepCookies
    /// Links that confirm an address by mail.
    let confirmations: EmailConfirmations
    /// The apps' sign-ins (`/v1`).
    let appSessions: AppSessions
    /// The apps' Socket.IO sessions on this node.
    let socketIOSessions: SocketIOSessions
    /// Sign in with Apple's key set, read once an hour at most.
    let apple: AppleIdentity
    let throttle: LoginThrottle
    let signups: SignupLimiter
    /// How fast each account may post, upload and search.
    let rateLimiter: AccountRateLimiter
    /// How many nodes serve the team now (1 on SQLite): per-account limits are shared among them.
    let liveNodes = LiveNodes()
    /// What `/metrics` reports.
    let metrics: ServerMetrics
    /// Mail waiting to go out, and what failed.
    let mailOutbox: MailOutbox
    /// Sends the queued mail, and writes it; nil without `--smtp-url`.
    let mailSender: MailSender?
    let mailComposer: MailComposer?
    /// Password-reset requests per address (`--reset-max-per-ip`) and per account.
    let resetRequests: AttemptLimiter
    let devices: DeviceCookie
    /// The server's own secret, for device cookies and invitation tokens.
    let serverKey: ServerKey
    let cookies: CookiePolicy
    let pages: Pages
    /// Signed-in pages kept while the database is unchanged (`RenderedPageMiddleware`).
    let renderedPages: VersionedCache<RenderedPage.Key, RenderedPage>
    let hub: RealtimeHub
    /// Web Push; nil with `--web-push off`.
    let push: PushServices?
    let events: EventLog
    let clock: WallClock
    let logger: Logger

    /// Opens the database (migrating it) and loads templates and static files, failing with a
    /// clear message when any of them is missing. With `postgres` (opened and migrated by the
    /// caller, `serve --database`), the data is there and the data folder keeps what is the
    /// node's own. `views`, when given, are templates and static files loaded already (the
    /// tests' servers share one parse of the embedded ones).
    init(config: AppConfig, clock: WallClock = .system, logger: Logger, postgres: PostgresBackend? = nil,
         views: LoadedViews? = nil) throws {
        self.config = config
        self.clock = clock
        self.logger = logger
        metrics = ServerMetrics()
        try DataFolder.prepare(config.dataDirectory)
        folderLock = try DataFolderLock.acquire(dataDirectory: config.dataDirectory)
        readers = ReaderThreads(count: AppDatabase.readerCount)
        database = if let postgres {
            AppDatabase(postgres: postgres, clock: clock, timingWritesInto: metrics.databaseWrites)
        } else {
            try AppDatabase.open(dataDirectory: config.dataDirectory, clock: clock, synchronous: config.synchronous,
                                 timingWritesInto: metrics.databaseWrites, readers: readers)
        }
        let disk = DiskSpace(dataDirectory: config.dataDirectory, minimumFreeBytes: config.minimumFreeBytes)
        health = HealthCheck(database: database, disk: disk)
        let hasher = PasswordHasher(cost: config.bcryptCost)
        accounts = AccountService(database: database, hasher: hasher, clock: clock, signupCoins: config.signupCoins)
        workspaces = WorkspaceService(database: database, clock: clock, price: config.workspacePrice)
        members = MembershipService(database: database, clock: clock, workspaces: workspaces)
        let secrets: SecretKeeper = postgres.map { .database($0) } ?? .folder(config.dataDirectory)
        serverKey = try ServerKey(keeper: secrets)
        invitations = Invitations(database: database, clock: clock, key: serverKey)
        invitationLimits = InvitationLimits(perHour: config.invitationsPerHour, clock: clock, postgres: postgres)
        site = SiteAddress(configured: config.baseURL, port: config.port)
        channels = ChannelService(database: database, clock: clock)
        sessions = SessionStore(database: database, clock: clock)
        throttle = LoginThrottle(limits: config.loginLimits, clock: clock, postgres: postgres)
        appSessions = AppSessions(database: database, clock: clock, settings: config.api)
        socketIOSessions = SocketIOSessions(settings: .init(unauthenticated: config.api.socketIOUnauthenticated))
        apple = AppleIdentity(clientIds: config.api.appleClientIds, keysLocation: config.api.appleKeys, clock: clock)
        signups = SignupLimiter(rule: config.signupLimit, clock: clock, postgres: postgres)
        devices = DeviceCookie(key: serverKey)
        cookies = CookiePolicy(alwaysSecure: config.secureCookies, trustProxy: config.trustProxy)
        lastRooms = LastRooms(database: database)
        joinLinks = JoinLinks(database: database, clock: clock, key: serverKey)
        signIns = SignInResponder(database: database, sessions: sessions, devices: devices, cookies: cookies,
                                  lastRooms: lastRooms, joinLinks: joinLinks, clock: clock)
        administration = AccountAdministration(database: database, clock: clock)
        twoStep = TwoStepService(database: database, clock: clock)
        twoStepCookies = TwoStepCookies(key: serverKey, clock: clock)
        events = EventLog(database: database, clock: clock)
        // Events a command wrote while no server ran: in the stream before the hub starts
        // (tabs that were open before the restart replay them when they reconnect).
        try database.relayOutsideEvents()
        var realtime = config.realtime
        realtime.sharesWithOtherNodes = postgres != nil
        hub = try RealtimeHub(database: database, outbox: database.outbox, settings: realtime, logger: logger)
        if config.webPush.isOn {
            let store = PushStore(database: database, clock: clock)
            let key = try VAPIDKey(keeper: secrets, subject: config.webPush.subject)
            let doorbell = Doorbell()
            let fetcher = SafeFetcher(allowedHosts: Set(config.webPush.serviceHosts), timeout: .seconds(10),
                                      eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            push = PushServices(key: key, store: store,
                                notifier: PushNotifier(store: store, hub: hub, events: database.outbox.listen(), doorbell: doorbell,
                                                       logger: logger),
                                sender: PushSender(store: store, key: key, fetcher: fetcher, clock: clock, logger: logger,
                                                   doorbell: doorbell))
        } else {
            push = nil
        }
        let (renderer, assets) = try views.map { ($0.renderer, $0.assets) } ?? LoadedViews(config).pair
        let hub = self.hub
        renderedPages = VersionedCache("rendered pages", of: database, clock: clock, capacity: 256)
        let markers = ReadMarkers(database: database, clock: clock)
        homes = WorkspaceHomeReader(database: database, clock: clock, markers: markers)
        let threadMarkers = ThreadMarkers(database: database, clock: clock)
        threads = ThreadService(database: database, markers: threadMarkers)
        pages = Pages(renderer: renderer, assets: assets,
                      sidebar: SidebarSource(database: database, clock: clock, markers: markers, threadMarkers: threadMarkers),
                      lastEventId: { hub.latestEventId }, testPayments: config.payments.mode == .sandbox,
                      webPush: config.webPush.isOn)
        let lists = MessageListRenderer(pages: pages)
        messageLists = lists
        messages = MessageService(database: database, clock: clock, markers: markers,
                                  online: { roomId in await hub.onlineMembers(ofRoom: roomId) },
                                  fragment: { lists.neutral($0, workspaceId: $1) },
                                  threadFragment: { lists.threadLine($0, workspaceId: $1) },
                                  drafts: DraftFragments(draw: { lists.unkeptNeutral($0, workspaceId: $1) },
                                                         keep: { lists.keep($0, for: $1) }))
        reactions = ReactionService(database: database, clock: clock,
                                    catalog: try EmojiCatalog.embedded(EmbeddedFiles.files(in: "Public")))
        pins = PinService(database: database, clock: clock)
        saved = SavedMessages(database: database, clock: clock)
        typing = TypingThrottle(interval: config.typingInterval)
        statuses = StatusService(database: database, clock: clock, catalog: reactions.catalog)
        directRooms = DirectRooms(database: database, clock: clock)
        groups = GroupRooms(database: database, clock: clock)
        notifySettings = NotifySettings(database: database)
        // Never locked: nodes on one database share the files folder (the lock is the data folder's).
        try DataFolder.prepare(config.filesFolder)
        let receiver = UploadReceiver(policy: config.uploads, store: try FileStore(dataDirectory: config.filesFolder),
                                      sniffer: try ContentSniffer())
        rateLimiter = AccountRateLimiter(limits: config.rateLimits, clock: clock, nodes: liveNodes)
        mailOutbox = MailOutbox(database: database, clock: clock)
        if let mail = config.mail {
            mailSender = MailSender(outbox: mailOutbox, client: SMTPClient(settings: mail.smtp), sender: mail.from.address,
                                    retryDelay: mail.retryDelay, clock: clock, logger: logger,
                                    failedAttempts: metrics.mailAttemptsFailed)
            mailComposer = MailComposer(from: mail.from, site: site, clock: clock)
        } else {
            mailSender = nil
            mailComposer = nil
        }
        confirmations = EmailConfirmations(database: database, clock: clock,
                                           mail: MailRoutes(outbox: mailOutbox, composer: mailComposer, sender: mailSender))
        resetRequests = AttemptLimiter(clock: clock, postgres: postgres)
        let filesDisk = config.filesDirectory == nil ? disk : DiskSpace(dataDirectory: config.filesFolder, minimumFreeBytes: config.minimumFreeBytes)
        files = FileService(database: database, receiver: receiver, disk: filesDisk,
                            thumbnailer: Thumbnailer(library: try ImageLibrary(), policy: config.uploads), clock: clock,
                            logger: logger, rateLimiter: rateLimiter)
        linkPreviews = LinkPreviewService(
            database: database,
            fetcher: config.linkPreviews ? SafeFetcher(allowedHosts: Set(config.linkPreviewHosts), timeout: config.linkPreviewTimeout,
                                                       eventLoopGroup: MultiThreadedEventLoopGroup.singleton) : nil,
            files: files, renderer: renderer, clock: clock, logger: logger)
        webhooks = WebhookSender(logger: logger)
        let gateway: (any PaymentGateway)?
        switch config.payments.mode {
        case .off:
            sandbox = nil
            gateway = nil
        case .sandbox:
            let sandbox = SandboxGateway(database: database,
                                         secret: try SandboxGateway.secret(configured: config.payments.sandboxSecret,
                                                                           keeper: secrets),
                                         clock: clock, confirmDelay: config.payments.sandboxConfirmDelay, webhooks: webhooks,
                                         logger: logger)
            self.sandbox = sandbox
            gateway = sandbox
        case .portone:
            guard let api = URL(string: config.payments.portOneAPI) else { throw StartupError.badPortOneURL }
            sandbox = nil
            gateway = PortOneGateway(apiBase: api, key: config.payments.portOneKey, secret: config.payments.portOneSecret,
                                     merchantCode: config.payments.portOneMerchantCode, pg: config.payments.portOnePG,
                                     tokens: PortOneTokens(), session: URLSession(configuration: .ephemeral), clock: clock,
                                     logger: logger)
        }
        payments = PaymentService(database: database, gateway: gateway, packs: config.payments.packs,
                                  currency: config.payments.currency, clock: clock, logger: logger)
    }

    /// The background services that run beside the HTTP server.
    var backgroundServices: [any Service] {
        var services: [any Service] = [readers, hub, Housekeeper(database: database, events: events, sessions: sessions, files: files, retention: config.eventRetention,
                                                        interval: config.housekeepingInterval, logger: logger)]
        let (database, hub, mailSender) = (self.database, self.hub, self.mailSender)
        let logger = self.logger
        services.append(OutsideWritesListener(dataDirectory: config.dataDirectory, logger: logger) {
            database.noteOutsideWrites()
            // Memberships first: a relayed event may be for a room the command made.
            await hub.reloadMemberships(from: database)
            do {
                try database.relayOutsideEvents()
            } catch {
                logger.error("cannot relay the events another command wrote", metadata: ["error": "\(error)"])
            }
            mailSender?.wake()
        })
        if let postgres = database.postgres {
            services.append(PostgresNodeSignals(hub: hub, connector: postgres.connector, nodes: liveNodes))
        }
        if let push {
            services.append(push.notifier)
            services.append(push.sender)
        }
        if let mailSender, let mailComposer, let mail = config.mail {
            services.append(mailSender)
            services.append(DigestMailer(database: database, hub: hub, composer: mailComposer, sender: mailSender, serverKey: serverKey,
                                         after: mail.digestAfter, clock: clock, logger: logger))
        }
        return services
    }
}

/// Configuration that cannot work, found at start-up.
enum StartupError: Error, CustomStringConvertible {
    case badPortOneURL

    var description: String {
        switch self {
        case .badPortOneURL: "--portone-api is not a URL"
        }
    }
}
