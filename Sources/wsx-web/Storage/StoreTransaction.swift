import Foundation

/// One transaction as the code above `Storage/` sees it: what a body passed to
/// `AppDatabase.write { tx in … }` or `query { tx in … }` holds, and the only way it reaches the
/// data. It runs no SQL itself: each concern's store (`tx.messages`, `tx.saved`, …) does, in this
/// transaction, so several stores' changes commit together or not at all.
///
/// The body of a transaction runs on the database's own thread (the SQLite writer's turn, or a
/// reader thread) and must not wait for anything else: it is synchronous store calls and plain
/// computation. A backend with an asynchronous driver runs it on a thread of its own holding one
/// connection (`Storage/README.md`). A read transaction's stores refuse to write.
protocol StoreTransaction {
    /// Records `event` in this transaction, delivered once it commits (`EventOutbox`); answers
    /// its id.
    @discardableResult
    func publish(_ event: OutgoingEvent) throws -> Int64

    /// Rooms and who is in them.
    var rooms: any RoomStore { get }
    /// Workspaces and who is in them.
    var workspaces: any WorkspaceStore { get }
    /// Portable reads that check what the data holds (tests, operators' checks).
    var inspection: any InspectionStore { get }
    /// Threads and who follows them.
    var threads: any ThreadStore { get }
    /// The event log.
    var events: any EventStore { get }
    /// Messages as their rooms' members see them.
    var messages: any MessageStore { get }
    /// Each person's saved messages.
    var saved: any SavedMessageStore { get }
    /// Reactions to messages.
    var reactions: any ReactionStore { get }
    /// Pinned messages.
    var pins: any PinStore { get }
    /// The full-text index and the workspace's searches.
    var search: any SearchStore { get }
    /// The rows of uploaded files.
    var files: any StoredFileStore { get }
    /// Link preview cards.
    var linkPreviews: any LinkPreviewStore { get }
    /// People's accounts.
    var accounts: any AccountStore { get }
    /// The links that confirm an account's e-mail address.
    var emailConfirmations: any EmailConfirmationStore { get }
    /// People's custom statuses.
    var statuses: any StatusStore { get }
    /// Two-step sign-in: each account's secret and recovery codes.
    var twoStep: any TwoStepStore { get }
    /// Coin balances and their ledger.
    var ledger: any LedgerStore { get }
    /// Coin purchases.
    var payments: any PaymentStore { get }
    /// The built-in test gateway's own side of its payments.
    var sandboxPayments: any SandboxPaymentStore { get }
    /// Workspaces' audit logs.
    var audit: any AuditStore { get }
    /// The server-wide security log.
    var securityLog: any SecurityLogStore { get }
    /// How far each person has read: room markers, read receipts, unread thread replies.
    var readMarks: any ReadMarkStore { get }
    /// How rooms notify each member, and each person's default.
    var notifySettings: any NotifySettingStore { get }
    /// The room each person viewed last.
    var lastRooms: any LastRoomStore { get }
    /// Invitations to workspaces, and their join links.
    var invitations: any InvitationStore { get }
    /// The people of each workspace (joining one publishes its events in this transaction).
    var memberships: any MembershipStore { get }
    /// The queue of mail to send.
    var mail: any MailQueueStore { get }
    /// Browsers' push subscriptions and the pushes waiting for them.
    var push: any PushSubscriptionStore { get }
    /// What a Slack import and export keep and write: the Slack id of each row they brought or
    /// wrote, and the import's own writes.
    var slackImport: any SlackImportStore { get }
    /// What `wsx-web seed` writes in bulk.
    var seed: any SeedStore { get }
    /// Signed-in browsers' sessions.
    var sessions: any SessionRecordStore { get }
    /// The password reset links operators hand out.
    var passwordResets: any PasswordResetStore { get }
    /// The apps' sign-ins (`/v1`).
    var appSessions: any AppSessionStore { get }
    /// Rows' opaque ids for `/v1`.
    var publicIds: any PublicIdStore { get }
    /// Incoming webhooks.
    var webhooks: any WebhookStore { get }
    /// Kakao and Apple sign-ins.
    var socialLogins: any SocialLoginStore { get }
    /// App passwords of two-step accounts.
    var appPasswords: any AppPasswordStore { get }
}
