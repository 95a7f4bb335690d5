import Foundation
import Mail

/// One unread message of someone who takes the digest, as `MailQueueStore.digestUnread` reads
/// it: who they are, the message, and its room.
struct DigestUnreadRow: Sendable {
    let userId: Int64
    let email: String
    let nickname: String
    /// The language they chose ("" for none).
    let lang: String
    let messageId: Int64
    let body: String
    /// The thread the message replies in, if it is a reply.
    let threadRootId: Int64?
    let roomId: Int64
    /// The room's kind as kept: `channel`, `dm` or `group`.
    let kind: String
    /// The room's name (channels have one).
    let name: String?
    let workspaceId: Int64
    /// A 1:1 conversation's pair of member ids, `12:15`.
    let dmKey: String?
    /// The author's nickname ("" when there is none).
    let author: String
}

/// The queue of mail to send: what is due, what was sent, what keeps failing; and what the
/// digest needs to know of the people it mails.
protocol MailQueueStore {
    /// Queues one mail, due at `now`.
    func enqueue(kind: MailOutbox.Kind, recipient: String, workspaceId: Int64?, message: String, at now: Date) throws
    /// Mail due at `now` that is neither sent nor given up on, the longest due first, at most `limit`.
    func due(at now: Date, limit: Int) throws -> [MailOutbox.Due]
    /// The same mail, taken for sending: each is due again only at `lease` (sent or failed before
    /// then, it never is), so a sender on another node does not take it too; mail another
    /// sender is taking at this moment is passed over.
    func claim(at now: Date, limit: Int, until lease: Date) throws -> [MailOutbox.Due]
    /// When the next waiting mail is due, if any waits.
    func nextDue() throws -> Date?
    /// The language the account with this address key chose, if there is one.
    func language(emailKey: String) throws -> String?
    /// How many mails wait to be sent.
    func queueLength() throws -> Int
    /// How many mails were given up on and not since sent again.
    func failedCount() throws -> Int
    /// Marks the mail sent at `now` (its text goes, the row stays), and clears the earlier
    /// failures of the same kind to the same address (and workspace).
    func markSent(id: Int64, at now: Date) throws
    /// Counts a failed try of the mail: tried again at `next`, or given up on at `now` (`next`
    /// nil, its text goes). `error` is kept for operators, `reason` is what people see.
    func markFailed(id: Int64, error: String, reason: SMTPFailureReason, next: Date?, at now: Date) throws
    /// Moves the mails of `ids` still waiting to `time`, without counting a try.
    func postpone(ids: [Int64], until time: Date) throws
    /// Invitation mail of the workspace given up on and not delivered since, newest first, at most 20.
    func failures(workspaceId: Int64) throws -> [MailOutbox.Failure]
    /// Every mail given up on and not delivered since, newest first, at most `limit`.
    func failures(limit: Int) throws -> [MailOutbox.Failure]

    /// The unread mentions of each person who takes the digest, and the unread messages to them
    /// in conversations, posted between `since` and `cutoff` (both included) and newer than
    /// their last digest, not their own nor deleted, in rooms not archived; by person, then
    /// message; at most 2,000.
    func digestUnread(postedFrom since: Date, until cutoff: Date) throws -> [DigestUnreadRow]
    /// Notes that the person's digest told of messages up to `through`; answers whether it
    /// moved (false: they turned the digest off, or another digest got there first).
    func advanceDigest(userId: Int64, through: Int64) throws -> Bool
}

/// Browsers' push subscriptions and the queue of pushes to them.
protocol PushSubscriptionStore {
    /// Keeps the subscription for the person, made in `sessionId`; the same endpoint again moves
    /// to this person and session with its new keys. Only the person's `keeping` newest stay.
    func subscribe(_ subscription: PushStore.Subscription, userId: Int64, sessionId: Int64, keeping: Int, at now: Date) throws
    /// Forgets the person's subscription at `endpoint`.
    func unsubscribe(endpoint: String, userId: Int64) throws
    /// How many subscriptions the person has.
    func count(userId: Int64) throws -> Int
    /// The subscriptions of the room's active members but `authorId`, with each one's level
    /// for the room (their own, else their default).
    func recipients(roomId: Int64, authorId: Int64?) throws -> [PushStore.Recipient]
    /// Queues `payload` for each subscription, due at `now`.
    func enqueue(_ payload: String, to subscriptionIds: [Int64], at now: Date) throws
    /// Pushes due at `now`, the longest due first, at most `limit`.
    func due(at now: Date, limit: Int) throws -> [PushStore.Due]
    /// The same pushes, taken for sending: each is due again only at `lease` (finished, retried
    /// or dropped before then, it never is), so a sender on another node does not send it too;
    /// pushes another sender is taking at this moment are passed over.
    func claim(at now: Date, limit: Int, until lease: Date) throws -> [PushStore.Due]
    /// When the next waiting push is due, if any waits.
    func nextDue() throws -> Date?
    /// Takes the push off the queue.
    func finish(id: Int64) throws
    /// Counts a failed try of the push and makes it due again at `at`.
    func retry(id: Int64, at: Date) throws
    /// Removes the subscription, with its queued pushes.
    func drop(subscriptionId: Int64) throws
}
