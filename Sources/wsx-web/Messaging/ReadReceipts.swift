import Foundation

/// How far each member of a DM or group conversation has read, so each of its messages can
/// say how many have not read it yet (KakaoWork's "1"). Counted from the members' markers,
/// never looked up per message; kept until a commit changes `room_members`.
struct ReadReceipts: Sendable {
    let kept: VersionedCache<Int64, ReceiptMarkers>

    init(database: AppDatabase, clock: WallClock) {
        kept = VersionedCache("read receipts", of: database, clock: clock, capacity: 4096)
    }

    /// The room's markers, from memory, or else read in `tx` (nil: memory only).
    func markers(_ tx: (any StoreTransaction)?, roomId: Int64) throws -> ReceiptMarkers {
        try kept.value(for: roomId, in: tx) { tx in try tx.readMarks.receipts(roomId: roomId) }
    }
}

/// Each member's read marker in one conversation.
struct ReceiptMarkers: Sendable, Equatable {
    struct Member: Sendable, Equatable {
        let userId: Int64
        let lastRead: Int64
    }

    let members: [Member]

    /// How many members other than its author have not read message `id` (a group has at most
    /// nine members, so a walk over them is the cheapest count).
    func unreadBy(messageId: Int64, authorId: Int64?) -> Int {
        members.reduce(0) { $0 + ($1.lastRead < messageId && $1.userId != authorId ? 1 : 0) }
    }

    /// The same with `userId` having read up to `id`.
    func moved(userId: Int64, to id: Int64) -> ReceiptMarkers {
        ReceiptMarkers(members: members.map { $0.userId == userId ? Member(userId: userId, lastRead: max($0.lastRead, id)) : $0 })
    }

    /// `{"12":340,"15":345}`, for the page's script to count on as people read.
    var json: String {
        CompactJSON.object(members.map { (key: String($0.userId), value: CompactJSON.Value.int($0.lastRead)) })
    }
}

/// What a `room.receipts` event tells a conversation's members: one of them read up to
/// `lastRead`.
struct ReceiptsPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let userId: Int64
    let lastRead: Int64
}
