import Foundation
import Views

/// How far each person has read: their marker and unread counts in each room they are in, the
/// markers of a conversation's members (read receipts), and their unread thread replies.
protocol ReadMarkStore {
    /// The person's markers in the rooms of the workspace they are in, by room: unread count,
    /// the newest message they read, and the unread messages that mention them.
    func markers(userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker]
    /// The person's marker in one room (a read moving it tells their tabs); nil when they are
    /// not in it.
    func marker(userId: Int64, roomId: Int64) throws -> RoomMarker?
    /// How far each member of the room has read, by member id.
    func receipts(roomId: Int64) throws -> ReceiptMarkers
    /// The person's unread replies in the threads they follow in the workspace, and how many of
    /// those mention them.
    func threadUnread(userId: Int64, workspaceId: Int64) throws -> ThreadUnread
    /// Marks the room read up to its newest message for every member, with nothing unread (an
    /// archived room counts nothing).
    func markAllRead(roomId: Int64) throws
}

/// How rooms notify each member: a level per room membership (none follows the person's
/// default) and a default per person.
protocol NotifySettingStore {
    /// Sets the person's own level in the room (nil: their default again); answers whether they
    /// are in the room (nothing changes when they are not).
    func setLevel(_ level: NotifyLevel?, roomId: Int64, userId: Int64) throws -> Bool
    /// The person's default level as kept (nil when they never chose one).
    func defaultLevel(userId: Int64) throws -> String?
    /// Sets the person's default level, which every room they did not set themself follows.
    func setDefault(_ level: NotifyLevel, userId: Int64) throws
}

/// The room each person viewed last, where signing in takes them.
protocol LastRoomStore {
    /// Notes `roomId` as the room the person viewed last (in place of the one before).
    func setViewed(roomId: Int64, userId: Int64) throws
    /// The room the person viewed last, while they are still in its workspace and may read it
    /// (they are in the room, or it is a public channel); else nil.
    func lastViewed(userId: Int64) throws -> Room?
    /// The default channel of the workspace the person joined first; nil when they are in none.
    func firstDefaultRoom(userId: Int64) throws -> Room?
}
