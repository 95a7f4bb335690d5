import Foundation

/// How many invitations an owner may send, and how often one address is mailed again.
///
/// Every invitation mail carries the inviter's nickname and the workspace's name in its
/// subject, both chosen by whoever made the account: sixty invitations to sixty addresses and
/// thirty resends to one went out in under a second. Now one inviter, and one workspace, make at
/// most `perHour` new invitations an hour (`--invitations-per-hour`; 0: no limit), and one
/// address is mailed an invitation to one workspace at most once every `resendCooldown`. In
/// memory, like the other limits: a restart forgets.
struct InvitationLimits: Sendable {
    let perHour: Int
    let ledger: AttemptLimiter
    static let resendCooldown: TimeInterval = 10 * 60

    init(perHour: Int, clock: WallClock, postgres: PostgresBackend? = nil) {
        self.perHour = perHour
        ledger = AttemptLimiter(clock: clock, postgres: postgres)
    }

    /// Reserves one new invitation by `inviter` into `workspaceId`.
    func beginInvitation(inviter: Int64, workspaceId: Int64) async -> AttemptLimiter.Verdict {
        guard perHour > 0 else { return await ledger.reserve([]) }
        let rule = AttemptLimiter.Rule(limit: perHour, window: 3600)
        return await ledger.reserve([.init(key: "invite-by:\(inviter)", rule: rule), .init(key: "invite-into:\(workspaceId)", rule: rule)])
    }

    /// Settles it: counted when an invitation was made.
    func endInvitation(_ ticket: AttemptLimiter.Ticket, made: Bool) async {
        await ledger.settle(ticket, counted: made)
    }

    /// Whether the address may be mailed this workspace's invitation now; seconds to wait if not.
    /// A yes is counted at once.
    func mayMail(workspaceId: Int64, email: String) async -> Int? {
        let rule = AttemptLimiter.Rule(limit: 1, window: Self.resendCooldown)
        switch await ledger.reserve([.init(key: "invite-mail:\(workspaceId):\(User.key(forEmail: email))", rule: rule)]) {
        case .wait(let seconds): return seconds
        case .proceed(let ticket):
            await ledger.settle(ticket, counted: true)
            return nil
        }
    }
}
