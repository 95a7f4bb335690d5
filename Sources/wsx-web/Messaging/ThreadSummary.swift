import Foundation

/// Where a new message goes when it answers another: the thread of `rootId`, and also the room's
/// timeline when its author said so (`also_channel=1`).
struct ThreadPlacement: Sendable, Equatable {
    let rootId: Int64
    let alsoInRoom: Bool
}

/// A thread as the line under its root shows it: how many replies, when the last one came, and
/// who wrote the latest ones (newest first). Equal summaries render the same HTML.
struct ThreadSummary: Sendable, Hashable {
    let rootId: Int64
    let replyCount: Int
    let lastReplyId: Int64
    let lastReplyAt: Date
    let repliers: [Replier]

    struct Replier: Sendable, Hashable {
        let id: Int64
        let nickname: String
        let avatarId: Int64?
    }

    /// How many repliers the line shows.
    static let replierLimit = 3
}
