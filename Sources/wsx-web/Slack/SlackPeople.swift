import Foundation
import SlackFormat
import Views

/// The people of an export as accounts here, found or made inside the import's transactions.
///
/// - Someone whose e-mail has an account here is that account, and becomes a member.
/// - Someone else active with an e-mail gets an account without a password (it cannot sign in),
///   becomes a member (so their channels and conversations are theirs already), and an
///   invitation: following it, they choose a password.
/// - Deleted people, bots, Slackbot, people without an e-mail and authors the export does not
///   list get an account without a password and an address under `.invalid` (RFC 2606: it can
///   never receive mail), are not members, and keep their names on what they wrote.
struct SlackPeople {
    /// One person of the export, as imported.
    struct Person: Sendable {
        let id: Int64
        let nickname: String
        /// In the workspace (so in its rooms); the others only wrote, reacted or are mentioned.
        let isMember: Bool
    }

    let workspaceId: Int64
    let ownerId: Int64
    /// The export's team, for the made-up addresses of people without one.
    let team: String
    private(set) var bySlackId: [String: Person] = [:]
    /// Which person each bot id (`B…`) is, where `users.json` says.
    private var botUsers: [String: String] = [:]
    /// People with accounts made now who are invited, by address.
    private(set) var invited: [(email: String, userId: Int64)] = []

    init(workspaceId: Int64, ownerId: Int64, team: String) {
        (self.workspaceId, self.ownerId, self.team) = (workspaceId, ownerId, team)
    }

    /// Brings over everyone in `users.json`; answers what happened for the summary.
    mutating func bring(_ tx: any StoreTransaction, _ users: [SlackUser], at now: Date) throws -> (matched: Int, created: Int, members: Int) {
        var matched = 0, created = 0, members = 0
        let known = try tx.slackImport.localIds(workspaceId: workspaceId, kind: .user)
        let defaultRoom = try tx.rooms.defaultRoom(workspaceId: workspaceId)?.id
        for user in users {
            if let bot = user.profile?.botId { botUsers[bot] = user.id }
            let email = Self.usableEmail(user.profile?.email)
            let active = !user.isDeleted && !user.isBotAccount && user.id != "USLACKBOT" && email != nil
            let nickname = Self.nickname(user.shownName)
            var account: (id: Int64, passwordless: Bool, made: Bool)
            if let id = known[user.id], let existing = try Self.account(tx, id: id) {
                account = (id, existing.passwordless, false)
            } else if let email, let existing = try Self.account(tx, email: email) {
                account = (existing.id, existing.passwordless, false)
                matched += 1
            } else if email == nil, let earlier = try Self.account(tx, email: syntheticEmail(user.id)) {
                // The same person of the same team, brought into another workspace before.
                account = (earlier.id, earlier.passwordless, false)
            } else {
                // Someone who will not come (deleted, a bot, no address) gets an account nobody
                // can sign in to or claim: deactivated from the start.
                let id = try Self.makeAccount(tx, email: email ?? syntheticEmail(user.id), nickname: nickname, at: now,
                                              deactivated: !active)
                account = (id, true, true)
                created += 1
            }
            try tx.slackImport.remember(workspaceId: workspaceId, kind: .user, slackId: user.id, localId: account.id)
            let member = active || account.id == ownerId
            if member {
                members += 1
                if try tx.slackImport.join(workspaceId: workspaceId, defaultRoom: defaultRoom, userId: account.id, at: now),
                   account.passwordless, let email {
                    invited.append((email, account.id))
                }
            }
            let shown = try tx.memberships.nickname(userId: account.id) ?? nickname
            bySlackId[user.id] = Person(id: account.id, nickname: shown, isMember: member)
        }
        return (matched, created, members)
    }

    /// The person a message's author is: its `user`, or its bot, or (not in `users.json`) an
    /// account made for the name the message carries.
    mutating func author(_ tx: any StoreTransaction, of message: SlackMessage, at now: Date) throws -> Person? {
        if let user = message.user, user != "USLACKBOT" || message.subtype != "tombstone" {
            return try person(tx, slackId: user, name: message.userProfile.flatMap { $0.displayName ?? $0.realName ?? $0.name }, at: now)
        }
        if let bot = message.botId {
            if let user = botUsers[bot] { return try person(tx, slackId: user, name: nil, at: now) }
            return try person(tx, slackId: bot, name: message.username ?? message.botProfile?.name, at: now)
        }
        return nil
    }

    /// The person behind a Slack id, made (not a member) when the export does not list them.
    mutating func person(_ tx: any StoreTransaction, slackId: String, name: String?, at now: Date) throws -> Person {
        if let known = bySlackId[slackId] { return known }
        let id: Int64
        if let earlier = try tx.slackImport.localId(workspaceId: workspaceId, kind: .user, slackId: slackId),
           try Self.account(tx, id: earlier) != nil {
            id = earlier
        } else {
            let shown = name.map(\.cleanedLine).flatMap { $0.isEmpty ? nil : $0 } ?? slackId
            id = try Self.account(tx, email: syntheticEmail(slackId))?.id
                ?? Self.makeAccount(tx, email: syntheticEmail(slackId), nickname: Self.nickname(shown), at: now, deactivated: true)
            try tx.slackImport.remember(workspaceId: workspaceId, kind: .user, slackId: slackId, localId: id)
        }
        let nickname = try tx.memberships.nickname(userId: id) ?? slackId
        let person = Person(id: id, nickname: nickname, isMember: false)
        bySlackId[slackId] = person
        return person
    }

    /// A made-up address that can never receive mail, the same for the same person of the same team.
    private func syntheticEmail(_ slackId: String) -> String {
        "\(slackId.lowercased())@\(team.lowercased()).slack.invalid"
    }

    // MARK: Accounts

    /// The account with this id, and whether it has no password yet.
    private static func account(_ tx: any StoreTransaction, id: Int64) throws -> (id: Int64, passwordless: Bool)? {
        try tx.accounts.user(id: id).map { (id: $0.id!, passwordless: $0.passwordHash.isEmpty) }
    }

    /// The account with this address, and whether it has no password yet.
    private static func account(_ tx: any StoreTransaction, email: String) throws -> (id: Int64, passwordless: Bool)? {
        try tx.accounts.user(emailKey: User.key(forEmail: email)).map { (id: $0.id!, passwordless: $0.passwordHash.isEmpty) }
    }

    /// An account without a password: nobody signs in to it until its person sets one (through
    /// the invitation the import sends), and nobody ever when it is made `deactivated`.
    private static func makeAccount(_ tx: any StoreTransaction, email: String, nickname: String, at now: Date,
                                    deactivated: Bool) throws -> Int64 {
        var user = User(email: email, emailKey: User.key(forEmail: email), nickname: nickname, phone: nil, passwordHash: "", lang: nil,
                        createdAt: now, updatedAt: now)
        user.deactivatedAt = deactivated ? now : nil
        return try tx.slackImport.createAccount(user)
    }

    private static func usableEmail(_ raw: String?) -> String? {
        guard let email = raw?.cleanedLine, !email.isEmpty else { return nil }
        var problems = FormProblems()
        AccountRules.checkEmail(email, into: &problems)
        return problems.isEmpty ? email : nil
    }

    static func nickname(_ raw: String) -> String {
        let cleaned = raw.cleanedLine
        return AccountRules.nickname.clamped(cleaned.isEmpty ? "?" : cleaned)
    }
}
