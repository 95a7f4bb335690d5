import Foundation
import SlackFormat
import Uploads
import Views

/// One conversation's messages brought into its room, oldest first (so ids, this app's order,
/// follow Slack's times), in transactions of `batchSize` messages: a running server waits for
/// each only briefly, and an import stopped half-way is finished by running it again (each
/// message remembers its Slack id in the transaction that writes it).
///
/// Messages keep their time, edit time and author; a reply goes to its thread (and to the room
/// too when it was also sent there); reactions become reactions where the emoji is a standard
/// one; pins stay pinned; a deleted root that still has replies stays as a placeholder.
/// Joins, leaves, topic changes and the like are not messages here and are left out.
struct SlackConversationImport {
    let database: AppDatabase
    let workspace: Workspace
    let room: Room
    let plan: SlackConversationPlan
    let converter: SlackToMarkdown
    /// Whom text can mention: the room's people by nickname.
    let mentions: MentionDirectory
    let catalog: EmojiCatalog
    let files: SlackFiles
    let clock: WallClock

    static let batchSize = 200

    /// Message subtypes that are messages people wrote; every other subtype is a notice.
    static let written: Set<String> = ["bot_message", "thread_broadcast", "reply_broadcast", "file_share", "me_message",
                                       "tombstone", "slackbot_response"]

    /// What one conversation brought.
    struct Counts {
        var messages = 0
        var replies = 0
        var alreadyThere = 0
        var notices = 0
        var reactions = 0
        var customReactions: [String: Int] = [:]
        var filesKept = 0
        var filesLeft = 0
        var pins = 0
        /// Thread roots that got replies (their followers are settled after the room's members).
        var roots: Set<Int64> = []

        /// Adds another conversation's counts (its thread roots are its own business).
        mutating func add(_ other: Counts) {
            messages += other.messages
            replies += other.replies
            alreadyThere += other.alreadyThere
            notices += other.notices
            reactions += other.reactions
            customReactions.merge(other.customReactions, uniquingKeysWith: +)
            filesKept += other.filesKept
            filesLeft += other.filesLeft
            pins += other.pins
        }
    }

    func run(_ messages: [SlackMessage], people: inout SlackPeople) async throws -> Counts {
        var counts = Counts()
        let conversation = plan.slackId, workspaceId = workspace.id!
        var (known, keptFiles) = try await database.queryOffLoop { tx in
            (try SlackIds.messages(tx, workspaceId: workspaceId, conversation: conversation),
             try tx.slackImport.localIds(workspaceId: workspaceId, kind: .file))
        }
        var start = 0
        while start < messages.count {
            let batch = messages[start..<min(start + Self.batchSize, messages.count)]
            start += Self.batchSize
            // Files are typed and pictures shrunk before the transaction, which then only writes rows.
            var outcomes: [String: SlackFiles.Outcome] = [:]
            for message in batch where message.timestamp.map({ known[$0] == nil }) == true {
                for file in message.sharedFiles where keptFiles[file.id] == nil && outcomes[file.id] == nil {
                    outcomes[file.id] = await files.bring(file)
                }
            }
            try database.writeNow { tx in
                for message in batch {
                    try write(tx, message, known: &known, keptFiles: &keptFiles, outcomes: outcomes, people: &people,
                              counts: &counts)
                }
            }
        }
        return counts
    }

    private func write(_ tx: any StoreTransaction, _ message: SlackMessage, known: inout [SlackTimestamp: Int64],
                       keptFiles: inout [String: Int64], outcomes: [String: SlackFiles.Outcome], people: inout SlackPeople,
                       counts: inout Counts) throws {
        guard let stamp = message.timestamp else { return }
        let now = clock.now()
        if let id = known[stamp] {
            counts.alreadyThere += 1
            try react(tx, messageId: id, message, at: stamp.date, people: &people, counts: &counts)
            return
        }
        if let subtype = message.subtype, !Self.written.contains(subtype) {
            counts.notices += 1
            return
        }
        let threadStamp = message.threadTs.flatMap(SlackTimestamp.init)
        let isReply = threadStamp != nil && threadStamp != stamp
        let rootId = isReply ? threadStamp.flatMap { known[$0] } : nil
        let isPlaceholder = message.subtype == "tombstone"
        if isPlaceholder, (message.replyCount ?? 0) == 0, message.threadTs != message.ts { return }

        // The text, what the attachments say, and a line for each file not kept.
        var text = converter.convert(message.text ?? "")
        for attachment in message.attachments ?? [] {
            let lines = [attachment.pretext, attachment.title, attachment.text ?? attachment.fallback]
                .compactMap { $0.map(converter.convert) }.filter { !$0.isEmpty }
            if !lines.isEmpty { text += (text.isEmpty ? "" : "\n") + lines.map { "> " + $0 }.joined(separator: "\n") }
        }
        var fileIds: [Int64] = [], prepared: [PreparedFile] = [], notes: [String] = []
        for file in message.sharedFiles {
            if let id = keptFiles[file.id] {
                fileIds.append(id)
                continue
            }
            switch outcomes[file.id] {
            case .kept(let ready)? where fileIds.count + prepared.count < files.files.policy.maximumFiles:
                prepared.append(ready)
            case .kept?:
                notes.append(files.tooMany(file))
            case .placeholder(let note)?:
                notes.append(note)
            case nil:
                notes.append(files.missing(file))
            }
        }
        if !notes.isEmpty { text += (text.isEmpty ? "" : "\n") + notes.joined(separator: "\n") }
        text = MessageText.clean(text)
        guard !text.isEmpty || !fileIds.isEmpty || !prepared.isEmpty || isPlaceholder else { return }

        let author = isPlaceholder ? nil : try people.author(tx, of: message, at: now)
        let created = stamp.date
        let edited = message.edited.flatMap { SlackTimestamp($0.ts) }.map { max($0.date, created) }
        var firstId: Int64?
        for (index, part) in Self.parts(text).enumerated() {
            let rendered = MessageHTML.render(part, members: mentions)
            // With its search index entry and mentions, in statements prepared once per import
            // (`SQLiteSlackImportStore`).
            let id = try tx.slackImport.insertMessage(ImportedMessage(
                roomId: room.id!, authorId: author?.id, body: part, rendered: rendered, createdAt: created, editedAt: edited,
                threadRootId: rootId,
                inTimeline: rootId == nil || ["thread_broadcast", "reply_broadcast"].contains(message.subtype ?? "")))
            if index == 0 { firstId = id }
        }
        guard let id = firstId else { return }
        if isPlaceholder {
            // Counted as unread while it had text; the placeholder trigger takes it back out.
            try tx.slackImport.markPlaceholder(messageId: id, at: created)
        }
        let stored = try tx.files.insert(prepared, uploader: author?.id ?? workspace.ownerId, at: created)
        for (file, slack) in zip(stored, (message.sharedFiles).filter({ keptFiles[$0.id] == nil && Self.isKept(outcomes[$0.id]) })) {
            keptFiles[slack.id] = file.id!
            try tx.slackImport.remember(workspaceId: workspace.id!, kind: .file, slackId: slack.id, localId: file.id!)
        }
        try tx.slackImport.attachFiles(fileIds + stored.map { $0.id! }, to: id)
        counts.filesKept += stored.count
        counts.filesLeft += notes.count
        try tx.slackImport.remember(workspaceId: workspace.id!, kind: .message,
                                    slackId: SlackIds.messageKey(conversation: plan.slackId, ts: stamp), localId: id)
        known[stamp] = id
        if let rootId {
            counts.replies += 1
            counts.roots.insert(rootId)
        } else {
            counts.messages += 1
        }
        if message.pinnedTo?.contains(plan.slackId) == true || plan.conversation.pins?.contains(where: { $0.id == message.ts }) == true {
            let by = plan.conversation.pins?.first { $0.id == message.ts }?.user.flatMap { people.bySlackId[$0]?.id }
            if try tx.slackImport.pin(messageId: id, roomId: room.id!, pinnedBy: by, at: created) { counts.pins += 1 }
        }
        try react(tx, messageId: id, message, at: created, people: &people, counts: &counts)
    }

    /// The message's reactions with standard emoji (a custom one is counted, not kept), one
    /// per person and emoji, as many different ones as a message may have.
    private func react(_ tx: any StoreTransaction, messageId: Int64, _ message: SlackMessage, at time: Date, people: inout SlackPeople,
                       counts: inout Counts) throws {
        for reaction in message.reactions ?? [] {
            guard let entry = catalog.entry(forShortcode: reaction.name) else {
                counts.customReactions[reaction.name, default: 0] += reaction.users.count
                continue
            }
            let used = try tx.reactions.isUsed(messageId: messageId, emoji: entry.emoji)
            let kinds = try tx.reactions.emojiCount(messageId: messageId)
            guard used || kinds < ReactionService.maximumEmoji else { continue }
            for user in reaction.users {
                let person = try people.person(tx, slackId: user, name: nil, at: clock.now())
                if try tx.slackImport.addReaction(messageId: messageId, emoji: entry.emoji, userId: person.id, at: time) {
                    counts.reactions += 1
                }
            }
        }
    }

    private static func isKept(_ outcome: SlackFiles.Outcome?) -> Bool {
        if case .kept? = outcome { return true }
        return false
    }

    /// The text in pieces a message may hold (Slack allows 40,000 characters, a message here
    /// 5,000): cut at line ends where it can, the pieces posted one after another.
    static func parts(_ text: String) -> [String] {
        var parts: [String] = [], rest = Substring(text)
        while MessageText.limit.check(rest) != .fits, !rest.isEmpty {
            var piece = String(MessageText.limit.clamped(String(rest.prefix(MessageText.limit.characters))))
            if let lineEnd = piece.lastIndex(of: "\n"), piece.distance(from: piece.startIndex, to: lineEnd) > piece.count / 2 {
                piece = String(piece[..<lineEnd])
            }
            parts.append(piece)
            rest = rest.dropFirst(piece.count).drop { $0 == "\n" }
        }
        if !rest.isEmpty { parts.append(String(rest)) }
        return parts
    }
}
