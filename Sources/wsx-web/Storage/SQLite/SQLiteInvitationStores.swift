import Foundation
import GRDB

/// `InvitationStore` on SQLite: `invites` and `join_links`.
struct SQLiteInvitationStore: InvitationStore {
    let db: Database

    func invite(id: Int64) throws -> Invite? {
        try Invite.fetchOne(db, key: id)
    }

    func invite(tokenHash: String) throws -> Invite? {
        try Invite.filter(Invite.CodingKeys.tokenHash == tokenHash).fetchOne(db)
    }

    func pending(workspaceId: Int64, emailKey: String, now: Date) throws -> Invite? {
        try Invite.filter(Invite.CodingKeys.workspaceId == workspaceId && Invite.CodingKeys.emailKey == emailKey
                          && Invite.CodingKeys.usedAt == nil && Invite.CodingKeys.declinedAt == nil && Invite.CodingKeys.revokedAt == nil
                          && Invite.CodingKeys.expiresAt > now)
            .order(Invite.CodingKeys.id.desc).fetchOne(db)
    }

    func insert(_ invite: Invite) throws -> Invite {
        try invite.inserted(db)
    }

    func saveExpiry(of invite: Invite) throws {
        try invite.update(db, columns: [Invite.CodingKeys.expiresAt])
    }

    func markUsed(id: Int64, at now: Date) throws {
        try Invite.filter(key: id).updateAll(db, Invite.CodingKeys.usedAt.set(to: now))
    }

    func markDeclined(id: Int64, at now: Date) throws {
        try Invite.filter(key: id).updateAll(db, Invite.CodingKeys.declinedAt.set(to: now))
    }

    func markRevoked(id: Int64, at now: Date) throws {
        try Invite.filter(key: id).updateAll(db, Invite.CodingKeys.revokedAt.set(to: now))
    }

    func received(emailKey: String, userId: Int64?, now: Date) throws -> [ReceivedInvitation] {
        try Row.fetchAll(db, sql: """
            SELECT invites.*, workspaces.name AS workspace_name, users.nickname AS inviter
            FROM invites JOIN workspaces ON workspaces.id = invites.workspace_id JOIN users ON users.id = invites.invited_by
            WHERE invites.email_key = ? AND invites.used_at IS NULL AND invites.declined_at IS NULL AND invites.revoked_at IS NULL
              AND invites.expires_at > ?
              AND invites.token_nonce IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = invites.workspace_id AND user_id = ?)
            ORDER BY invites.id DESC
            """, arguments: [emailKey, now, userId]).map { row in
            ReceivedInvitation(id: row["id"], workspaceName: row["workspace_name"], inviterNickname: row["inviter"],
                               tokenNonce: row["token_nonce"], expiresAt: row["expires_at"])
        }
    }

    func sent(workspaceId: Int64, now: Date) throws -> [SentInvitation] {
        try Row.fetchAll(db, sql: """
            SELECT invites.id, invites.email, invites.token_nonce, invites.expires_at, COALESCE(users.nickname, '') AS inviter
            FROM invites LEFT JOIN users ON users.id = invites.invited_by
            WHERE invites.workspace_id = ? AND invites.used_at IS NULL AND invites.declined_at IS NULL
              AND invites.revoked_at IS NULL AND invites.expires_at > ? AND invites.token_nonce IS NOT NULL
            ORDER BY invites.id DESC LIMIT 200
            """, arguments: [workspaceId, now]).map { row in
            SentInvitation(id: row["id"], email: row["email"], inviterNickname: row["inviter"],
                           tokenNonce: row["token_nonce"], expiresAt: row["expires_at"])
        }
    }

    func joinLink(workspaceId: Int64) throws -> StoredJoinLink? {
        try Row.fetchOne(db, sql: "SELECT token_nonce, expires_at, max_uses, uses FROM join_links WHERE workspace_id = ?",
                         arguments: [workspaceId]).map { row in Self.storedLink(row, workspaceId: workspaceId) }
    }

    func joinLink(tokenHash: String) throws -> (link: StoredJoinLink, creatorNickname: String)? {
        guard let row = try Row.fetchOne(db, sql: """
                SELECT join_links.*, COALESCE(users.nickname, '') AS creator FROM join_links
                LEFT JOIN users ON users.id = join_links.created_by WHERE token_hash = ?
                """, arguments: [tokenHash]) else { return nil }
        let workspaceId: Int64 = row["workspace_id"]
        let creator: String = row["creator"]
        return (link: Self.storedLink(row, workspaceId: workspaceId), creatorNickname: creator)
    }

    func resetJoinLink(workspaceId: Int64, tokenHash: String, nonce: String, expiresAt: Date?, maxUses: Int?,
                       createdBy: Int64, at now: Date) throws {
        try db.execute(sql: """
            INSERT INTO join_links (workspace_id, token_hash, token_nonce, expires_at, max_uses, uses, created_by, created_at)
            VALUES (?, ?, ?, ?, ?, 0, ?, ?)
            ON CONFLICT (workspace_id) DO UPDATE SET token_hash = excluded.token_hash, token_nonce = excluded.token_nonce,
                expires_at = excluded.expires_at, max_uses = excluded.max_uses, uses = 0, created_by = excluded.created_by,
                created_at = excluded.created_at
            """, arguments: [workspaceId, tokenHash, nonce, expiresAt, maxUses, createdBy, now])
    }

    func removeJoinLink(workspaceId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM join_links WHERE workspace_id = ?", arguments: [workspaceId])
        return db.changesCount > 0
    }

    func countJoinLinkUse(workspaceId: Int64) throws {
        try db.execute(sql: "UPDATE join_links SET uses = uses + 1 WHERE workspace_id = ?", arguments: [workspaceId])
    }

    private static func storedLink(_ row: Row, workspaceId: Int64) -> StoredJoinLink {
        StoredJoinLink(workspaceId: workspaceId, nonce: row["token_nonce"], expiresAt: row["expires_at"],
                       maxUses: row["max_uses"], uses: row["uses"])
    }
}

/// `MembershipStore` on SQLite: `workspace_members`, and the rooms a member joins or leaves with
/// the workspace (`RoomMembership`, `DirectRooms`).
struct SQLiteMembershipStore: MembershipStore {
    let db: Database
    /// Where a join's or a removal's events go; nil in a read, which can make neither.
    let outbox: EventOutbox?

    func workspace(id: Int64) throws -> Workspace? {
        try Workspace.fetchOne(db, key: id)
    }

    func user(id: Int64) throws -> User? {
        try User.fetchOne(db, key: id)
    }

    func user(emailKey: String) throws -> User? {
        try User.filter(User.CodingKeys.emailKey == emailKey).fetchOne(db)
    }

    func nickname(userId: Int64) throws -> String? {
        try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = ?", arguments: [userId])
    }

    func isMember(workspaceId: Int64, userId: Int64) throws -> Bool {
        try WorkspaceMember.fetchOne(db, key: ["workspace_id": workspaceId, "user_id": userId]) != nil
    }

    func members(workspaceId: Int64) throws -> [MembershipService.Member] {
        try MembershipService.Member.fetchAll(db, sql: """
            SELECT users.id, users.nickname, users.email, workspace_members.role, workspace_members.joined_at,
                   users.avatar_file_id
            FROM workspace_members JOIN users ON users.id = workspace_members.user_id
            WHERE workspace_members.workspace_id = ?
            ORDER BY workspace_members.role = 'owner' DESC, users.nickname, users.id
            """, arguments: [workspaceId])
    }

    func join(workspace: Workspace, user: User, at now: Date) throws {
        let tx = try writing()
        try WorkspaceMember(workspaceId: workspace.id!, userId: user.id!, role: .member, joinedAt: now).insert(db)
        try WorkspaceMembershipSteps.joined(tx, workspace: workspace, user: user, at: now)
    }

    func remove(workspace: Workspace, userId: Int64, at now: Date) throws {
        let tx = try writing()
        let rooms = try Room.fetchAll(db, sql: """
            SELECT rooms.* FROM rooms JOIN room_members ON room_members.room_id = rooms.id
            WHERE rooms.workspace_id = ? AND room_members.user_id = ?
            """, arguments: [workspace.id!, userId])
        try WorkspaceMembershipSteps.leaving(tx, workspace: workspace, userId: userId, rooms: rooms)
        // Channels they owned pass to the workspace owner.
        try db.execute(sql: "UPDATE rooms SET owner_id = ? WHERE workspace_id = ? AND owner_id = ? AND kind = 'channel'",
                       arguments: [workspace.ownerId, workspace.id!, userId])
        try WorkspaceMember.deleteOne(db, key: ["workspace_id": workspace.id!, "user_id": userId])
    }

    /// This transaction, in a write; a read refuses a change, as `SQLiteTransaction.publish` does.
    private func writing() throws -> SQLiteTransaction {
        guard let outbox else { throw DatabaseError(resultCode: .SQLITE_READONLY, message: "a membership changed in a read") }
        return SQLiteTransaction(db, outbox: outbox)
    }
}

extension MembershipService.Member: FetchableRecord {}
