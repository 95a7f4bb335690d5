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
    /// Messages as their rooms' members see them.
    var messages: any MessageStore { get }
    /// Each person's saved messages.
    var saved: any SavedMessageStore { get }
    /// Reactions to messages.
    var reactions: any ReactionStore { get }
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
}
