import Foundation
import GRDB
import SlackFormat
import Views

/// A conversation of the export and what it becomes here: a public or private channel, a
/// direct message, or a group conversation.
struct SlackConversationPlan: Sendable {
    enum Kind: Sendable, Equatable {
        case channel(isPrivate: Bool)
        case direct
        case group
    }

    let conversation: SlackConversation
    let kind: Kind

    var slackId: String { conversation.id }
    var isGeneral: Bool { conversation.isGeneral == true }
}

/// Rooms for conversations, found or made inside the import's transactions. SQL about rooms
/// an import makes lives here.
enum SlackRooms {
    /// The room an earlier import made for the conversation, else one already here that it
    /// joins (a channel of the same name, the pair's direct messages, the group of exactly these
    /// people, the default channel for Slack's general one), else a new one. Answers it and
    /// whether it is new.
    /// `participants` are everyone the conversation had (a direct message's pair), `members`
    /// those of them who will be in the room.
    static func room(_ db: Database, for plan: SlackConversationPlan, workspace: Workspace, participants: [Int64],
                     members: [Int64], creator: Int64?, at now: Date) throws -> (room: Room, isNew: Bool) {
        let workspaceId = workspace.id!
        if let id = try SlackIds.local(db, workspaceId: workspaceId, kind: .room, slackId: plan.slackId),
           let room = try Room.fetchOne(db, key: id), room.workspaceId == workspaceId {
            return (room, false)
        }
        let found: Room?
        switch plan.kind {
        case .channel:
            found = plan.isGeneral ? try workspace.defaultRoom(db)
                : try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "channel"
                                  && Room.CodingKeys.nameKey == NameRules.key(channelName(plan))).fetchOne(db)
        case .direct:
            found = try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "dm"
                                    && Room.CodingKeys.dmKey == directKey(plan, participants: participants)).fetchOne(db)
        case .group:
            found = members.count < 2 ? nil
                : try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "group"
                                  && Room.CodingKeys.dmKey == GroupRooms.key(members)).fetchOne(db)
        }
        if let found {
            try SlackIds.remember(db, workspaceId: workspaceId, kind: .room, slackId: plan.slackId, localId: found.id!)
            return (found, false)
        }
        let created = plan.conversation.created.map(\.date) ?? now
        var room: Room
        switch plan.kind {
        case .channel(let isPrivate):
            let name = try freeName(db, workspaceId: workspaceId, wanted: channelName(plan))
            let description = NameRules.description.clamped(
                (plan.conversation.purpose?.value ?? plan.conversation.topic?.value ?? "").cleanedText)
            room = Room(id: nil, workspaceId: workspaceId, kind: .channel, name: name, nameKey: NameRules.key(name),
                        description: description, ownerId: creator.flatMap { members.contains($0) ? $0 : nil } ?? workspace.ownerId,
                        isDefault: false, dmKey: nil, createdAt: created, updatedAt: now,
                        visibility: isPrivate ? .private : .public, archivedAt: plan.conversation.isArchived == true ? now : nil)
        case .direct:
            room = Room(id: nil, workspaceId: workspaceId, kind: .dm, name: "", nameKey: "", description: "", ownerId: nil,
                        isDefault: false, dmKey: directKey(plan, participants: participants), createdAt: created, updatedAt: now)
        case .group:
            room = Room(id: nil, workspaceId: workspaceId, kind: .group, name: "", nameKey: "", description: "", ownerId: nil,
                        isDefault: false, dmKey: GroupRooms.key(members), createdAt: created, updatedAt: now)
        }
        room = try room.inserted(db)
        try SlackIds.remember(db, workspaceId: workspaceId, kind: .room, slackId: plan.slackId, localId: room.id!)
        return (room, true)
    }

    /// The workspace's messages written after `lastMessageId` that may name a channel (`#개발`).
    static func messagesNamingChannels(_ db: Database, workspaceId: Int64, after lastMessageId: Int64) throws -> [Int64] {
        try Int64.fetchAll(db, sql: """
            SELECT id FROM messages
            WHERE id > ? AND room_id IN (SELECT id FROM rooms WHERE workspace_id = ?) AND deleted_at IS NULL AND body LIKE '%#%'
            ORDER BY id
            """, arguments: [lastMessageId, workspaceId])
    }

    /// Renders these messages again now that every channel of the export exists (`channels`):
    /// a message may name one imported after its own conversation. Their mentions are read as
    /// when they were written.
    static func linkChannels(_ db: Database, messageIds: [Int64], channels: ChannelDirectory) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, room_id, body, body_html FROM messages WHERE id IN (\(messageIds.map(String.init).joined(separator: ",")))")
        var mentions: [Int64: MentionDirectory] = [:]
        for row in rows {
            let roomId: Int64 = row["room_id"]
            if mentions[roomId] == nil { mentions[roomId] = try MessageService.mentionDirectory(db, roomId: roomId) }
            let html = MessageHTML.render(row["body"], members: mentions[roomId]!, channels: channels).html
            if html != row["body_html"] {
                try db.execute(sql: "UPDATE messages SET body_html = ? WHERE id = ?", arguments: [html, row["id"] as Int64])
            }
        }
    }

    /// A direct message's pair: the two people here (one, for notes to oneself).
    private static func directKey(_ plan: SlackConversationPlan, participants: [Int64]) -> String {
        participants.count >= 2 ? DirectRooms.key(participants[0], participants[1])
            : participants.first.map { DirectRooms.key($0, $0) } ?? "slack:\(plan.slackId)"
    }

    /// The channel's name as names are kept here (within the length a channel name may have).
    static func channelName(_ plan: SlackConversationPlan) -> String {
        let name = (plan.conversation.name ?? plan.slackId).cleanedLine
        return NameRules.channelName.clamped(name.isEmpty ? plan.slackId : name)
    }

    /// `wanted`, or with `-2`, `-3`… when another channel has its name.
    private static func freeName(_ db: Database, workspaceId: Int64, wanted: String) throws -> String {
        var name = wanted, number = 1
        while try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "channel"
                              && Room.CodingKeys.nameKey == NameRules.key(name)).fetchCount(db) > 0 {
            number += 1
            let suffix = "-\(number)"
            name = NameRules.channelName.clamped(String(wanted.prefix(NameRules.channelName.characters - suffix.count))) + suffix
        }
        return name
    }

    /// Puts the room's people in it, reading everything brought over: newcomers read up to its
    /// newest message, and members who had read everything before the import (`caughtUpAt`) read
    /// what it brought too. A group's key follows its members.
    static func settle(_ db: Database, room: Room, members: [Int64], caughtUpAt: Int64, at now: Date) throws {
        let newest = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = ?",
                                        arguments: [room.id!]) ?? 0
        for member in members {
            try db.execute(sql: """
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, arguments: [room.id!, member, now, newest])
        }
        try db.execute(sql: """
            UPDATE room_members SET last_read_message_id = ? WHERE room_id = ? AND last_read_message_id >= ? AND last_read_message_id < ?
            """, arguments: [newest, room.id!, caughtUpAt, newest])
        try GroupRooms.rememberMembers(db, of: room)
    }

    /// The newest message of the room's timeline before the import wrote any: who had read it
    /// had read everything.
    static func newestMessage(_ db: Database, roomId: Int64) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = ? AND in_timeline = 1",
                           arguments: [roomId]) ?? 0
    }

    /// Everyone who wrote in a thread, or was mentioned there, and is in its room follows it,
    /// having read it.
    static func followThreads(_ db: Database, roomId: Int64, roots: some Sequence<Int64>) throws {
        for root in roots {
            try db.execute(sql: """
                INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
                SELECT people.user_id, ?1, ?2, 0 FROM (
                    SELECT author_id AS user_id FROM messages WHERE (id = ?1 OR thread_root_id = ?1) AND author_id IS NOT NULL
                    UNION SELECT mentions.user_id FROM mentions JOIN messages ON messages.id = mentions.message_id
                    WHERE messages.id = ?1 OR messages.thread_root_id = ?1
                ) AS people JOIN room_members ON room_members.room_id = ?2 AND room_members.user_id = people.user_id
                WHERE true ON CONFLICT DO NOTHING
                """, arguments: [root, roomId])
            try db.execute(sql: """
                UPDATE thread_follows SET last_read_id = (SELECT MAX(id) FROM messages WHERE thread_root_id = ?1)
                WHERE root_id = ?1 AND last_read_id < (SELECT MAX(id) FROM messages WHERE thread_root_id = ?1)
                """, arguments: [root])
        }
    }
}
