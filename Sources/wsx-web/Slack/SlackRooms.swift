import Foundation
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

/// Rooms for conversations, found or made inside the import's transactions (`tx.slackImport`
/// reads and writes what other stores do not).
enum SlackRooms {
    /// The room an earlier import made for the conversation, else one already here that it
    /// joins (a channel of the same name, the pair's direct messages, the group of exactly these
    /// people, the default channel for Slack's general one), else a new one. Answers it and
    /// whether it is new.
    /// `participants` are everyone the conversation had (a direct message's pair), `members`
    /// those of them who will be in the room.
    static func room(_ tx: any StoreTransaction, for plan: SlackConversationPlan, workspace: Workspace, participants: [Int64],
                     members: [Int64], creator: Int64?, at now: Date) throws -> (room: Room, isNew: Bool) {
        let workspaceId = workspace.id!
        if let id = try tx.slackImport.localId(workspaceId: workspaceId, kind: .room, slackId: plan.slackId),
           let room = try tx.rooms.room(id: id), room.workspaceId == workspaceId {
            return (room, false)
        }
        let found: Room?
        switch plan.kind {
        case .channel:
            found = plan.isGeneral ? try workspace.defaultRoom(tx)
                : try tx.slackImport.channel(workspaceId: workspaceId, nameKey: NameRules.key(channelName(plan)))
        case .direct:
            found = try tx.slackImport.conversation(workspaceId: workspaceId, kind: .dm,
                                                    dmKey: directKey(plan, participants: participants))
        case .group:
            found = members.count < 2 ? nil
                : try tx.slackImport.conversation(workspaceId: workspaceId, kind: .group, dmKey: GroupRooms.key(members))
        }
        if let found {
            try tx.slackImport.remember(workspaceId: workspaceId, kind: .room, slackId: plan.slackId, localId: found.id!)
            return (found, false)
        }
        let created = plan.conversation.created.map(\.date) ?? now
        var room: Room
        switch plan.kind {
        case .channel(let isPrivate):
            let name = try freeName(tx, workspaceId: workspaceId, wanted: channelName(plan))
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
        room = try tx.rooms.create(room, members: [], at: now)
        try tx.slackImport.remember(workspaceId: workspaceId, kind: .room, slackId: plan.slackId, localId: room.id!)
        return (room, true)
    }

    /// Renders these messages again now that every channel of the export exists (`channels`):
    /// a message may name one imported after its own conversation. Their mentions are read as
    /// when they were written.
    static func linkChannels(_ tx: any StoreTransaction, messageIds: [Int64], channels: ChannelDirectory) throws {
        let rows = try tx.slackImport.messageTexts(ids: messageIds)
        var mentions: [Int64: MentionDirectory] = [:]
        for row in rows {
            let roomId = row.roomId
            if mentions[roomId] == nil { mentions[roomId] = try tx.slackImport.mentionDirectory(roomId: roomId) }
            let html = MessageHTML.render(row.body, members: mentions[roomId]!, channels: channels).html
            if html != row.html {
                try tx.slackImport.setHTML(html, messageId: row.id)
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
    private static func freeName(_ tx: any StoreTransaction, workspaceId: Int64, wanted: String) throws -> String {
        var name = wanted, number = 1
        while try tx.slackImport.isChannelNameTaken(workspaceId: workspaceId, nameKey: NameRules.key(name)) {
            number += 1
            let suffix = "-\(number)"
            name = NameRules.channelName.clamped(String(wanted.prefix(NameRules.channelName.characters - suffix.count))) + suffix
        }
        return name
    }

    /// Puts the room's people in it, reading everything brought over: newcomers read up to its
    /// newest message, and members who had read everything before the import (`caughtUpAt`) read
    /// what it brought too. A group's key follows its members.
    static func settle(_ tx: any StoreTransaction, room: Room, members: [Int64], caughtUpAt: Int64, at now: Date) throws {
        try tx.slackImport.settle(roomId: room.id!, members: members, caughtUpAt: caughtUpAt, at: now)
        try GroupRooms.rememberMembers(tx, of: room)
    }
}
