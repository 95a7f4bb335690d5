import Foundation

/// Threads: roots, their summaries, who follows them and how far each follower has read.
protocol ThreadStore {
    /// The root a reply may answer in `roomId`: a message of that room that is not itself a
    /// reply. Else a 404.
    func requireRoot(id: Int64, roomId: Int64) throws
    /// Whether a message has replies.
    func hasReplies(rootId: Int64) throws -> Bool
    /// How many replies the thread has.
    func replyCount(rootId: Int64) throws -> Int
    /// The id of the thread's newest reply (0 for none).
    func newestReplyId(rootId: Int64) throws -> Int64
    /// The summaries of those of `rootIds` that have replies.
    func summaries(rootIds: [Int64]) throws -> [Int64: ThreadSummary]
    /// A thread's replies (their stamps), oldest first: the newest `limit`, or those before `before`.
    func replies(rootId: Int64, before: Int64?, limit: Int) throws -> (stamps: [MessageStamp], hasOlder: Bool)
    /// Who follows the thread after a reply: its writer (read up to their reply), the people it
    /// mentions, and with the first reply the root's author and the people the root mentions,
    /// each only while they are in the room; the others have one more reply to read. Answers
    /// every follower.
    func follow(rootId: Int64, roomId: Int64, replyId: Int64, authorId: Int64, mentioned: [Int64]) throws -> [Int64]
    /// A reply is about to be deleted: it no longer counts for the followers who had not read it.
    func replyRemoved(_ reply: Message) throws
    /// Everyone following the thread, by id.
    func followers(rootId: Int64) throws -> [Int64]
    /// How far the person read the thread, if they follow it.
    func lastRead(userId: Int64, rootId: Int64) throws -> Int64?
    /// Moves the follower's marker forward to `replyId`; answers whether it moved.
    func advanceMarker(userId: Int64, rootId: Int64, to replyId: Int64) throws -> Bool
    /// Starts following, everything so far read; answers whether they were not following.
    func startFollowing(userId: Int64, rootId: Int64, roomId: Int64) throws -> Bool
    /// Stops following; answers whether they were.
    func stopFollowing(userId: Int64, rootId: Int64) throws -> Bool
    /// The follower's unread replies over the followed threads of rooms of the workspace they
    /// are still in and that are not archived.
    func unreadTotal(userId: Int64, workspaceId: Int64) throws -> Int
    /// Of those, the replies that mention them and stay in their thread.
    func unreadMentions(userId: Int64, workspaceId: Int64) throws -> Int
    /// The threads the person follows in rooms of the workspace they are still in, the latest
    /// reply first, with their unread replies.
    func followed(userId: Int64, workspaceId: Int64, limit: Int) throws -> [(rootId: Int64, unread: Int)]
}

/// The event log: every real-time event, kept for replay (`Last-Event-ID`) for the retention
/// window, and taken back when what it showed may no longer be read.
protocol EventStore {
    /// The newest event id, 0 when there is none yet.
    func latestId() throws -> Int64
    /// The same, as a stamp on what a cached read counted in this transaction (the events its
    /// counts include), not as something the read depends on: a value kept with it is dropped
    /// by the commits that change what it read, not by every event.
    func latestIdAsStamp() throws -> Int64
    /// Events up to this id were deleted by retention; a client resuming before it must reload.
    func prunedThrough() throws -> Int64
    /// The events with `after < id <= through` addressed to `userId` or to one of `rooms` (from
    /// when the user joined each), in id order, at most `limit` and about `maxBytes` of payload
    /// (always at least one).
    func replay(after: Int64, through: Int64, userId: Int64, rooms: [Int64], limit: Int, maxBytes: Int) throws -> [EventLog.Row]
    /// Deletes the events created before `cutoff` and remembers the newest id deleted; answers
    /// whether any went.
    func prune(before cutoff: Date) throws -> Int
    /// The message was edited: its creation's event carries the new HTML and snippet, and its
    /// earlier edits' events go.
    func scrubEdited(messageId: Int64, html: String, snippet: String) throws
    /// A thread's root stays as a placeholder: its text events show it, its card's events go.
    func scrubPlaceholder(messageId: Int64, html: String) throws
    /// The message was deleted: the events that showed it go.
    func scrubDeleted(messageId: Int64) throws
    /// Rooms were deleted with their messages: so are the messages' events.
    func scrubRoomsDeleted(_ roomIds: [Int64]) throws
}
