import Foundation

/// A message found by a search: what its result line shows.
struct FoundMessage: Sendable {
    let id: Int64
    let roomId: Int64
    let body: String
    let createdAt: Date
    let authorNickname: String?
    let threadRootId: Int64?
}

/// A file found by its name, with the message it came in.
struct FoundFile: Sendable {
    let name: String
    let size: Int
    let message: FoundMessage
}

/// The workspace's searches. `pattern` is a `ContainsPattern` (lowercased); each search answers
/// at most `limit` results after (or before) its cursor, in a stable order.
protocol SearchStore {
    /// Indexes (or re-indexes) a message's text (as read: `MessageHTML.Rendered.plain`).
    func index(messageId: Int64, roomId: Int64, text: String) throws
    /// Channels whose name or description contains the pattern that the person can see
    /// (public, or private with them in it), by id after `afterId`.
    func channels(workspaceId: Int64, userId: Int64, containing pattern: String, afterId: Int64, limit: Int) throws -> [SearchService.ChannelHit]
    /// Members whose nickname or email contains the pattern, by id after `afterId`.
    func members(workspaceId: Int64, containing pattern: String, afterId: Int64, limit: Int) throws -> [SearchService.MemberHit]
    /// Files whose name contains the pattern, in messages of `roomIds` not deleted, newest first.
    func files(containing pattern: String, roomIds: [Int64], limit: Int) throws -> [FoundFile]
    /// Messages of `roomIds` with every word of `query` (`SearchTokenizer`), newest first, with
    /// ids below `beforeId`.
    func messages(matching query: String, roomIds: [Int64], beforeId: Int64, limit: Int) throws -> [FoundMessage]
}
