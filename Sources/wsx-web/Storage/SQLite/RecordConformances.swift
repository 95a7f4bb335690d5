import Foundation
import GRDB

// The GRDB side of the record types (`Storage/Records.swift`, `WorkspaceRecords.swift`,
// `MessageRecords.swift`): their tables, how a row reads into them, and their columns for
// GRDB's query interface. SQLite's store alone uses them.

extension User: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "users"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Read by column name without the Decodable machinery: every request reads its user.
    init(row: Row) throws {
        (id, email, emailKey, nickname, phone) = (row["id"], row["email"], row["email_key"], row["nickname"], row["phone"])
        (passwordHash, lang, coinBalance, avatarFileId) = (row["password_hash"], row["lang"], row["coin_balance"], row["avatar_file_id"])
        notifyDefault = row["notify_default"]
        (createdAt, updatedAt) = (row["created_at"], row["updated_at"])
        (isAdmin, deactivatedAt, emailConfirmedAt) = (row["is_admin"], row["deactivated_at"], row["email_confirmed_at"])
        twoStepEnabledAt = row["totp_enabled_at"]
    }
}

extension User.CodingKeys: ColumnExpression {}

extension Session: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "sessions"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Read by column name without the Decodable machinery: every request reads its session.
    init(row: Row) throws {
        (id, tokenHash, userId, csrfToken, userAgent) = (row["id"], row["token_hash"], row["user_id"], row["csrf_token"], row["user_agent"])
        (createdAt, refreshedAt, expiresAt) = (row["created_at"], row["refreshed_at"], row["expires_at"])
    }
}

extension Session.CodingKeys: ColumnExpression {}

extension PasswordReset: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "password_resets"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension PasswordReset.CodingKeys: ColumnExpression {}

extension Workspace: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "workspaces"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Workspace.CodingKeys: ColumnExpression {}

extension WorkspaceMember: FetchableRecord, PersistableRecord {
    static let databaseTableName = "workspace_members"
}

extension WorkspaceMember.CodingKeys: ColumnExpression {}

extension Room: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "rooms"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Room.CodingKeys: ColumnExpression {}

extension RoomMember: FetchableRecord, PersistableRecord {
    static let databaseTableName = "room_members"
}

extension RoomMember.CodingKeys: ColumnExpression {}

extension Invite: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "invites"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Invite.CodingKeys: ColumnExpression {}

extension AuditEntry: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "audit_log"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension AuditEntry.CodingKeys: ColumnExpression {}

extension CoinLedgerEntry: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "coin_ledger"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension CoinLedgerEntry.CodingKeys: ColumnExpression {}

extension Message: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "messages"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Message.CodingKeys: ColumnExpression {}

extension MessageRow: FetchableRecord {
    /// Read by position in `columns` order (the Decodable path showed in page profiles).
    init(row: Row) throws {
        (id, roomId, authorId, authorNickname, authorAvatarId) = (row[0], row[1], row[2], row[3], row[4])
        (body, bodyHtml, createdAt, editedAt) = (row[5], row[6], row[7], row[8])
        (threadRootId, inTimeline, isDeleted, authorDeactivated) = (row[9], row[10], row[11], (row[12] as Bool?) ?? false)
        authorIsBot = (row[13] as Bool?) ?? false
    }
}

extension MessageStamp: FetchableRecord {
    init(row: Row) throws {
        (id, authorId, authorNickname, authorAvatarId, createdAt, editedAt) = (row[0], row[1], row[2], row[3], row[4], row[5])
        (isDeleted, authorDeactivated) = (row[6], (row[7] as Bool?) ?? false)
    }
}

extension AppSession: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "app_sessions"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
