import Foundation
import PostgresNIO

/// `InvitationStore` on PostgreSQL: `invites` and `join_links`.
struct PostgresInvitationStore: InvitationStore {
    let session: PostgresSession

    private static let columns = """
        id, workspace_id, email, email_key, token_hash, token_nonce, invited_by, created_at, expires_at, used_at, declined_at,
        revoked_at, claims_account
        """
    /// What a pending invitation also is: neither used, declined nor revoked (each query adds
    /// that it has not expired).
    private static let open = "invites.used_at IS NULL AND invites.declined_at IS NULL AND invites.revoked_at IS NULL"

    func invite(id: Int64) throws -> Invite? {
        try session.run("SELECT \(unescaped: Self.columns) FROM invites WHERE id = \(id)").first.map(Self.invite)
    }

    func invite(tokenHash: String) throws -> Invite? {
        try session.run("SELECT \(unescaped: Self.columns) FROM invites WHERE token_hash = \(tokenHash)").first.map(Self.invite)
    }

    func pending(workspaceId: Int64, emailKey: String, now: Date) throws -> Invite? {
        try session.run("""
            SELECT \(unescaped: Self.columns) FROM invites
            WHERE workspace_id = \(workspaceId) AND email_key = \(emailKey) AND \(unescaped: Self.open) AND expires_at > \(now)
            ORDER BY id DESC LIMIT 1
            """).first.map(Self.invite)
    }

    func insert(_ invite: Invite) throws -> Invite {
        let rows = try session.run("""
            INSERT INTO invites (workspace_id, email, email_key, token_hash, token_nonce, invited_by, created_at, expires_at,
                                 used_at, declined_at, revoked_at, claims_account)
            VALUES (\(invite.workspaceId), \(invite.email), \(invite.emailKey), \(invite.tokenHash), \(invite.tokenNonce),
                    \(invite.invitedBy), \(invite.createdAt), \(invite.expiresAt), \(invite.usedAt), \(invite.declinedAt),
                    \(invite.revokedAt), \(invite.claimsAccount))
            RETURNING id
            """)
        var inserted = invite
        inserted.id = try rows.first?.decode(Int64.self)
        return inserted
    }

    func saveExpiry(of invite: Invite) throws {
        try session.run("UPDATE invites SET expires_at = \(invite.expiresAt) WHERE id = \(invite.id)")
    }

    func markUsed(id: Int64, at now: Date) throws {
        try session.run("UPDATE invites SET used_at = \(now) WHERE id = \(id)")
    }

    func markDeclined(id: Int64, at now: Date) throws {
        try session.run("UPDATE invites SET declined_at = \(now) WHERE id = \(id)")
    }

    func markRevoked(id: Int64, at now: Date) throws {
        try session.run("UPDATE invites SET revoked_at = \(now) WHERE id = \(id)")
    }

    func received(emailKey: String, userId: Int64?, now: Date) throws -> [ReceivedInvitation] {
        try session.run("""
            SELECT invites.id, workspaces.name, users.nickname, invites.token_nonce, invites.expires_at
            FROM invites JOIN workspaces ON workspaces.id = invites.workspace_id JOIN users ON users.id = invites.invited_by
            WHERE invites.email_key = \(emailKey) AND \(unescaped: Self.open) AND invites.expires_at > \(now)
              AND invites.token_nonce IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM workspace_members
                              WHERE workspace_id = invites.workspace_id AND user_id = \(userId))
            ORDER BY invites.id DESC
            """).map { row in
            let (id, workspaceName, inviter, nonce, expiresAt) = try row.decode((Int64, String, String, String, Date).self)
            return ReceivedInvitation(id: id, workspaceName: workspaceName, inviterNickname: inviter, tokenNonce: nonce,
                                      expiresAt: expiresAt)
        }
    }

    func sent(workspaceId: Int64, now: Date) throws -> [SentInvitation] {
        try session.run("""
            SELECT invites.id, invites.email, COALESCE(users.nickname, ''), invites.token_nonce, invites.expires_at
            FROM invites LEFT JOIN users ON users.id = invites.invited_by
            WHERE invites.workspace_id = \(workspaceId) AND \(unescaped: Self.open) AND invites.expires_at > \(now)
              AND invites.token_nonce IS NOT NULL
            ORDER BY invites.id DESC LIMIT 200
            """).map { row in
            let (id, email, inviter, nonce, expiresAt) = try row.decode((Int64, String, String, String, Date).self)
            return SentInvitation(id: id, email: email, inviterNickname: inviter, tokenNonce: nonce, expiresAt: expiresAt)
        }
    }

    func joinLink(workspaceId: Int64) throws -> StoredJoinLink? {
        try session.run("""
            SELECT workspace_id, token_nonce, expires_at, max_uses, uses FROM join_links WHERE workspace_id = \(workspaceId)
            """).first.map(Self.joinLink)
    }

    func joinLink(tokenHash: String) throws -> (link: StoredJoinLink, creatorNickname: String)? {
        guard let row = try session.run("""
                SELECT join_links.workspace_id, join_links.token_nonce, join_links.expires_at, join_links.max_uses, join_links.uses,
                       COALESCE(users.nickname, '')
                FROM join_links LEFT JOIN users ON users.id = join_links.created_by
                WHERE join_links.token_hash = \(tokenHash)
                """).first else { return nil }
        return (link: try Self.joinLink(row), creatorNickname: try row.makeRandomAccess()[5].decode(String.self))
    }

    func resetJoinLink(workspaceId: Int64, tokenHash: String, nonce: String, expiresAt: Date?, maxUses: Int?,
                       createdBy: Int64, at now: Date) throws {
        try session.run("""
            INSERT INTO join_links (workspace_id, token_hash, token_nonce, expires_at, max_uses, uses, created_by, created_at)
            VALUES (\(workspaceId), \(tokenHash), \(nonce), \(expiresAt), \(maxUses), 0, \(createdBy), \(now))
            ON CONFLICT (workspace_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, token_nonce = EXCLUDED.token_nonce,
                expires_at = EXCLUDED.expires_at, max_uses = EXCLUDED.max_uses, uses = 0, created_by = EXCLUDED.created_by,
                created_at = EXCLUDED.created_at
            """)
    }

    func removeJoinLink(workspaceId: Int64) throws -> Bool {
        try !session.run("DELETE FROM join_links WHERE workspace_id = \(workspaceId) RETURNING workspace_id").isEmpty
    }

    func countJoinLinkUse(workspaceId: Int64) throws {
        try session.run("UPDATE join_links SET uses = uses + 1 WHERE workspace_id = \(workspaceId)")
    }

    private static func invite(_ row: PostgresRow) throws -> Invite {
        let cells = row.makeRandomAccess()
        return Invite(id: try cells["id"].decode(Int64.self), workspaceId: try cells["workspace_id"].decode(Int64.self),
                      email: try cells["email"].decode(String.self), emailKey: try cells["email_key"].decode(String.self),
                      tokenHash: try cells["token_hash"].decode(String.self), tokenNonce: try cells["token_nonce"].decode(String?.self),
                      invitedBy: try cells["invited_by"].decode(Int64.self), createdAt: try cells["created_at"].decode(Date.self),
                      expiresAt: try cells["expires_at"].decode(Date.self), usedAt: try cells["used_at"].decode(Date?.self),
                      declinedAt: try cells["declined_at"].decode(Date?.self), revokedAt: try cells["revoked_at"].decode(Date?.self),
                      claimsAccount: try cells["claims_account"].decode(Bool.self))
    }

    /// A join link from a row starting with workspace_id, token_nonce, expires_at, max_uses, uses.
    private static func joinLink(_ row: PostgresRow) throws -> StoredJoinLink {
        let cells = row.makeRandomAccess()
        return StoredJoinLink(workspaceId: try cells[0].decode(Int64.self), nonce: try cells[1].decode(String.self),
                              expiresAt: try cells[2].decode(Date?.self), maxUses: try cells[3].decode(Int?.self),
                              uses: try cells[4].decode(Int.self))
    }
}
