import Foundation
import GRDB

/// What a server administrator does to accounts: lists them, deactivates someone who left
/// (every session and event stream ends at once, sign-in and password resets are refused, what
/// they wrote and shared stays) and brings them back, makes and unmakes administrators (never
/// the last active one), and hands a deactivated owner's workspace to another member. Every
/// action is written to the security log in its own transaction. The operator's commands
/// (`wsx-web user deactivate …`) call the same methods.
struct AccountAdministration: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// One account as the accounts page lists it.
    struct Account: Sendable {
        let id: Int64
        let email: String
        let nickname: String
        let isAdmin: Bool
        let deactivatedAt: Date?
        let lastSeenAt: Date?
        let createdAt: Date
        let workspaces: Int
        let twoStep: Bool
        let hasPassword: Bool
    }

    /// One workspace as the administrators' list shows it.
    struct WorkspaceSummary: Sendable {
        let id: Int64
        let name: String
        let ownerId: Int64
        let ownerNickname: String
        let ownerEmail: String
        let ownerDeactivated: Bool
        let members: Int
        let messages: Int
        let fileBytes: Int64
        /// Active members who could take it over (everyone but the owner).
        let successors: [(id: Int64, nickname: String)]
    }

    /// Accounts whose address or nickname contains `search` (all when empty), newest first.
    func accounts(search: String = "", limit: Int = 200) throws -> [Account] {
        let pattern = ContainsPattern.of(search.cleanedLine.lowercased())
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT users.*, (SELECT COUNT(*) FROM workspace_members WHERE user_id = users.id) AS workspace_count
                FROM users
                WHERE users.email_key LIKE ? ESCAPE '\\' OR lower(users.nickname) LIKE ? ESCAPE '\\'
                ORDER BY users.deactivated_at IS NOT NULL, users.id DESC LIMIT ?
                """, arguments: [pattern, pattern, limit]).map { row in
                Account(id: row["id"], email: row["email"], nickname: row["nickname"], isAdmin: row["is_admin"],
                        deactivatedAt: row["deactivated_at"], lastSeenAt: row["last_seen_at"], createdAt: row["created_at"],
                        workspaces: row["workspace_count"], twoStep: (row["totp_enabled_at"] as Date?) != nil,
                        hasPassword: !(row["password_hash"] as String).isEmpty)
            }
        }
    }

    /// Every workspace with its owner and size.
    func workspaces() throws -> [WorkspaceSummary] {
        try database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT workspaces.id, workspaces.name, workspaces.owner_id, owner.nickname AS owner_nickname,
                       owner.email AS owner_email, owner.deactivated_at AS owner_deactivated,
                       (SELECT COUNT(*) FROM workspace_members WHERE workspace_id = workspaces.id) AS member_count,
                       (SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = messages.room_id
                        WHERE rooms.workspace_id = workspaces.id AND messages.deleted_at IS NULL) AS message_count,
                       (SELECT COALESCE(SUM(files.size), 0) FROM files WHERE files.id IN (
                            SELECT message_files.file_id FROM message_files JOIN messages ON messages.id = message_files.message_id
                            JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = workspaces.id)) AS file_bytes
                FROM workspaces JOIN users AS owner ON owner.id = workspaces.owner_id
                ORDER BY owner.deactivated_at IS NULL, workspaces.id
                """)
            return try rows.map { row in
                let id: Int64 = row["id"], ownerId: Int64 = row["owner_id"]
                let successors = try Row.fetchAll(db, sql: """
                    SELECT users.id, users.nickname FROM workspace_members JOIN users ON users.id = workspace_members.user_id
                    WHERE workspace_members.workspace_id = ? AND users.id <> ? AND users.deactivated_at IS NULL
                      AND users.password_hash <> '' ORDER BY users.nickname LIMIT 500
                    """, arguments: [id, ownerId]).map { (id: $0["id"] as Int64, nickname: $0["nickname"] as String) }
                return WorkspaceSummary(id: id, name: row["name"], ownerId: ownerId, ownerNickname: row["owner_nickname"],
                                        ownerEmail: row["owner_email"], ownerDeactivated: (row["owner_deactivated"] as Date?) != nil,
                                        members: row["member_count"], messages: row["message_count"], fileBytes: row["file_bytes"],
                                        successors: successors)
            }
        }
    }

    /// Deactivates `userId`: sessions deleted (their streams close at once), reset and
    /// confirmation links void; nothing they wrote or shared is touched.
    func deactivate(userId: Int64, by actor: Int64?, address: String = "") async throws {
        let now = clock.now(), outbox = database.outbox
        try await database.writer.write { db in
            guard let user = try User.fetchOne(db, key: userId) else { throw AccountError.noSuchUser }
            guard user.isActive else { return }
            if user.isAdmin { try Self.requireAnotherActiveAdmin(db, besides: userId) }
            try db.execute(sql: "UPDATE users SET deactivated_at = ?, updated_at = ? WHERE id = ?", arguments: [now, now, userId])
            try Self.endSessions(db, userId: userId, reason: "deactivated", outbox: outbox)
            try db.execute(sql: "DELETE FROM password_resets WHERE user_id = ?", arguments: [userId])
            try db.execute(sql: "DELETE FROM email_confirmations WHERE user_id = ?", arguments: [userId])
            try SecurityLog.record(db, .deactivated, actor: actor, target: userId, address: address, at: now)
        }
    }

    /// Lets a deactivated account sign in again.
    func reactivate(userId: Int64, by actor: Int64?, address: String = "") async throws {
        let now = clock.now()
        try await database.writer.write { db in
            guard let user = try User.fetchOne(db, key: userId) else { throw AccountError.noSuchUser }
            guard !user.isActive else { return }
            try db.execute(sql: "UPDATE users SET deactivated_at = NULL, updated_at = ? WHERE id = ?", arguments: [now, userId])
            try SecurityLog.record(db, .reactivated, actor: actor, target: userId, address: address, at: now)
        }
    }

    /// Makes `userId` a server administrator, or not; the last active one stays one.
    func setAdministrator(userId: Int64, _ admin: Bool, by actor: Int64?, address: String = "") async throws {
        let now = clock.now()
        try await database.writer.write { db in
            guard let user = try User.fetchOne(db, key: userId) else { throw AccountError.noSuchUser }
            guard user.isAdmin != admin else { return }
            if admin {
                guard user.isActive else { throw AppError.conflict("error_admin_deactivated") }
            } else {
                try Self.requireAnotherActiveAdmin(db, besides: userId)
            }
            try db.execute(sql: "UPDATE users SET is_admin = ?, updated_at = ? WHERE id = ?", arguments: [admin, now, userId])
            try SecurityLog.record(db, admin ? .promoted : .demoted, actor: actor, target: userId, address: address, at: now)
        }
    }

    /// Gives a workspace whose owner was deactivated to one of its active members.
    func handOver(workspaceId: Int64, to newOwnerId: Int64, by actor: Int64, address: String = "") async throws {
        let now = clock.now(), outbox = database.outbox
        try await database.writer.write { db in
            guard let workspace = try Workspace.fetchOne(db, key: workspaceId) else { throw AppError.notFound }
            guard let owner = try User.fetchOne(db, key: workspace.ownerId), !owner.isActive else {
                throw AppError.conflict("error_handover_owner_active")
            }
            guard let successor = try User.fetchOne(db, key: newOwnerId), successor.isActive else {
                throw AppError.conflict("error_transfer_not_member")
            }
            try WorkspaceService.handOver(db, workspace, to: newOwnerId, actor: actor, at: now, outbox: outbox)
            try SecurityLog.record(db, .workspaceHandedOver, actor: actor, target: newOwnerId, workspaceId: workspaceId,
                                   address: address, detail: workspace.name, at: now)
        }
    }

    /// Counts the account's address as confirmed (the operator vouches for it, as for accounts
    /// they make): invitations to it show on its workspaces page.
    func confirmAddress(userId: Int64, by actor: Int64?) async throws {
        let now = clock.now()
        try await database.writer.write { db in
            guard let user = try User.fetchOne(db, key: userId) else { throw AccountError.noSuchUser }
            guard user.emailConfirmedAt == nil else { return }
            try db.execute(sql: "UPDATE users SET email_confirmed_at = ? WHERE id = ?", arguments: [now, userId])
            try SecurityLog.record(db, .emailConfirmed, actor: actor, target: userId, email: user.email, detail: "operator", at: now)
        }
    }

    /// The account with this address, for the operator's commands.
    func account(email: String) throws -> User? {
        let key = User.key(forEmail: email.cleanedLine)
        return try database.read { db in try User.filter(User.CodingKeys.emailKey == key).fetchOne(db) }
    }

    /// Deletes every session of `userId` and closes their event streams, in the caller's transaction.
    static func endSessions(_ db: Database, userId: Int64, reason: String, outbox: EventOutbox) throws {
        let sessions = Session.filter(Session.CodingKeys.userId == userId)
        let ended = try sessions.select(Session.CodingKeys.id, as: Int64.self).fetchAll(db)
        try sessions.deleteAll(db)
        try outbox.publish(OutgoingEvent(.sessionRevoked, to: .user(userId),
                                         payload: SessionRevokedPayload(userId: userId, reason: reason),
                                         closesSessions: ended), in: db)
    }

    /// Refuses when `userId` is the only active administrator.
    private static func requireAnotherActiveAdmin(_ db: Database, besides userId: Int64) throws {
        let others = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users WHERE is_admin = 1 AND deactivated_at IS NULL AND id <> ?",
                                      arguments: [userId]) ?? 0
        guard others > 0 else { throw AppError.conflict("error_last_admin") }
    }
}
