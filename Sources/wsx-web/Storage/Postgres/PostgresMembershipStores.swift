import Foundation
import PostgresNIO

/// `MembershipStore` on PostgreSQL: `workspace_members`, with the steps every backend takes
/// when someone joins or leaves (`WorkspaceMembershipSteps`) in the same transaction.
struct PostgresMembershipStore: MembershipStore {
    let tx: PostgresTransaction
    private var session: PostgresSession { tx.session }

    func workspace(id: Int64) throws -> Workspace? {
        try session.run("SELECT \(unescaped: Workspace.postgresColumns) FROM workspaces WHERE id = \(id)").first.map(Workspace.init(postgres:))
    }

    func user(id: Int64) throws -> User? {
        try PostgresAccountStore(session: session).user(id: id)
    }

    func user(emailKey: String) throws -> User? {
        try PostgresAccountStore(session: session).user(emailKey: emailKey)
    }

    func nickname(userId: Int64) throws -> String? {
        try session.run("SELECT nickname FROM users WHERE id = \(userId)").first?.decode(String.self)
    }

    func isMember(workspaceId: Int64, userId: Int64) throws -> Bool {
        try !session.run("SELECT 1 FROM workspace_members WHERE workspace_id = \(workspaceId) AND user_id = \(userId)").isEmpty
    }

    func members(workspaceId: Int64) throws -> [MembershipService.Member] {
        // Nicknames in byte order, as SQLite compares them.
        try session.run("""
            SELECT users.id, users.nickname, users.email, workspace_members.role, workspace_members.joined_at, users.avatar_file_id
            FROM workspace_members JOIN users ON users.id = workspace_members.user_id
            WHERE workspace_members.workspace_id = \(workspaceId)
            ORDER BY workspace_members.role = 'owner' DESC, users.nickname COLLATE "C", users.id
            """).map { row in
            let (id, nickname, email, role, joinedAt, avatarFileId) = try row.decode((Int64, String, String, String, Date, Int64?).self)
            guard let role = WorkspaceRole(rawValue: role) else { throw PostgresUnknownValue(column: "workspace_members.role", value: role) }
            return MembershipService.Member(id: id, nickname: nickname, email: email, role: role, joinedAt: joinedAt, avatarFileId: avatarFileId)
        }
    }

    func join(workspace: Workspace, user: User, at now: Date) throws {
        try writing()
        try session.run("""
            INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (\(workspace.id!), \(user.id!), 'member', \(now))
            """)
        try WorkspaceMembershipSteps.joined(tx, workspace: workspace, user: user, at: now)
    }

    func remove(workspace: Workspace, userId: Int64, at now: Date) throws {
        try writing()
        let rooms = try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms JOIN room_members ON room_members.room_id = rooms.id
            WHERE rooms.workspace_id = \(workspace.id!) AND room_members.user_id = \(userId) ORDER BY rooms.id
            """).map(Room.init(postgres:))
        try WorkspaceMembershipSteps.leaving(tx, workspace: workspace, userId: userId, rooms: rooms)
        // Channels they owned pass to the workspace owner.
        try session.run("""
            UPDATE rooms SET owner_id = \(workspace.ownerId) WHERE workspace_id = \(workspace.id!) AND owner_id = \(userId) AND kind = 'channel'
            """)
        try session.run("DELETE FROM workspace_members WHERE workspace_id = \(workspace.id!) AND user_id = \(userId)")
    }

    /// A read refuses a change, as `PostgresTransaction.publish` does.
    private func writing() throws {
        guard tx.published != nil else { throw PostgresTransaction.PublishedInRead() }
    }
}

/// `EmailConfirmationStore` on PostgreSQL: `email_confirmations`, and the mail queue for the link.
struct PostgresEmailConfirmationStore: EmailConfirmationStore {
    let session: PostgresSession

    func replace(userId: Int64, tokenHash: String, emailKey: String, at now: Date, expiresAt: Date) throws {
        try removeAll(userId: userId)
        try session.run("""
            INSERT INTO email_confirmations (token_hash, user_id, email_key, created_at, expires_at)
            VALUES (\(tokenHash), \(userId), \(emailKey), \(now), \(expiresAt))
            """)
    }

    func queueMail(to recipient: String, message: String, at now: Date) throws {
        try PostgresMailQueueStore(session: session).enqueue(kind: .emailConfirmation, recipient: recipient, workspaceId: nil,
                                                             message: message, at: now)
    }

    func live(tokenHash: String, at now: Date) throws -> EmailConfirmationLink? {
        try session.run("""
            SELECT id, user_id, email_key FROM email_confirmations
            WHERE token_hash = \(tokenHash) AND used_at IS NULL AND expires_at > \(now)
            """).first.map { row in
            let (id, userId, emailKey) = try row.decode((Int64, Int64, String).self)
            return EmailConfirmationLink(id: id, userId: userId, emailKey: emailKey)
        }
    }

    func markUsed(id: Int64, at now: Date) throws {
        try session.run("UPDATE email_confirmations SET used_at = \(now) WHERE id = \(id)")
    }

    func removeAll(userId: Int64) throws {
        try session.run("DELETE FROM email_confirmations WHERE user_id = \(userId)")
    }
}
