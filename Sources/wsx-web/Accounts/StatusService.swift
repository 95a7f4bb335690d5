import Foundation
import Views

/// A person's custom status: one emoji and a few words ("🌴 휴가 중"), shown next to their name
/// until it expires or they clear it. A change is one transaction with the event that tells
/// everyone who shares a workspace with them.
struct StatusService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let catalog: EmojiCatalog

    /// 100 characters, and the bytes and marks per character `TextLimit` allows: counted in
    /// characters alone, 100 letters each carrying 4,950 combining marks were a 1 MB status.
    static let textLimit = TextLimit(characters: 100)

    /// How long a status lasts, as the form offers it.
    enum Duration: String, CaseIterable, Sendable {
        case never = "", thirtyMinutes = "30m", hour = "1h", fourHours = "4h", day = "1d", week = "1w"

        var seconds: TimeInterval? {
            switch self {
            case .never: nil
            case .thirtyMinutes: 30 * 60
            case .hour: 3600
            case .fourHours: 4 * 3600
            case .day: 24 * 3600
            case .week: 7 * 24 * 3600
            }
        }
    }

    /// Sets the status (`emoji` one emoji or empty, `text` at most 100 characters, not both
    /// empty), or clears it when both are empty. Problems are per field.
    func set(userId: Int64, emoji: String, text: String, duration: String) async throws {
        let text = text.cleanedLine
        var problems = FormProblems()
        var chosen: String?
        if !emoji.trimmingCharacters(in: .whitespaces).isEmpty {
            chosen = catalog.entry(for: emoji.trimmingCharacters(in: .whitespaces))?.emoji
            if chosen == nil { problems.add(.statusEmoji, "error_reaction_emoji") }
        }
        if Self.textLimit.check(text) != .fits { problems.add(.statusText, "error_status_text") }
        guard let length = Duration(rawValue: duration) else { throw AppError.badRequest }
        try problems.throwIfAny()
        let now = clock.now(), emoji = chosen
        let expires = length.seconds.map { now.addingTimeInterval($0) }
        try await database.write { tx in
            if emoji == nil, text.isEmpty {
                try tx.statuses.clear(userId: userId)
            } else {
                try tx.statuses.set(userId: userId, emoji: emoji ?? "", text: text, expiresAt: expires, at: now)
            }
            let status = UserStatus(emoji: emoji ?? "", text: text, expiresAt: expires)
            let payload = StatusPayload(userId: userId, status: status.isEmpty ? nil : status.label,
                                        expiresAt: expires.map(Timestamps.iso))
            let defaultRooms = try tx.statuses.announcementRooms(userId: userId)
            for room in defaultRooms { try tx.publish(OutgoingEvent(.statusChanged, to: .room(room), payload: payload)) }
            // Their own other tabs, even outside any workspace.
            try tx.publish(OutgoingEvent(.statusChanged, to: .user(userId), payload: payload))
        }
    }

    /// The statuses of `userIds` that have not expired now.
    func current(of userIds: [Int64]) async throws -> [Int64: UserStatus] {
        let now = clock.now()
        return try await database.queryOffLoop { tx in try tx.statuses.current(of: userIds, at: now) }
    }
}

/// A custom status as it is stored.
struct UserStatus: Sendable, Equatable {
    let emoji: String
    let text: String
    let expiresAt: Date?

    var isEmpty: Bool { emoji.isEmpty && text.isEmpty }
    /// As it is shown next to a name: "🌴 휴가 중".
    var label: String { [emoji, text].filter { !$0.isEmpty }.joined(separator: " ") }
}

/// `status.changed`: someone's status as it is shown now (nil: none), and when it ends.
struct StatusPayload: Codable, Sendable {
    let userId: Int64
    let status: String?
    let expiresAt: String?
}
