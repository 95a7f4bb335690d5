import Foundation
import GRDB

/// What a thread's changes tell the room, written in the transaction of the change.
enum ThreadEvents {
    /// A reply came or went: the line under the root as it is now (`html` empty when the last
    /// reply went), so every open page of the room redraws it.
    static func summaryChanged(_ db: Database, rootId: Int64, room: Room, outbox: EventOutbox,
                               render: (ThreadSummary, Int64) -> String) throws {
        let summary = try ThreadRecords.summaries(db, rootIds: [rootId])[rootId]
        let json = CompactJSON.object([
            "html": .string(summary.map { render($0, room.workspaceId) } ?? ""), "replyCount": .int(summary?.replyCount ?? 0),
            "roomId": .int(room.id!), "rootId": .int(rootId), "workspaceId": .int(room.workspaceId),
        ])
        try outbox.publish(OutgoingEvent(.threadUpdated, to: .room(room.id!), json: json), in: db)
    }

    /// A root with replies was deleted: it stays as a placeholder that holds its thread, without
    /// its text, files, reactions, pin, saves, mentions, card or search entry. Earlier events
    /// show the placeholder instead of the text, and the room is told as for an edit.
    static func leavePlaceholder(_ db: Database, rootId: Int64, room: Room, at now: Date, outbox: EventOutbox,
                                 render: (MessageRow) -> String) throws {
        let wasPinned = try SQLitePinStore(db: db).isPinned(messageId: rootId)
        let hadReactions = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM reactions WHERE message_id = ?)",
                                             arguments: [rootId]) ?? false
        try db.execute(sql: """
            UPDATE messages SET body = '', body_html = '', deleted_at = ?, edited_at = ? WHERE id = ?;
            DELETE FROM message_files WHERE message_id = ?;
            DELETE FROM reactions WHERE message_id = ?;
            DELETE FROM pins WHERE message_id = ?;
            DELETE FROM saved_messages WHERE message_id = ?;
            DELETE FROM mentions WHERE message_id = ?;
            DELETE FROM link_previews WHERE message_id = ?;
            DELETE FROM message_index WHERE rowid = ?;
            """, arguments: [now, now, rootId, rootId, rootId, rootId, rootId, rootId, rootId, rootId])
        let row = try MessageService.row(db, id: rootId, hasFiles: false)
        let html = render(row)
        try MessageEventScrub.placeholder(db, messageId: rootId, html: html)
        var event = OutgoingEvent(.messageUpdated, to: .room(room.id!),
                                  json: MessagePayload(row, room: room, html: html, mentions: []).json)
        event.messageId = rootId
        try outbox.publish(event, in: db)
        if wasPinned { try PinService.announceDeleted(SQLiteTransaction(db, outbox: outbox), messageId: rootId, room: room) }
        if hadReactions {
            let payload = ReactionsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: rootId, groups: [])
            try outbox.publish(OutgoingEvent(.reactionsChanged, to: .room(room.id!), payload: payload), in: db)
        }
    }
}
