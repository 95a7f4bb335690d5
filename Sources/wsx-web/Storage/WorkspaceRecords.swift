import Foundation

/// A row of `workspaces`.
struct Workspace: Codable, Sendable, Equatable {

    var id: Int64?
    var name: String
    var nameKey: String
    var description: String
    var ownerId: Int64
    var coverFileId: Int64?
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, name, nameKey = "name_key", description, ownerId = "owner_id", coverFileId = "cover_file_id"
        case createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// A person's role in a workspace.
enum WorkspaceRole: String, Codable, Sendable {
    case owner, member
}

/// A row of `workspace_members`.
struct WorkspaceMember: Codable, Sendable, Equatable {

    var workspaceId: Int64
    var userId: Int64
    var role: WorkspaceRole
    var joinedAt: Date

    enum CodingKeys: String, CodingKey {
        case workspaceId = "workspace_id", userId = "user_id", role, joinedAt = "joined_at"
    }
}

/// A row of `rooms`: a channel, a direct-message conversation, or a group conversation.
struct Room: Codable, Sendable, Equatable {

    enum Kind: String, Codable, Sendable {
        /// A named channel; a conversation of two (or one person's notes); a group conversation of 3 to 9.
        case channel, dm, group
    }

    /// Who may find a channel: the workspace (public) or its members alone (private).
    enum Visibility: String, Codable, Sendable {
        case `public`, `private`
    }

    var id: Int64?
    var workspaceId: Int64
    var kind: Kind
    var name: String
    var nameKey: String
    var description: String
    var ownerId: Int64?
    var isDefault: Bool
    var dmKey: String?
    var coverFileId: Int64?
    var createdAt: Date
    var updatedAt: Date
    var visibility: Visibility = .public
    /// When the channel was archived (read-only); nil while in use.
    var archivedAt: Date?

    var isPrivate: Bool { visibility == .private }
    var isArchived: Bool { archivedAt != nil }

    enum CodingKeys: String, CodingKey {
        case id, workspaceId = "workspace_id", kind, name, nameKey = "name_key", description, ownerId = "owner_id"
        case isDefault = "is_default", dmKey = "dm_key", coverFileId = "cover_file_id", createdAt = "created_at"
        case updatedAt = "updated_at", visibility, archivedAt = "archived_at"
    }
}

/// A row of `room_members`.
struct RoomMember: Codable, Sendable, Equatable {

    var roomId: Int64
    var userId: Int64
    var joinedAt: Date
    var lastReadMessageId: Int64

    enum CodingKeys: String, CodingKey {
        case roomId = "room_id", userId = "user_id", joinedAt = "joined_at", lastReadMessageId = "last_read_message_id"
    }
}

/// A row of `invites`: an invitation to a workspace, for an email address, until it is accepted,
/// declined or expires.
struct Invite: Codable, Sendable {

    var id: Int64?
    var workspaceId: Int64
    var email: String
    /// The address lowercased, as accounts are keyed.
    var emailKey: String
    var tokenHash: String
    /// What the token is made from with the server's key (nil for invitations made before 011).
    var tokenNonce: String?
    var invitedBy: Int64
    var createdAt: Date
    var expiresAt: Date
    var usedAt: Date?
    var declinedAt: Date?
    /// The owner took it back: its link no longer works.
    var revokedAt: Date?
    /// Made by the import that made the address's account: the one way to its first password.
    var claimsAccount = false

    enum CodingKeys: String, CodingKey {
        case id, workspaceId = "workspace_id", email, emailKey = "email_key", tokenHash = "token_hash"
        case tokenNonce = "token_nonce", invitedBy = "invited_by"
        case createdAt = "created_at", expiresAt = "expires_at", usedAt = "used_at", declinedAt = "declined_at"
        case revokedAt = "revoked_at", claimsAccount = "claims_account"
    }

    /// Neither accepted nor declined, and not expired at `now`.
    func isPending(at now: Date) -> Bool {
        usedAt == nil && declinedAt == nil && revokedAt == nil && expiresAt > now
    }
}

/// A row of `audit_log`: who did what to whom in a workspace.
struct AuditEntry: Codable, Sendable {

    var id: Int64?
    var workspaceId: Int64
    var actorId: Int64?
    var action: String
    var targetUserId: Int64?
    var targetRoomId: Int64?
    var detail: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, workspaceId = "workspace_id", actorId = "actor_id", action, targetUserId = "target_user_id"
        case targetRoomId = "target_room_id", detail, createdAt = "created_at"
    }
}

/// A row of `coin_ledger`: one change of one balance, with its reason.
struct CoinLedgerEntry: Codable, Sendable {

    var id: Int64?
    var userId: Int64
    var delta: Int
    var balanceAfter: Int
    var reason: String
    var reference: String?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, userId = "user_id", delta, balanceAfter = "balance_after", reason, reference, createdAt = "created_at"
    }
}
