import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import SlackFormat
import Uploads

/// Builds the whole server from its configuration; `serve` runs it, tests drive it in-process.
func buildApplication(config: AppConfig, clock: WallClock = .system, postgres: PostgresBackend? = nil,
                      onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
    throws -> some ApplicationProtocol {
    let logger = makeLogger(config)
    let services = try AppServices(config: config, clock: clock, logger: logger, postgres: postgres)
    let router = buildRouter(services)
    return Application(
        router: router,
        server: httpServer(services, logger: logger),
        configuration: serverConfiguration(config, logger: logger),
        services: services.backgroundServices,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? config.port
            await services.webhooks.listening(on: port)
            services.site.listening(on: port)
            await onServerRunning(port)
        },
        logger: logger
    )
}

/// The server's logger: text lines for people, or JSON lines (`--log-format json`).
func makeLogger(_ config: AppConfig) -> Logger {
    var logger = switch config.logFormat {
    case .text: Logger(label: "wsx-web")
    case .json: Logger(label: "wsx-web") { JSONLogHandler(label: $0) }
    }
    logger.logLevel = config.logLevel
    return logger
}

/// The listener: its address, a deep accept backlog (thousands of event streams reconnect at
/// once after a restart) and the connection cap (`ConnectionCap`).
func serverConfiguration(_ config: AppConfig, logger: Logger) -> ApplicationConfiguration {
    let cap = config.connections.connections(forDescriptorLimit: DescriptorTable.openFileLimit())
    return ApplicationConfiguration(address: .hostname(config.host, port: config.port), serverName: "wsx", backlog: 4096,
                                    availableConnectionsDelegate: ConnectionCap(maximum: cap, logger: logger))
}

/// HTTP/1.1 with wsx's connection guards and the event-stream handler in every connection's
/// pipeline, in front of the router, and the apps' WebSocket upgrade (`GuardedHTTP1Channel`).
func httpServer(_ services: AppServices, logger: Logger) -> HTTPServerBuilder {
    let config = services.config
    let dependencies = EventStreamHandler.Dependencies(hub: services.hub, log: services.events, readers: services.readers, sessions: services.sessions,
                                                       settings: config.realtime,
                                                       flushers: StreamFlushers(delay: config.realtime.writeDelay),
                                                       metrics: services.metrics, logger: logger)
    let cap = config.connections.connections(forDescriptorLimit: DescriptorTable.openFileLimit())
    // Behind a trusted proxy every connection comes from the proxy: no per-address cap.
    let addresses = config.trustProxy ? nil : AddressCounts(limit: config.connections.connectionsPerAddress(cap: cap))
    var limits = config.connections
    // The largest body a route accepts, and what a refusal reads on so the browser sees it.
    limits.maximumBodyBytes = config.uploads.maximumRequestBytes + UploadReceiver.drainAllowance
    let connectionLimits = limits
    // The apps' Socket.IO sessions may upgrade to a WebSocket while the API is on.
    let socketIO = config.api.isOn ? SocketIOController(services) : nil
    return HTTPServerBuilder { responder in
        GuardedHTTP1Channel(responder: responder, limits: connectionLimits, addresses: addresses, streams: dependencies,
                            socketIO: socketIO, logger: logger)
    }
}

/// The routes, in the order middleware applies: probes and static files see only the outer
/// layers; pages also get the session, error pages and the CSRF check.
func buildRouter(_ services: AppServices) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestLogMiddleware(.info, metrics: services.metrics, trustProxy: services.config.trustProxy))
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: LastResortMiddleware())

    let home = HomeController(health: services.health, lastRooms: services.lastRooms)
    home.addProbeRoutes(to: router)
    MetricsController(metrics: services.metrics, hub: services.hub, database: services.database, events: services.events,
                      mail: services.mailOutbox, token: services.config.metricsToken).addRoutes(to: router)
    StaticController(assets: services.pages.assets).addRoutes(to: router)
    if services.config.api.isOn { addAPIRoutes(to: router, services) }

    router.add(middleware: SessionMiddleware(sessions: services.sessions, cookies: services.cookies,
                                             trustProxy: services.config.trustProxy))
    router.add(middleware: ErrorPageMiddleware(pages: services.pages, health: services.health))
    let webhook = Paths.paymentWebhook()
    router.add(middleware: CSRFMiddleware(isExempt: {
        $0 == webhook || Paths.unsubscribe.matches($0) || Paths.incomingWebhook.matches($0)
    }, multipartPaths: { path in
        Paths.multipart.contains { $0.matches(path) }
    }))
    router.add(middleware: RenderedPageMiddleware(pages: services.renderedPages, lastRooms: services.lastRooms,
                                                   sessions: services.sessions.keptRegion))

    home.addRoutes(to: router)
    EventsController().addRoutes(to: router)
    let catalog = services.reactions.catalog
    IncomingWebhookController(webhooks: services.incomingWebhooks,
                              mrkdwn: SlackToMarkdown(person: { _ in nil }, channel: { _ in nil },
                                                      emoji: { catalog.entry(forShortcode: $0)?.emoji })).addRoutes(to: router)
    let joinLinks = services.joinLinks
    AuthController(accounts: services.accounts, sessions: services.sessions, signIns: services.signIns, throttle: services.throttle,
                   signups: services.signups, policy: services.config.signup, joinLinks: joinLinks,
                   confirmations: services.confirmations, twoStep: services.twoStepCookies, cookies: services.cookies,
                   pages: services.pages).addRoutes(to: router)
    LanguageController(accounts: services.accounts, cookies: services.cookies).addRoutes(to: router)
    if services.payments.isEnabled {
        PaymentWebhookController(payments: services.payments).addRoutes(to: router)
    }
    InviteController(invitations: services.invitations, accounts: services.accounts, signIns: services.signIns,
                     cookies: services.cookies, pages: services.pages).addRoutes(to: router)
    PasswordResetController(accounts: services.accounts, cookies: services.cookies, pages: services.pages)
        .addRoutes(to: router)
    let mail = MailRoutes(outbox: services.mailOutbox, composer: services.mailComposer, sender: services.mailSender)
    ResetRequestController(accounts: services.accounts, mail: mail, limiter: services.resetRequests,
                           perAddress: services.config.resetLimitPerAddress, pages: services.pages).addRoutes(to: router)
    UnsubscribeController(accounts: services.accounts, serverKey: services.serverKey, cookies: services.cookies,
                          pages: services.pages).addRoutes(to: router)
    let emailConfirmation = EmailConfirmationController(confirmations: services.confirmations, cookies: services.cookies,
                                                        pages: services.pages)
    emailConfirmation.addRoutes(to: router)
    TwoStepLoginController(accounts: services.accounts, twoStep: services.twoStep, twoStepCookies: services.twoStepCookies,
                           signIns: services.signIns, throttle: services.throttle, cookies: services.cookies, pages: services.pages)
        .addRoutes(to: router)
    JoinController(joinLinks: joinLinks, workspaces: services.workspaces, cookies: services.cookies, pages: services.pages)
        .addRoutes(to: router)

    let signedIn = router.group(context: SignedInContext.self)
    signedIn.add(middleware: TwoStepRequirementMiddleware(requirement: services.config.requireTwoStep))
    emailConfirmation.addRoutes(to: signedIn)
    TwoStepController(accounts: services.accounts, twoStep: services.twoStep, requirement: services.config.requireTwoStep,
                      issuer: services.site.host, cookies: services.cookies, pages: services.pages).addRoutes(to: signedIn)
    AdminController(administration: services.administration, mail: services.mailOutbox, database: services.database,
                    cookies: services.cookies, pages: services.pages).addRoutes(to: signedIn)
    let poster = services.poster
    ProfileController(accounts: services.accounts, workspaces: services.workspaces, files: services.files,
                      statuses: services.statuses, rateLimiter: services.rateLimiter, mailEnabled: services.mailSender != nil,
                      appSessions: services.appSessions, appPasswords: services.appPasswords, apiOn: services.config.api.isOn,
                      cookies: services.cookies,
                      pages: services.pages)
        .addRoutes(to: signedIn)
    WorkspacesController(workspaces: services.workspaces, channels: services.channels, members: services.members,
                         invitations: services.invitations, accounts: services.accounts, files: services.files, cookies: services.cookies,
                         pages: services.pages, home: services.homes).addRoutes(to: signedIn)
    MembersController(workspaces: services.workspaces, members: services.members, invitations: services.invitations, joinLinks: joinLinks,
                      mail: mail,
                      statuses: services.statuses,
                      cookies: services.cookies, pages: services.pages, site: services.site,
                      limits: services.invitationLimits).addRoutes(to: signedIn)
    ChannelsController(workspaces: services.workspaces, channels: services.channels, members: services.members, files: services.files,
                       webhooks: services.incomingWebhooks, site: services.site, cookies: services.cookies,
                       pages: services.pages).addRoutes(to: signedIn)
    let rooms = RoomScope(workspaces: services.workspaces, channels: services.channels, directRooms: services.directRooms,
                          groups: services.groups)
    RoomsController(workspaces: services.workspaces, messages: services.messages,
                    directRooms: services.directRooms, members: services.members,
                    lists: services.messageLists, files: services.files,
                    pins: services.pins, saved: services.saved, lastRooms: services.lastRooms, poster: poster,
                    statuses: services.statuses, cookies: services.cookies,
                    pages: services.pages, scope: rooms).addRoutes(to: signedIn)
    ThreadsController(workspaces: services.workspaces, messages: services.messages, threads: services.threads,
                      lists: services.messageLists, files: services.files, saved: services.saved, poster: poster,
                      pages: services.pages).addRoutes(to: signedIn)
    ConversationsController(workspaces: services.workspaces, groups: services.groups, members: services.members,
                            cookies: services.cookies, pages: services.pages).addRoutes(to: signedIn)
    NotifyController(scope: rooms, settings: services.notifySettings, cookies: services.cookies).addRoutes(to: signedIn)
    MessagesController(workspaces: services.workspaces, messages: services.messages, lists: services.messageLists,
                       files: services.files, linkPreviews: services.linkPreviews, rateLimiter: services.rateLimiter,
                       cookies: services.cookies,
                       pages: services.pages).addRoutes(to: signedIn)
    ReactionsController(workspaces: services.workspaces, reactions: services.reactions, pins: services.pins,
                        saved: services.saved, pages: services.pages).addRoutes(to: signedIn)
    if let push = services.push { PushController(push: push).addRoutes(to: router, signedIn: signedIn) }
    PresenceController(scope: rooms, hub: services.hub, throttle: services.typing).addRoutes(to: signedIn)
    MessageMarksController(workspaces: services.workspaces, pins: services.pins, saved: services.saved, pages: services.pages)
        .addRoutes(to: signedIn)
    MentionsController(workspaces: services.workspaces, mentions: MentionList(database: services.database), pages: services.pages)
        .addRoutes(to: signedIn)
    FilesController(files: services.files).addRoutes(to: signedIn)
    SearchController(workspaces: services.workspaces, search: SearchService(database: services.database),
                     rateLimiter: services.rateLimiter, pages: services.pages)
        .addRoutes(to: signedIn)
    StoreController(payments: services.payments, accounts: services.accounts, pages: services.pages).addRoutes(to: signedIn)
    if let sandbox = services.sandbox {
        SandboxCheckoutController(sandbox: sandbox, payments: services.payments, pages: services.pages).addRoutes(to: signedIn)
    }
    AuditController(workspaces: services.workspaces, log: WorkspaceAuditLog(database: services.database), pages: services.pages)
        .addRoutes(to: signedIn)
    return router
}

/// The apps' API under `/v1` (`--api-key`), outside the pages' sessions, CSRF and error pages:
/// its own key check and error answers (`APIMiddleware`); a path it does not know is `E97`.
func addAPIRoutes(to router: Router<AppRequestContext>, _ services: AppServices) {
    // The contract itself needs no key: tools read it before they have one.
    let assets = services.pages.assets
    router.get("/v1/openapi.json") { request, _ -> Response in
        guard let document = assets.asset(at: "api/openapi.json") else { return APIError.unknownRoute.response }
        return StaticController.answer(document, request, headers: [.cacheControl: "no-cache"])
    }
    // The apps' live updates (Socket.IO over long-polling): no key, since the apps send none there.
    let socketIO = SocketIOController(services)
    socketIO.addRoutes(to: router)
    let committed = services.database.outbox.listen()
    Task { await socketIO.relay(committed) }
    let v1 = router.group("v1")
    v1.add(middleware: APIMiddleware(keys: services.config.api.keys))
    let routes = APIRoutes(v1)
    let api = services.config.api
    UsersAPIController(accounts: services.accounts, files: services.files, appSessions: services.appSessions, throttle: services.throttle,
                       signups: services.signups, policy: services.config.signup, confirmations: services.confirmations,
                       social: SocialSignIns(database: services.database, clock: services.clock, policy: services.config.signup,
                                             signupCoins: services.config.signupCoins),
                       appPasswords: services.appPasswords, apple: services.apple, kakao: KakaoIdentity(api: api.kakaoAPI),
                       trustProxy: services.config.trustProxy).addRoutes(to: routes)
    let access = APIAccess(sessions: services.appSessions, workspaces: services.workspaces, database: services.database)
    let mail = MailRoutes(outbox: services.mailOutbox, composer: services.mailComposer, sender: services.mailSender)
    WorkspacesAPIController(access: access, workspaces: services.workspaces, files: services.files,
                            invitations: InvitationSender(invitations: services.invitations, limits: services.invitationLimits, mail: mail))
        .addRoutes(to: routes)
    let channels = ChannelsAPIController(access: access, channels: services.channels, files: services.files)
    channels.addRoutes(to: routes)
    ChatsAPIController(access: access, channels: channels, messages: services.messages, directRooms: services.directRooms,
                       poster: services.poster, files: services.files, rateLimiter: services.rateLimiter).addRoutes(to: routes)
    FilesAPIController(access: access, files: services.files, assets: services.pages.assets).addRoutes(to: routes)
    StoreAPIController(access: access, payments: services.payments).addRoutes(to: routes)
    routes.finish()
}

extension AppServices {
    /// Two-step accounts' passwords for the apps.
    var appPasswords: AppPasswords { AppPasswords(database: database, clock: clock) }

    /// Incoming webhooks, posting through `poster`.
    var incomingWebhooks: IncomingWebhooks {
        IncomingWebhooks(database: database, clock: clock, poster: poster, rateLimiter: rateLimiter)
    }

    /// What posts a message, from a page or an app.
    var poster: MessagePoster {
        MessagePoster(messages: messages, files: files, linkPreviews: linkPreviews, typing: typing, rateLimiter: rateLimiter,
                      metrics: metrics)
    }
}
