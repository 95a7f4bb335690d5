import Foundation
import GRDB

/// A workspace's open join link: anyone who has it (and an account) joins with one click,
/// until it expires or has been used `maxUses` times. The owner makes it, resets it (a new
/// token; the old one stops working) or turns it off. Its token is made from a nonce in the row
/// with the server's key, so the owner's page can show it again, while the database alone
/// (which keeps only the token's hash) cannot.
struct JoinLinks: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let key: ServerKey

    /// The link as its owner's page shows it.
    struct Link: Sendable, Equatable {
        let token: String
        let expiresAt: Date?
        let maxUses: Int?
        let uses: Int
    }

    /// A usable link found by its token, with the workspace it opens and who made it.
    struct Found: Sendable {
        let workspace: Workspace
        let creatorNickname: String
        let link: Link
    }

    /// The workspace's link, if it has one (owner).
    func current(_ access: WorkspaceAccess) throws -> Link? {
        try access.requireOwner()
        let key = self.key
        return try database.read { db in
            try Row.fetchOne(db, sql: "SELECT token_nonce, expires_at, max_uses, uses FROM join_links WHERE workspace_id = ?",
                             arguments: [access.workspaceId]).map { Self.link($0, key: key) }
        }
    }

    /// Makes the link anew (owner): `lifetime` nil never expires, `maxUses` nil has no limit.
    func reset(_ access: WorkspaceAccess, lifetime: TimeInterval?, maxUses: Int?) async throws -> Link {
        try access.requireOwner()
        let now = clock.now(), key = self.key
        let nonce = SecretToken.generate()
        let token = key.code("join", nonce)
        let expiresAt = lifetime.map { now.addingTimeInterval($0) }
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO join_links (workspace_id, token_hash, token_nonce, expires_at, max_uses, uses, created_by, created_at)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?)
                ON CONFLICT (workspace_id) DO UPDATE SET token_hash = excluded.token_hash, token_nonce = excluded.token_nonce,
                    expires_at = excluded.expires_at, max_uses = excluded.max_uses, uses = 0, created_by = excluded.created_by,
                    created_at = excluded.created_at
                """, arguments: [access.workspaceId, SecretToken.hash(token), nonce, expiresAt, maxUses, access.userId, now])
            try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "join_link.reset", at: now)
        }
        return Link(token: token, expiresAt: expiresAt, maxUses: maxUses, uses: 0)
    }

    /// Turns the link off (owner).
    func disable(_ access: WorkspaceAccess) async throws {
        try access.requireOwner()
        let now = clock.now()
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM join_links WHERE workspace_id = ?", arguments: [access.workspaceId])
            if db.changesCount > 0 {
                try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "join_link.disable", at: now)
            }
        }
    }

    /// The link behind `token`, while it can still be used.
    func find(token: String) throws -> Found? {
        let now = clock.now(), key = self.key
        return try database.read { db in try Self.usable(db, token: token, now: now, key: key) }
    }

    /// Joins `userId` to the link's workspace, counting one use; someone already in it just
    /// goes there. A link expired or used up meanwhile (two people racing for the last use) is
    /// a 404 and nothing changes.
    func join(token: String, userId: Int64) async throws -> Workspace {
        let now = clock.now(), key = self.key, outbox = database.outbox
        return try await database.writer.write { db in
            guard let found = try Self.usable(db, token: token, now: now, key: key),
                  let user = try User.fetchOne(db, key: userId) else {
                throw AppError.notFound("join_link_invalid")
            }
            let workspace = found.workspace
            if try WorkspaceMember.fetchOne(db, key: ["workspace_id": workspace.id!, "user_id": userId]) != nil { return workspace }
            try db.execute(sql: "UPDATE join_links SET uses = uses + 1 WHERE workspace_id = ?", arguments: [workspace.id!])
            try MembershipService.join(db, workspace: workspace, user: user, at: now, outbox: outbox)
            try AuditTrail.record(db, workspaceId: workspace.id!, actor: userId, action: "member.join", targetUser: userId,
                                  detail: "link", at: now)
            return workspace
        }
    }

    private static func usable(_ db: Database, token: String, now: Date, key: ServerKey) throws -> Found? {
        guard let row = try Row.fetchOne(db, sql: """
                SELECT join_links.*, COALESCE(users.nickname, '') AS creator FROM join_links
                LEFT JOIN users ON users.id = join_links.created_by WHERE token_hash = ?
                """, arguments: [SecretToken.hash(token)]) else { return nil }
        let link = Self.link(row, key: key)
        if let expiresAt = link.expiresAt, expiresAt <= now { return nil }
        if let maxUses = link.maxUses, link.uses >= maxUses { return nil }
        guard let workspace = try Workspace.fetchOne(db, key: row["workspace_id"] as Int64) else { return nil }
        return Found(workspace: workspace, creatorNickname: row["creator"], link: link)
    }

    private static func link(_ row: Row, key: ServerKey) -> Link {
        Link(token: key.code("join", row["token_nonce"] as String), expiresAt: row["expires_at"], maxUses: row["max_uses"],
             uses: row["uses"])
    }
}
