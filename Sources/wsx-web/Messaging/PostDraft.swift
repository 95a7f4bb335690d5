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

    /// Whether the stand-ins' first digits show anywhere the poster wrote: then replacing them
    /// could change their words.
    var standInsAppear: Bool {
        let written = [row.body, row.bodyHtml, row.authorNickname ?? ""] + row.attachments.map(\.originalName)
        return written.contains { text in Self.standIn(in: Array(text.utf8), from: 0) != nil }
    }

    /// Every stand-in is these 17 digits and two more: 60 for the message, 61… for its files.
    private static let sharedDigits = Array(String(messageStandIn / 100).utf8)

    /// Where the next stand-in starts in `bytes` at or after `start`, and which it is (0 for the
    /// message, 1… for its files).
    private static func standIn(in bytes: [UInt8], from start: Int) -> (at: Int, which: Int)? {
        let length = sharedDigits.count + 2, first = sharedDigits[0]
        var index = start
        while index + length <= bytes.count {
            if bytes[index] == first, bytes[index ..< index + sharedDigits.count].elementsEqual(sharedDigits) {
                let tens = Int(bytes[index + length - 2]) - 48, ones = Int(bytes[index + length - 1]) - 48
                let which = tens * 10 + ones - Int(messageStandIn % 100)
                if (0...9).contains(tens), (0...9).contains(ones), which >= 0 { return (index, which) }
            }
            index += 1
        }
        return nil
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

    /// `html`, drawn from this draft, with the real ids in place of the stand-ins: one pass over
    /// its bytes, on the writer's turn.
    static func filled(_ html: String, id: Int64, files: [StoredFile]) -> String {
        let bytes = Array(html.utf8), length = sharedDigits.count + 2
        var filled: [UInt8] = []
        filled.reserveCapacity(bytes.count)
        var copied = 0
        while let found = standIn(in: bytes, from: copied) {
            filled += bytes[copied ..< found.at]
            let real = found.which == 0 ? id : files.indices.contains(found.which - 1) ? files[found.which - 1].id! : nil
            if let real { filled += String(real).utf8 } else { filled += bytes[found.at ..< found.at + length] }
            copied = found.at + length
        }
        filled += bytes[copied...]
        return String(decoding: filled, as: UTF8.self)
    }
}

/// How `MessageService` draws a post's fragment before its write and keeps it afterwards
/// (`MessageListRenderer.unkeptNeutral` and `keep`); `none` renders on the writer's turn.
struct DraftFragments: Sendable {
    let draw: (@Sendable (MessageRow, _ workspaceId: Int64) -> String)?
    let keep: (@Sendable (String, MessageRow) -> Void)?

    static let none = DraftFragments(draw: nil, keep: nil)
}
