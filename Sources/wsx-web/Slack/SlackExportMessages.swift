import Foundation
import SlackFormat
import Uploads

/// One room's messages in Slack's form, one file per day (UTC), with the files they carry put
/// in the zip: text as Slack's markup (from the rendered HTML), threads with their replies,
/// replies also sent to the room as `thread_broadcast`, edits, reactions by emoji name,
/// pins, and a deleted root kept for its replies as a `tombstone`.
struct SlackExportMessages {
    let database: AppDatabase
    let store: FileStore
    let catalog: EmojiCatalog
    let baseURL: String
    /// The Slack ids of the workspace's public channels, for `#name` links.
    let channels: [Int64: String]

    /// What one room wrote: its messages and files, the people they name, its pins.
    struct Written {
        var count = 0
        var files = 0
        var people: Set<Int64> = []
        var pins: [SlackConversation.Pin] = []
    }

    /// A message as read for the export.
    private struct Stored {
        let id: Int64, author: Int64?, html: String, created: Date, edited: Date?, root: Int64?, inTimeline: Bool, deleted: Bool
    }

    func write(_ tx: any StoreTransaction, room: Room, conversation: String, folder: String, ids: inout SlackExportIds,
               into writer: SlackArchiveWriter) throws -> Written {
        var written = Written()
        let rows = try tx.slackImport.exportedMessages(roomId: room.id!).map {
            Stored(id: $0.id, author: $0.authorId, html: $0.html, created: $0.createdAt, edited: $0.editedAt, root: $0.threadRootId,
                   inTimeline: $0.inTimeline, deleted: $0.isDeleted)
        }
        // Who pinned each pinned message, and when.
        let pins = try tx.slackImport.pins(roomId: room.id!)
        let authorOf = Dictionary(rows.map { ($0.id, $0.author) }) { first, _ in first }
        var replies: [Int64: [Stored]] = [:]
        for row in rows { if let root = row.root { replies[root, default: []].append(row) } }
        var stamps: [Int64: SlackTimestamp] = [:]
        for row in rows { stamps[row.id] = ids.message(row.id, at: row.created, conversation: conversation) }
        var days: [String: [(SlackTimestamp, SlackMessage)]] = [:]
        var uploaded: Set<String> = []
        for chunk in stride(from: 0, to: rows.count, by: 500).map({ Array(rows[$0..<min($0 + 500, rows.count)]) }) {
            let attachments = try tx.files.attachments(messageIds: chunk.map(\.id))
            let reactions = try tx.reactions.groups(messageIds: chunk.map(\.id))
            for row in chunk {
                let stamp = stamps[row.id]!
                var message = try slackMessage(row, stamp: stamp, ids: &ids, written: &written)
                if let root = row.root, let rootStamp = stamps[root] {
                    message.threadTs = rootStamp.text
                    message.parentUserId = authorOf[root].flatMap { $0 }.map { ids.user($0) }
                    if row.inTimeline { message.subtype = "thread_broadcast" }
                } else if let list = replies[row.id], !list.isEmpty {
                    message.threadTs = stamp.text
                    message.replyCount = list.count
                    let repliers = list.compactMap(\.author).reduce(into: [Int64]()) { if !$0.contains($1) { $0.append($1) } }
                    message.replyUsers = repliers.map { ids.user($0) }
                    message.latestReply = stamps[list.last!.id]?.text
                    message.replies = list.map { SlackMessage.Reply(user: $0.author.map { ids.user($0) }, ts: stamps[$0.id]!.text) }
                    written.people.formUnion(repliers)
                }
                var names: [SlackMessage.Reaction] = []
                for group in reactions[row.id] ?? [] {
                    guard let name = catalog.shortcode(for: group.emoji) else { continue }
                    names.append(.init(name: name, users: group.userIds.map { ids.user($0) }))
                    written.people.formUnion(group.userIds)
                }
                message.reactions = names.isEmpty ? nil : names
                var files: [SlackFile] = []
                for file in attachments[row.id] ?? [] {
                    let id = ids.file(file.id!)
                    var entry = SlackFile(id: id, name: file.originalName, title: file.originalName, mimetype: file.mime, size: file.size)
                    entry.mode = "hosted"
                    entry.urlPrivate = baseURL + file.url
                    entry.urlPrivateDownload = baseURL + file.downloadURL
                    entry.created = SlackNumber(Int64(file.createdAt.timeIntervalSince1970))
                    entry.user = file.uploaderId.map { ids.user($0) }
                    files.append(entry)
                    if uploaded.insert(id).inserted, let bytes = try? Data(contentsOf: store.original(file.sha256)) {
                        try writer.add(SlackArchiveWriter.uploadPath(fileId: id, name: file.originalName), data: bytes, compressed: false)
                        written.files += 1
                    }
                }
                message.files = files.isEmpty ? nil : files
                if let pin = pins[row.id] {
                    message.pinnedTo = [conversation]
                    written.pins.append(.init(id: stamp.text, type: "C", created: SlackNumber(Int64(pin.at.timeIntervalSince1970)),
                                              user: pin.pinnedBy.map { ids.user($0) }))
                }
                days[Timestamps.utcDay(stamp.date), default: []].append((stamp, message))
                written.count += 1
            }
        }
        for (day, list) in days.sorted(by: { $0.key < $1.key }) {
            try writer.add(json: "\(folder)/\(day).json", list.sorted { $0.0 < $1.0 }.map(\.1))
        }
        return written
    }

    /// The message itself: author, text (Slack's markup, mentions by Slack id), edit; a deleted
    /// root's placeholder as Slack writes one.
    private func slackMessage(_ row: Stored, stamp: SlackTimestamp, ids: inout SlackExportIds, written: inout Written) throws -> SlackMessage {
        if row.deleted {
            var message = SlackMessage(ts: stamp.text, user: "USLACKBOT", text: "This message was deleted.")
            message.subtype = "tombstone"
            message.hidden = true
            return message
        }
        var mentioned: [Int64: String] = [:]
        for id in AppDatabase.mentionedIds(inHTML: row.html) {
            mentioned[id] = ids.user(id)
            written.people.insert(id)
        }
        let text = MessageHTMLToSlack(slackUser: { [mentioned] in mentioned[$0] },
                                      slackChannel: { [channels] in channels[$0] }).convert(row.html)
        let user = row.author.map { ids.user($0) }
        if let author = row.author { written.people.insert(author) }
        var message = SlackMessage(ts: stamp.text, user: user, text: text)
        if let edited = row.edited { message.edited = .init(user: user, ts: SlackTimestamp(edited).text) }
        return message
    }
}
