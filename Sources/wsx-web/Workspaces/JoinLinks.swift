import Foundation

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
        return try database.query { tx in
            try tx.invitations.joinLink(workspaceId: access.workspaceId).map { Self.link($0, key: key) }
        }
    }

    /// Makes the link anew (owner): `lifetime` nil never expires, `maxUses` nil has no limit.
    func reset(_ access: WorkspaceAccess, lifetime: TimeInterval?, maxUses: Int?) async throws -> Link {
        try access.requireOwner()
        let now = clock.now()
        let nonce = SecretToken.generate()
        let token = key.code("join", nonce)
        let expiresAt = lifetime.map { now.addingTimeInterval($0) }
        try await database.write { tx in
            try tx.invitations.resetJoinLink(workspaceId: access.workspaceId, tokenHash: SecretToken.hash(token), nonce: nonce,
                                             expiresAt: expiresAt, maxUses: maxUses, createdBy: access.userId, at: now)
            try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "join_link.reset",
                                targetUser: nil, targetRoom: nil, detail: "", at: now)
        }
        return Link(token: token, expiresAt: expiresAt, maxUses: maxUses, uses: 0)
    }

    /// Turns the link off (owner).
    func disable(_ access: WorkspaceAccess) async throws {
        try access.requireOwner()
        let now = clock.now()
        try await database.write { tx in
            if try tx.invitations.removeJoinLink(workspaceId: access.workspaceId) {
                try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "join_link.disable",
                                    targetUser: nil, targetRoom: nil, detail: "", at: now)
            }
        }
    }

    /// The link behind `token`, while it can still be used.
    func find(token: String) throws -> Found? {
        let now = clock.now(), key = self.key
        return try database.query { tx in try Self.usable(tx, token: token, now: now, key: key) }
    }

    /// Joins `userId` to the link's workspace, counting one use; someone already in it just
    /// goes there. A link expired or used up meanwhile (two people racing for the last use) is
    /// a 404 and nothing changes.
    func join(token: String, userId: Int64) async throws -> Workspace {
        let now = clock.now(), key = self.key
        return try await database.write { tx in
            guard let found = try Self.usable(tx, token: token, now: now, key: key),
                  let user = try tx.memberships.user(id: userId) else {
                throw AppError.notFound("join_link_invalid")
            }
            let workspace = found.workspace
            if try tx.memberships.isMember(workspaceId: workspace.id!, userId: userId) { return workspace }
            try tx.invitations.countJoinLinkUse(workspaceId: workspace.id!)
            try tx.memberships.join(workspace: workspace, user: user, at: now)
            try tx.audit.record(workspaceId: workspace.id!, actor: userId, action: "member.join", targetUser: userId,
                                targetRoom: nil, detail: "link", at: now)
            return workspace
        }
    }

    private static func usable(_ tx: any StoreTransaction, token: String, now: Date, key: ServerKey) throws -> Found? {
        guard let stored = try tx.invitations.joinLink(tokenHash: SecretToken.hash(token)) else { return nil }
        let link = Self.link(stored.link, key: key)
        if let expiresAt = link.expiresAt, expiresAt <= now { return nil }
        if let maxUses = link.maxUses, link.uses >= maxUses { return nil }
        guard let workspace = try tx.memberships.workspace(id: stored.link.workspaceId) else { return nil }
        return Found(workspace: workspace, creatorNickname: stored.creatorNickname, link: link)
    }

    private static func link(_ stored: StoredJoinLink, key: ServerKey) -> Link {
        Link(token: key.code("join", stored.nonce), expiresAt: stored.expiresAt, maxUses: stored.maxUses, uses: stored.uses)
    }
}
