import Foundation

/// A message about to be posted, as its row will read once stored, with stand-in ids for the
/// message and its files (which only the insert gives): its fragment is rendered from this
/// before the writer's turn, and the turn only writes the real ids into it. Every post waits for
/// the single writer, so rendering there made every post wait for every other's template.
///
/// The stand-ins are numbers of 19 digits no id reaches; a post whose text, file names or author's
/// name contain one anyway is rendered on the writer's turn as before (`standInsAppear`).
struct PostDraft: Sendable {
    let row: MessageRow

    /// The stand-in for the message's id, then one per file, in order.
    static let messageStandIn: Int64 = 7_919_283_746_501_234_560
    static func fileStandIn(_ position: Int) -> Int64 { messageStandIn + 1 + Int64(position) }

    init(roomId: Int64, author: User, text: String, html: String, at now: Date, thread: ThreadPlacement?, files: [PreparedFile]) {
        row = MessageRow(id: Self.messageStandIn, roomId: roomId, authorId: author.id, authorNickname: author.nickname,
                         authorAvatarId: author.avatarFileId, body: text, bodyHtml: html, createdAt: Timestamps.stored(now),
                         editedAt: nil, threadRootId: thread?.rootId, inTimeline: thread?.alsoInRoom ?? true, isDeleted: false,
                         authorDeactivated: author.deactivatedAt != nil,
                         attachments: files.enumerated().map { position, file in
                             var stored = file.record(uploader: author.id ?? 0, at: Timestamps.stored(now))
                             stored.id = Self.fileStandIn(position)
                             return stored
                         })
    }

    /// Whether a stand-in shows anywhere the poster wrote: then replacing it would change their words.
    var standInsAppear: Bool {
        let written = [row.body, row.bodyHtml, row.authorNickname ?? ""] + row.attachments.map(\.originalName)
        let standIns = ([Self.messageStandIn] + row.attachments.indices.map(Self.fileStandIn)).map(String.init)
        return written.contains { text in standIns.contains { text.contains($0) } }
    }

    /// The row as stored: the message's id and its files as the insert gave them.
    func stored(id: Int64, files: [StoredFile]) -> MessageRow {
        let row = MessageRow(id: id, roomId: self.row.roomId, authorId: self.row.authorId, authorNickname: self.row.authorNickname,
                             authorAvatarId: self.row.authorAvatarId, body: self.row.body, bodyHtml: self.row.bodyHtml,
                             createdAt: self.row.createdAt, editedAt: nil, threadRootId: self.row.threadRootId,
                             inTimeline: self.row.inTimeline, isDeleted: false, authorDeactivated: self.row.authorDeactivated,
                             attachments: files)
        return row
    }

    /// `html`, drawn from this draft, with the real ids in place of the stand-ins.
    static func filled(_ html: String, id: Int64, files: [StoredFile]) -> String {
        var html = html.replacingOccurrences(of: String(messageStandIn), with: String(id))
        for (position, file) in files.enumerated() {
            html = html.replacingOccurrences(of: String(fileStandIn(position)), with: String(file.id!))
        }
        return html
    }
}

/// How `MessageService` draws a post's fragment before its write and keeps it afterwards
/// (`MessageListRenderer.unkeptNeutral` and `keep`); `none` renders on the writer's turn.
struct DraftFragments: Sendable {
    let draw: (@Sendable (MessageRow, _ workspaceId: Int64) -> String)?
    let keep: (@Sendable (String, MessageRow) -> Void)?

    static let none = DraftFragments(draw: nil, keep: nil)
}
