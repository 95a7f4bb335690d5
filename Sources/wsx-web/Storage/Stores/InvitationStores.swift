import Foundation

/// A pending invitation as its person's list shows it, before its link is made from the nonce
/// with the server's key.
struct ReceivedInvitation: Sendable {
    let id: Int64
    let workspaceName: String
    let inviterNickname: String
    /// What the invitation's token is made from with the server's key (`ServerKey`).
    let tokenNonce: String
    let expiresAt: Date
}

/// A pending invitation as its workspace's owner sees it, before its link is made from the nonce
/// with the server's key.
struct SentInvitation: Sendable {
    let id: Int64
    let email: String
    /// Who sent it ("" when their account is gone).
    let inviterNickname: String
    /// What the invitation's token is made from with the server's key (`ServerKey`).
    let tokenNonce: String
    let expiresAt: Date
}

/// A workspace's join link as kept: the nonce its token is made from, and its limits.
struct StoredJoinLink: Sendable {
    let workspaceId: Int64
    /// What the link's token is made from with the server's key (`ServerKey`).
    let nonce: String
    /// nil: it never expires.
    let expiresAt: Date?
    /// nil: no limit.
    let maxUses: Int?
    /// How many joined with it since it was last made.
    let uses: Int
}

/// Invitations to workspaces (`Invite`), and each workspace's join link. Only hashes of their
/// tokens are kept; the tokens are made from the nonces with the server's key, above the store.
protocol InvitationStore {
    /// The invitation with this id, whatever its state.
    func invite(id: Int64) throws -> Invite?
    /// The invitation whose token has this hash, whatever its state.
    func invite(tokenHash: String) throws -> Invite?
    /// The address's newest invitation to the workspace that is still pending at `now` (not
    /// used, declined, revoked or expired).
    func pending(workspaceId: Int64, emailKey: String, now: Date) throws -> Invite?
    /// Writes a new invitation; answers it with its id.
    func insert(_ invite: Invite) throws -> Invite
    /// Writes the invitation's `expiresAt` (the rest stays as kept).
    func saveExpiry(of invite: Invite) throws
    /// Marks the invitation accepted at `now`.
    func markUsed(id: Int64, at now: Date) throws
    /// Marks the invitation declined at `now`.
    func markDeclined(id: Int64, at now: Date) throws
    /// Marks the invitation taken back by the owner at `now`.
    func markRevoked(id: Int64, at now: Date) throws
    /// The invitations pending at `now` for the address, to workspaces the person (`userId`) is
    /// not in yet, newest first, with their workspace's name and who sent them.
    func received(emailKey: String, userId: Int64?, now: Date) throws -> [ReceivedInvitation]
    /// The workspace's invitations pending at `now`, newest first, at most 200.
    func sent(workspaceId: Int64, now: Date) throws -> [SentInvitation]

    /// The workspace's join link, if it has one.
    func joinLink(workspaceId: Int64) throws -> StoredJoinLink?
    /// The join link whose token has this hash, whatever its limits, with the nickname of who
    /// made it ("" when their account is gone).
    func joinLink(tokenHash: String) throws -> (link: StoredJoinLink, creatorNickname: String)?
    /// Makes the workspace's join link anew (in place of any it had), unused so far.
    func resetJoinLink(workspaceId: Int64, tokenHash: String, nonce: String, expiresAt: Date?, maxUses: Int?,
                       createdBy: Int64, at now: Date) throws
    /// Removes the workspace's join link; answers whether it had one.
    func removeJoinLink(workspaceId: Int64) throws -> Bool
    /// Counts one more join with the workspace's link.
    func countJoinLinkUse(workspaceId: Int64) throws
}

/// The people of each workspace, and the accounts that join them.
protocol MembershipStore {
    /// The workspace with this id, if there is one.
    func workspace(id: Int64) throws -> Workspace?
    /// The account with this id, if there is one.
    func user(id: Int64) throws -> User?
    /// The account with this address (`User.key(forEmail:)`), if there is one.
    func user(emailKey: String) throws -> User?
    /// The nickname of the account with this id, if there is one.
    func nickname(userId: Int64) throws -> String?
    /// Whether the person is a member of the workspace.
    func isMember(workspaceId: Int64, userId: Int64) throws -> Bool
    /// The workspace's members, its owner first, then by nickname.
    func members(workspaceId: Int64) throws -> [MembershipService.Member]
    /// Makes `user` a member of the workspace, puts them in its default channel and back into
    /// their old direct messages there, and tells the workspace (its events are published in
    /// this transaction).
    func join(workspace: Workspace, user: User, at now: Date) throws
    /// Takes the person out of the workspace and every room in it, telling the workspace and
    /// them; channels they owned pass to the workspace's owner.
    func remove(workspace: Workspace, userId: Int64, at now: Date) throws
}
