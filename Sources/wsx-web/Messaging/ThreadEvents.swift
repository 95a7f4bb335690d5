import Foundation

/// What a thread's changes tell the room, written in the transaction of the change.
enum ThreadEvents {
    /// A reply came or went: the line under the root as it is now (`html` empty when the last
    /// reply went), so every open page of the room redraws it.
    static func summaryChanged(_ tx: any StoreTransaction, rootId: Int64, room: Room,
                               render: (ThreadSummary, Int64) -> String) throws {
        let summary = try tx.threads.summaries(rootIds: [rootId])[rootId]
        let json = CompactJSON.object([
            "html": .string(summary.map { render($0, room.workspaceId) } ?? ""), "replyCount": .int(summary?.replyCount ?? 0),
            "roomId": .int(room.id!), "rootId": .int(rootId), "workspaceId": .int(room.workspaceId),
        ])
        try tx.publish(OutgoingEvent(.threadUpdated, to: .room(room.id!), json: json))
    }

    /// A root with replies was deleted: it stays as a placeholder that holds its thread, without
    /// its text, files, reactions, pin, saves, mentions, card or search entry. Earlier events
    /// show the placeholder instead of the text, and the room is told as for an edit.
    static func leavePlaceholder(_ tx: any StoreTransaction, rootId: Int64, room: Room, at now: Date,
                                 render: (MessageRow) -> String) throws {
        let wasPinned = try tx.pins.isPinned(messageId: rootId)
        let hadReactions = try tx.reactions.hasAny(messageId: rootId)
        try tx.messages.leavePlaceholder(id: rootId, at: now)
        let row = try tx.messages.row(id: rootId, hasFiles: false)
        let html = render(row)
        try tx.events.scrubPlaceholder(messageId: rootId, html: html)
        var event = OutgoingEvent(.messageUpdated, to: .room(room.id!),
                                  json: MessagePayload(row, room: room, html: html, mentions: []).json)
        event.messageId = rootId
        try tx.publish(event)
        if wasPinned { try PinService.announceDeleted(tx, messageId: rootId, room: room) }
        if hadReactions {
            let payload = ReactionsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: rootId, groups: [])
            try tx.publish(OutgoingEvent(.reactionsChanged, to: .room(room.id!), payload: payload))
        }
    }
}
