import Foundation
import PostgresNIO

/// A `StoreTransaction` on PostgreSQL: one session inside its transaction
/// (`PostgresSession.transaction`), and in a write the events it publishes, recorded under
/// commit-ordered ids (`PostgresEventIds`) and kept to be handed on once it commits. Only the
/// PostgreSQL stores (this folder) use the session.
struct PostgresTransaction: StoreTransaction {
    let session: PostgresSession
    /// The events published so far; nil in a read, which publishes nothing.
    let published: PublishedEvents?
    let clock: WallClock

    /// A write transaction's events, in id order, for whoever delivers them after the commit.
    final class PublishedEvents: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [CommittedEvent] = []

        func append(_ event: CommittedEvent) { lock.withLock { list.append(event) } }
        var events: [CommittedEvent] { lock.withLock { list } }
    }

    /// A write on `session`: what it publishes is collected in a new `PublishedEvents`.
    static func writing(_ session: PostgresSession, clock: WallClock) -> PostgresTransaction {
        PostgresTransaction(session: session, published: PublishedEvents(), clock: clock)
    }

    /// A read on `session`.
    static func reading(_ session: PostgresSession, clock: WallClock) -> PostgresTransaction {
        PostgresTransaction(session: session, published: nil, clock: clock)
    }

    @discardableResult
    func publish(_ event: OutgoingEvent) throws -> Int64 {
        guard let published else { throw PublishedInRead() }
        let id = try PostgresEventIds.record(event, in: session, at: clock.now())
        published.append(CommittedEvent(id: id, event: event))
        return id
    }

    /// An event published, or a membership changed, in a read transaction: a mistake of the caller.
    struct PublishedInRead: Error, CustomStringConvertible {
        var description: String { "an event was published in a read transaction" }
    }

    var rooms: any RoomStore { PostgresRoomStore(session: session) }
    var workspaces: any WorkspaceStore { PostgresWorkspaceStore(session: session) }
    var inspection: any InspectionStore { PostgresInspectionStore(session: session) }
    var threads: any ThreadStore { PostgresThreadStore(session: session) }
    var events: any EventStore { PostgresEventStore(session: session) }
    var messages: any MessageStore { PostgresMessageStore(session: session) }
    var saved: any SavedMessageStore { PostgresSavedMessageStore(session: session) }
    var reactions: any ReactionStore { PostgresReactionStore(session: session) }
    var pins: any PinStore { PostgresPinStore(session: session) }
    var search: any SearchStore { PostgresSearchStore(session: session) }
    var files: any StoredFileStore { PostgresFileStore(session: session) }
    var linkPreviews: any LinkPreviewStore { PostgresLinkPreviewStore(session: session) }
    var accounts: any AccountStore { PostgresAccountStore(session: session) }
    var emailConfirmations: any EmailConfirmationStore { PostgresEmailConfirmationStore(session: session) }
    var statuses: any StatusStore { PostgresStatusStore(session: session) }
    var twoStep: any TwoStepStore { PostgresTwoStepStore(session: session) }
    var ledger: any LedgerStore { PostgresLedgerStore(session: session) }
    var payments: any PaymentStore { PostgresPaymentStore(session: session) }
    var sandboxPayments: any SandboxPaymentStore { PostgresSandboxPaymentStore(session: session) }
    var audit: any AuditStore { PostgresAuditStore(session: session) }
    var securityLog: any SecurityLogStore { PostgresSecurityLogStore(session: session) }
    var readMarks: any ReadMarkStore { PostgresReadMarkStore(session: session) }
    var notifySettings: any NotifySettingStore { PostgresNotifySettingStore(session: session) }
    var lastRooms: any LastRoomStore { PostgresLastRoomStore(session: session) }
    var invitations: any InvitationStore { PostgresInvitationStore(session: session) }
    var memberships: any MembershipStore { PostgresMembershipStore(tx: self) }
    var mail: any MailQueueStore { PostgresMailQueueStore(session: session) }
    var push: any PushSubscriptionStore { PostgresPushSubscriptionStore(session: session) }
    var slackImport: any SlackImportStore { PostgresSlackImportStore(tx: self) }
    var seed: any SeedStore { PostgresSeedStore(session: session) }
    var sessions: any SessionRecordStore { PostgresSessionRecordStore(session: session) }
    var passwordResets: any PasswordResetStore { PostgresPasswordResetStore(session: session) }
    var appSessions: any AppSessionStore { PostgresAppSessionStore(session: session) }
    var publicIds: any PublicIdStore { PostgresPublicIdStore(session: session) }
    var webhooks: any WebhookStore { PostgresWebhookStore(session: session) }
    var socialLogins: any SocialLoginStore { PostgresSocialLoginStore(session: session) }
    var appPasswords: any AppPasswordStore { PostgresAppPasswordStore(session: session) }
}
