import Foundation
import Views

extension MessageService {
    /// The HTML of a message's text, rendered before its write transaction begins: every post
    /// waits for the single writer, so nothing that grows with a text's length runs on its turn.
    /// The room's members a text can mention (none without an `@`) and the channels it can
    /// link to (none without a `#`) are read first; a rename committed between that read and
    /// the write shows the name the author saw.
    func render(_ text: String, roomId: Int64) async throws -> MessageHTML.Rendered {
        let (at, hash) = (text.containsByte(UInt8(ascii: "@")), text.containsByte(UInt8(ascii: "#")))
        guard at || hash else { return MessageHTML.render(text, members: .none) }
        let (members, channels) = try await database.queryOffLoop { tx -> (MentionDirectory, ChannelDirectory) in
            let members = at ? try Self.mentionDirectory(tx, roomId: roomId) : .none
            guard hash, let workspaceId = try tx.rooms.room(id: roomId)?.workspaceId else { return (members, .none) }
            return (members, try Self.publicChannels(tx, workspaceId: workspaceId))
        }
        return MessageHTML.render(text, members: members, channels: channels)
    }

    /// Whom `@…` may mention in the room: its members by nickname, and by given name where it
    /// names one person of the workspace (`KoreanNames`).
    static func mentionDirectory(_ tx: any StoreTransaction, roomId: Int64) throws -> MentionDirectory {
        let members = try tx.messages.memberNicknames(roomId: roomId)
        guard members.keys.contains(where: { KoreanNames.givenName(of: $0) != nil }) else { return MentionDirectory(members) }
        let workspace = try tx.messages.workspaceNicknames(roomId: roomId)
        return MentionDirectory(members, givenNames: KoreanNames.givenNames(of: members, workspace: workspace))
    }

    /// The workspace's public channels, archived ones too (their history stays readable), for
    /// `#name` links.
    static func publicChannels(_ tx: any StoreTransaction, workspaceId: Int64) throws -> ChannelDirectory {
        ChannelDirectory(try tx.messages.publicChannels(workspaceId: workspaceId).mapValues { roomId in
            ChannelDirectory.Channel(roomId: roomId, href: Paths.channel(workspaceId, roomId))
        })
    }

    /// Writes whom a message mentions: the members named, and for `@channel`/`@all` every
    /// member of the room, for `@here` those of them in `online`; never its author. Answers
    /// them, the named ones first.
    static func recordMentions(_ tx: any StoreTransaction, messageId: Int64, roomId: Int64, authorId: Int64,
                               rendered: MessageHTML.Rendered, online: Set<Int64>) throws -> [Int64] {
        guard !rendered.mentioned.isEmpty || !rendered.groups.isEmpty else { return [] }
        var recipients = rendered.mentioned
        if !rendered.groups.isEmpty {
            let everyone = !rendered.groups.isDisjoint(with: [.channel, .all])
            var named = Set(recipients)
            for id in try tx.rooms.memberIds(roomId: roomId).sorted() where (everyone || online.contains(id)) && named.insert(id).inserted {
                recipients.append(id)
            }
        }
        recipients.removeAll { $0 == authorId }
        try tx.messages.addMentions(messageId: messageId, userIds: recipients)
        return recipients
    }
}
