import Foundation
import Views

/// What a `notify.changed` event tells the person's other tabs: the level a room now has for
/// them (`roomId` set), or their new default (`roomId` nil).
struct NotifyPayload: Codable, Sendable {
    let workspaceId: Int64?
    let roomId: Int64?
    /// The level in effect (for a room: its own, else the default).
    let level: String
    /// For a room: whether the level is the room's own rather than the default.
    let own: Bool?
}

/// How rooms notify each member: a level per room membership (NULL follows the person's
/// default) and a default per person. Governs desktop notifications and, for muted rooms, how
/// unread messages show; unread counts themselves are the same at every level.
struct NotifySettings: Sendable {
    let database: AppDatabase

    /// Sets `userId`'s level in `room` (nil: their default again). Not a member: not found.
    func setLevel(_ level: NotifyLevel?, room: Room, userId: Int64) async throws {
        try await database.write { tx in
            guard try tx.notifySettings.setLevel(level, roomId: room.id!, userId: userId) else { throw AppError.notFound }
            let standard = try tx.notifySettings.defaultLevel(userId: userId)
            let effective = level?.rawValue ?? standard ?? NotifyLevel.standard.rawValue
            try tx.publish(OutgoingEvent(.notifyChanged, to: .user(userId),
                                         payload: NotifyPayload(workspaceId: room.workspaceId, roomId: room.id!,
                                                                level: effective, own: level != nil)))
        }
    }

    /// Sets the level of every room `userId` did not set themself.
    func setDefault(_ level: NotifyLevel, userId: Int64) async throws {
        try await database.write { tx in
            try tx.notifySettings.setDefault(level, userId: userId)
            try tx.publish(OutgoingEvent(.notifyChanged, to: .user(userId),
                                         payload: NotifyPayload(workspaceId: nil, roomId: nil, level: level.rawValue, own: nil)))
        }
    }

    /// The level a form posted: a level, or `default` (nil) for a room; anything else is refused.
    static func posted(_ value: String?, allowDefault: Bool) throws -> NotifyLevel? {
        if allowDefault, value == "default" { return nil }
        guard let value, let level = NotifyLevel(rawValue: value) else { throw AppError.status(422, "error_notify_level") }
        return level
    }
}
