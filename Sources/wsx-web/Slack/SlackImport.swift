import Foundation
import SlackFormat
import Uploads
import Views

/// `wsx-web import slack`: a Slack export brought into a workspace here, new or one imported
/// before (importing the same export again adds nothing; a later one adds what is new).
///
/// Everything the export holds is read and checked first; nothing is written when any of it
/// is not what Slack writes. Then people, the workspace, and one conversation after another
/// are written in short transactions, so a server running on the same data folder keeps
/// answering, and an import stopped half-way is completed by running it again. No real-time
/// events are written: the running server is told once it is done (`OutsideWrites`).
struct SlackImport {
    /// What to import, into which workspace, owned by whom, written in which language.
    struct Request: Sendable {
        let archive: URL
        let workspaceName: String
        let ownerEmail: String
        /// The language of the lines that stand for files not kept, and of invitation mail;
        /// nil: the owner's.
        var lang: Lang?
    }

    let database: AppDatabase
    let files: FileService
    let catalog: EmojiCatalog
    let serverKey: ServerKey
    /// Composes invitation mail when the server sends mail; nil leaves invitations on the
    /// members page only.
    let mail: MailComposer?
    let clock: WallClock
    /// Where progress is told (one line per conversation).
    let progress: @Sendable (String) -> Void

    func run(_ request: Request) async throws -> SlackImportSummary {
        // Read and check everything first.
        let archive = try SlackArchiveReader(url: request.archive,
                                             limits: .init(fileBytes: files.policy.maximumFileBytes))
        let users = try archive.users()
        let plans = try Self.plans(archive)
        // Every day file is read now and again when its conversation is written: holding the
        // whole history in memory between the two would not fit a large export on a small server.
        for plan in plans { _ = try archive.messages(of: plan.conversation.folder) }
        let name: String
        do {
            name = try NameRules.cleaned(name: request.workspaceName, description: "", allowed: NameRules.workspaceName).name
        } catch {
            throw SlackImportError.badWorkspaceName(request.workspaceName)
        }
        let ownerKey = User.key(forEmail: request.ownerEmail.cleanedLine)
        guard let owner = try database.query({ tx in try tx.accounts.user(emailKey: ownerKey) }),
              !owner.passwordHash.isEmpty else {
            throw SlackImportError.noOwner(request.ownerEmail)
        }
        let lang = request.lang ?? owner.lang.flatMap(Lang.init(rawValue:)) ?? .ko

        // Then write: the workspace, its people, each conversation.
        var summary = SlackImportSummary(archive: request.archive.lastPathComponent, workspaceName: name)
        summary.users = users.count
        let general = plans.first { $0.isGeneral }
        let (workspace, isNew) = try workspaceFor(name: name, owner: owner, general: general)
        summary.workspaceId = workspace.id!
        summary.isNew = isNew
        let team = users.compactMap(\.teamId).first ?? "slack"
        var people = SlackPeople(workspaceId: workspace.id!, ownerId: owner.id!, team: team)
        let now = clock.now()
        let (key, mail) = (serverKey, self.mail)
        try database.writeNow { tx in
            (summary.matched, summary.created, summary.members) = try people.bring(tx, users, at: now)
            for person in people.invited {
                let (_, token) = try Invitations.insert(tx, workspaceId: workspace.id!, email: person.email, invitedBy: owner.id!,
                                                        key: key, at: now, claimsAccount: true)
                if let mail {
                    try tx.mail.enqueue(kind: .invitation, recipient: person.email, workspaceId: workspace.id!,
                                        message: mail.invitation(to: person.email, inviter: owner.nickname, workspace: name,
                                                                 token: token, lang: lang),
                                        at: now)
                }
            }
        }
        summary.invited = people.invited.count
        summary.mailed = mail != nil && !people.invited.isEmpty
        progress("people: \(summary.users) (\(summary.members) members)")

        let channelNames = Dictionary(plans.map { ($0.slackId, SlackRooms.channelName($0)) }) { first, _ in first }
        let nicknames = people.bySlackId.mapValues(\.nickname)
        let catalog = self.catalog
        let converter = SlackToMarkdown(person: { nicknames[$0] }, channel: { channelNames[$0] },
                                        emoji: { catalog.entry(forShortcode: $0)?.emoji })
        let bringer = SlackFiles(files: files, archive: archive, strings: lang.strings)
        let lastMessageBefore = try database.query { tx in try tx.slackImport.newestMessageId() }
        for plan in plans {
            let list = try archive.messages(of: plan.conversation.folder)
            let counts = try await importConversation(plan, list, workspace: workspace, people: &people, converter: converter,
                                                      files: bringer)
            summary.add(plan, counts: counts.counts, isNew: counts.isNew, closed: counts.closed)
            progress("\(plan.conversation.name ?? plan.slackId): \(counts.counts.messages + counts.counts.replies) new messages")
        }
        // `#name` links, once every channel exists, in short transactions like the messages'.
        let (naming, channels) = try database.query { tx in
            (try tx.slackImport.messagesNamingChannels(workspaceId: workspace.id!, after: lastMessageBefore),
             try tx.slackImport.publicChannels(workspaceId: workspace.id!))
        }
        for start in stride(from: 0, to: naming.count, by: 200) {
            let chunk = Array(naming[start..<min(start + 200, naming.count)])
            try await database.write { tx in try SlackRooms.linkChannels(tx, messageIds: chunk, channels: channels) }
        }
        let detail = summary.auditDetail
        try await database.write { tx in
            try tx.audit.record(workspaceId: workspace.id!, actor: owner.id!, action: "workspace.import", detail: detail,
                                at: now)
        }
        return summary
    }

    /// One conversation: its room, its messages, then who is in it and who follows its threads.
    private func importConversation(_ plan: SlackConversationPlan, _ messages: [SlackMessage], workspace: Workspace,
                                    people: inout SlackPeople, converter: SlackToMarkdown, files: SlackFiles) async throws
        -> (counts: SlackConversationImport.Counts, isNew: Bool, closed: Bool) {
        let now = clock.now()
        // Who is in it: those listed, and those who joined (and did not leave) in its history.
        var listed = plan.conversation.members ?? []
        for message in messages {
            guard let user = message.user else { continue }
            switch message.subtype {
            case "channel_join", "group_join": if !listed.contains(user) { listed.append(user) }
            case "channel_leave", "group_leave": if !(plan.conversation.members ?? []).contains(user) { listed.removeAll { $0 == user } }
            default: break
            }
        }
        var participants: [SlackPeople.Person] = []
        let (room, isNew, members, caughtUp) = try database.writeNow { tx in
            for user in listed { participants.append(try people.person(tx, slackId: user, name: nil, at: now)) }
            var members = participants.filter(\.isMember).map(\.id)
            // A direct message with someone who is not in the workspace stays closed, as when someone leaves.
            if plan.kind == .direct, participants.contains(where: { !$0.isMember }) { members = [] }
            let creator = plan.conversation.creator.flatMap { people.bySlackId[$0]?.id }
            let (room, isNew) = try SlackRooms.room(tx, for: plan, workspace: workspace, participants: participants.map(\.id),
                                                    members: members, creator: creator, at: now)
            if room.isDefault {
                members = try tx.slackImport.memberIds(workspaceId: workspace.id!)
            }
            // The newest message before the import wrote any: who had read it had read everything.
            return (room, isNew, members, try tx.slackImport.newestTimelineMessage(roomId: room.id!))
        }
        let nicknames = try await database.queryOffLoop { tx in try tx.slackImport.nicknames(roomId: room.id!) }
        var directory: [String: Int64] = nicknames
        for person in participants where members.contains(person.id) { directory[person.nickname] = directory[person.nickname] ?? person.id }
        let counts = try await SlackConversationImport(database: database, workspace: workspace, room: room, plan: plan,
                                                       converter: converter, mentions: MentionDirectory(directory), catalog: catalog,
                                                       files: files, clock: clock).run(messages, people: &people)
        try await database.write { tx in
            try SlackRooms.settle(tx, room: room, members: members, caughtUpAt: caughtUp, at: now)
            try tx.slackImport.followThreads(roomId: room.id!, roots: Array(counts.roots))
        }
        return (counts, isNew, plan.kind == .direct && members.isEmpty)
    }

    /// The owner's workspace of this name, or a new one whose default channel is Slack's general one.
    private func workspaceFor(name: String, owner: User, general: SlackConversationPlan?) throws -> (Workspace, Bool) {
        let now = clock.now()
        return try database.writeNow { tx in
            if let existing = try tx.slackImport.workspace(ownerId: owner.id!, nameKey: NameRules.key(name)) {
                return (existing, false)
            }
            let workspace = try tx.slackImport.createWorkspace(
                Workspace(id: nil, name: name, nameKey: NameRules.key(name), description: "", ownerId: owner.id!,
                          createdAt: now, updatedAt: now), at: now)
            let channel = general.map(SlackRooms.channelName) ?? "general"
            let description = NameRules.description.clamped(
                (general?.conversation.purpose?.value ?? general?.conversation.topic?.value ?? "").cleanedText)
            let room = try tx.rooms.create(
                Room(id: nil, workspaceId: workspace.id!, kind: .channel, name: channel, nameKey: NameRules.key(channel),
                     description: description, ownerId: owner.id!, isDefault: true, dmKey: nil,
                     createdAt: general?.conversation.created?.date ?? now, updatedAt: now),
                members: [owner.id!], at: now)
            if let general {
                try tx.slackImport.remember(workspaceId: workspace.id!, kind: .room, slackId: general.slackId, localId: room.id!)
            }
            return (workspace, true)
        }
    }

    /// Every conversation of the export, channels first: public, private, group, direct.
    static func plans(_ archive: SlackArchiveReader) throws -> [SlackConversationPlan] {
        var plans: [SlackConversationPlan] = []
        for (file, kind) in [("channels.json", SlackConversationPlan.Kind.channel(isPrivate: false)),
                             ("groups.json", .channel(isPrivate: true)), ("mpims.json", .group), ("dms.json", .direct)] {
            for conversation in try archive.decode(file, as: [SlackConversation].self) ?? [] {
                plans.append(SlackConversationPlan(conversation: conversation, kind: kind))
            }
        }
        var seen: Set<String> = []
        for plan in plans where !seen.insert(plan.slackId).inserted {
            throw SlackImportError.duplicateConversation(plan.slackId)
        }
        return plans
    }
}

/// Why an import did not start; nothing was written.
enum SlackImportError: Error, CustomStringConvertible, Equatable {
    case noOwner(String)
    case badWorkspaceName(String)
    case duplicateConversation(String)

    var description: String {
        switch self {
        case .noOwner(let email):
            "no account here has the email \(email) (and a password): create it first with `wsx-web user create`"
        case .badWorkspaceName(let name): "\"\(name)\" cannot be a workspace name (1 to 50 characters)"
        case .duplicateConversation(let id): "the export lists the conversation \(id) twice"
        }
    }
}
