import Foundation
import GRDB
import Views

extension MessageService {
    /// The HTML of a message's text, rendered before its write transaction begins: every post
    /// waits for the single writer, so nothing that grows with a text's length runs on its turn.
    /// The room's members a text can mention (none without an `@`) and the channels it can
    /// link to (none without a `#`) are read first; a rename committed between that read and
    /// the write shows the name the author saw.
    func render(_ text: String, roomId: Int64) throws -> MessageHTML.Rendered {
        guard text.contains("@") || text.contains("#") else { return MessageHTML.render(text, members: .none) }
        let (members, channels) = try database.read { db -> (MentionDirectory, ChannelDirectory) in
            let members = text.contains("@") ? try Self.mentionDirectory(db, roomId: roomId) : .none
            guard text.contains("#"),
                  let workspaceId = try Int64.fetchOne(db.cachedStatement(sql: "SELECT workspace_id FROM rooms WHERE id = ?"),
                                                       arguments: [roomId]) else { return (members, .none) }
            return (members, try Self.publicChannels(db, workspaceId: workspaceId))
        }
        return MessageHTML.render(text, members: members, channels: channels)
    }

    /// Whom `@…` may mention in the room: its members by nickname, and by given name where it
    /// names one person of the workspace (`KoreanNames`).
    static func mentionDirectory(_ db: Database, roomId: Int64) throws -> MentionDirectory {
        let members = try nicknames(db, roomId: roomId)
        guard members.keys.contains(where: { KoreanNames.givenName(of: $0) != nil }) else { return MentionDirectory(members) }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT users.id, users.nickname FROM users
            JOIN workspace_members ON workspace_members.user_id = users.id
            JOIN rooms ON rooms.workspace_id = workspace_members.workspace_id
            WHERE rooms.id = ?
            """), arguments: [roomId])
        let workspace = Dictionary(rows.map { ($0["id"] as Int64, $0["nickname"] as String) }, uniquingKeysWith: { first, _ in first })
        return MentionDirectory(members, givenNames: KoreanNames.givenNames(of: members, workspace: workspace))
    }

    /// The workspace's public channels, archived ones too (their history stays readable), for
    /// `#name` links.
    static func publicChannels(_ db: Database, workspaceId: Int64) throws -> ChannelDirectory {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, name FROM rooms WHERE workspace_id = ? AND kind = 'channel' AND visibility = 'public'
            """), arguments: [workspaceId])
        return ChannelDirectory(Dictionary(rows.map { row in
            (row["name"] as String, ChannelDirectory.Channel(roomId: row["id"], href: Paths.channel(workspaceId, row["id"])))
        }, uniquingKeysWith: { first, _ in first }))
    }

    /// Nicknames of the room's members, for mentions.
    static func nicknames(_ db: Database, roomId: Int64) throws -> [String: Int64] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT users.id, users.nickname FROM users JOIN room_members ON room_members.user_id = users.id
            WHERE room_members.room_id = ?
            """), arguments: [roomId])
        var map: [String: Int64] = [:]
        for row in rows { map[row["nickname"]] = min(map[row["nickname"]] ?? .max, row["id"]) }
        return map
    }

    /// Writes whom a message mentions: the members named, and for `@channel`/`@all` every
    /// member of the room, for `@here` those of them in `online`; never its author. Answers
    /// them, the named ones first.
    static func recordMentions(_ db: Database, messageId: Int64, roomId: Int64, authorId: Int64,
                               rendered: MessageHTML.Rendered, online: Set<Int64>) throws -> [Int64] {
        guard !rendered.mentioned.isEmpty || !rendered.groups.isEmpty else { return [] }
        var recipients = rendered.mentioned
        if !rendered.groups.isEmpty {
            let everyone = !rendered.groups.isDisjoint(with: [.channel, .all])
            var named = Set(recipients)
            for id in try Int64.fetchAll(db, sql: "SELECT user_id FROM room_members WHERE room_id = ? ORDER BY user_id",
                                         arguments: [roomId]) where (everyone || online.contains(id)) && named.insert(id).inserted {
                recipients.append(id)
            }
        }
        recipients.removeAll { $0 == authorId }
        for id in recipients {
            try db.cachedStatement(sql: "INSERT INTO mentions (user_id, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING")
                .execute(arguments: [id, messageId])
        }
        return recipients
    }
}
