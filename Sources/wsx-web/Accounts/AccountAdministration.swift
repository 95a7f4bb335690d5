import Foundation

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
        return try database.query { tx in try tx.accounts.accounts(matching: pattern, limit: limit) }
    }

    /// Every workspace with its owner and size.
    func workspaces() throws -> [WorkspaceSummary] {
        try database.query { tx in try tx.workspaces.overview() }
    }

    /// Deactivates `userId`: sessions deleted (their streams close at once), reset and
    /// confirmation links void; nothing they wrote or shared is touched.
    func deactivate(userId: Int64, by actor: Int64?, address: String = "") async throws {
        let now = clock.now()
        try await database.write { tx in
            guard let user = try tx.accounts.user(id: userId) else { throw AccountError.noSuchUser }
            guard user.isActive else { return }
            if user.isAdmin { try Self.requireAnotherActiveAdmin(tx, besides: userId) }
            try tx.accounts.deactivate(userId: userId, at: now)
            try Self.endSessions(tx, userId: userId, reason: "deactivated")
            try tx.passwordResets.removeAll(userId: userId)
            try tx.emailConfirmations.removeAll(userId: userId)
            try tx.securityLog.record(.deactivated, actor: actor, target: userId, address: address, at: now)
        }
    }

    /// Lets a deactivated account sign in again.
    func reactivate(userId: Int64, by actor: Int64?, address: String = "") async throws {
        let now = clock.now()
        try await database.write { tx in
            guard let user = try tx.accounts.user(id: userId) else { throw AccountError.noSuchUser }
            guard !user.isActive else { return }
            try tx.accounts.reactivate(userId: userId, at: now)
            try tx.securityLog.record(.reactivated, actor: actor, target: userId, address: address, at: now)
        }
    }

    /// Makes `userId` a server administrator, or not; the last active one stays one.
    func setAdministrator(userId: Int64, _ admin: Bool, by actor: Int64?, address: String = "") async throws {
        let now = clock.now()
        try await database.write { tx in
            guard let user = try tx.accounts.user(id: userId) else { throw AccountError.noSuchUser }
            guard user.isAdmin != admin else { return }
            if admin {
                guard user.isActive else { throw AppError.conflict("error_admin_deactivated") }
            } else {
                try Self.requireAnotherActiveAdmin(tx, besides: userId)
            }
            try tx.accounts.setAdministrator(admin, userId: userId, at: now)
            try tx.securityLog.record(admin ? .promoted : .demoted, actor: actor, target: userId, address: address, at: now)
        }
    }

    /// Gives a workspace whose owner was deactivated to one of its active members.
    func handOver(workspaceId: Int64, to newOwnerId: Int64, by actor: Int64, address: String = "") async throws {
        let now = clock.now(), membership = RoomMembership()
        try await database.write { tx in
            guard let workspace = try tx.workspaces.workspace(id: workspaceId) else { throw AppError.notFound }
            guard let owner = try tx.accounts.user(id: workspace.ownerId), !owner.isActive else {
                throw AppError.conflict("error_handover_owner_active")
            }
            guard let successor = try tx.accounts.user(id: newOwnerId), successor.isActive else {
                throw AppError.conflict("error_transfer_not_member")
            }
            try WorkspaceService.handOver(tx, workspace, to: newOwnerId, actor: actor, at: now, membership: membership)
            try tx.securityLog.record(.workspaceHandedOver, actor: actor, target: newOwnerId, workspaceId: workspaceId,
                                      address: address, detail: workspace.name, at: now)
        }
    }

    /// Counts the account's address as confirmed (the operator vouches for it, as for accounts
    /// they make): invitations to it show on its workspaces page.
    func confirmAddress(userId: Int64, by actor: Int64?) async throws {
        let now = clock.now()
        try await database.write { tx in
            guard let user = try tx.accounts.user(id: userId) else { throw AccountError.noSuchUser }
            guard user.emailConfirmedAt == nil else { return }
            try tx.accounts.confirmEmail(userId: userId, at: now)
            try tx.securityLog.record(.emailConfirmed, actor: actor, target: userId, email: user.email, detail: "operator", at: now)
        }
    }

    /// The account with this address, for the operator's commands.
    func account(email: String) throws -> User? {
        let key = User.key(forEmail: email.cleanedLine)
        return try database.query { tx in try tx.accounts.user(emailKey: key) }
    }

    /// Deletes every session of `userId` and closes their event streams, in the caller's
    /// transaction; the apps' sign-ins (`/v1`) end with them.
    static func endSessions(_ tx: any StoreTransaction, userId: Int64, reason: String) throws {
        try tx.appSessions.deleteAll(userId: userId)
        let ended = try tx.sessions.deleteAll(userId: userId)
        try tx.publish(OutgoingEvent(.sessionRevoked, to: .user(userId),
                                     payload: SessionRevokedPayload(userId: userId, reason: reason),
                                     closesSessions: ended))
    }

    /// Refuses when `userId` is the only active administrator.
    private static func requireAnotherActiveAdmin(_ tx: any StoreTransaction, besides userId: Int64) throws {
        let others = try tx.accounts.otherActiveAdministrators(besides: userId)
        guard others > 0 else { throw AppError.conflict("error_last_admin") }
    }
}
