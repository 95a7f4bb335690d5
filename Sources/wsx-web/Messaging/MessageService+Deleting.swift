import Foundation
import GRDB

extension MessageService {
    /// Deletes a message: its author may, and so may the workspace owner. A thread's root with
    /// replies becomes a placeholder that keeps them; a reply's thread line changes, and a
    /// placeholder goes with its last reply.
    func delete(messageId: Int64, in access: WorkspaceAccess) async throws -> Room {
        let outbox = database.outbox, fragment = self.fragment, threadFragment = self.threadFragment, now = clock.now()
        return try await database.writer.write { db in
            let (message, room) = try Self.writableMessage(db, id: messageId, access)
            guard message.authorId == access.userId || access.isOwner else {
                throw AppError.forbidden("error_message_delete_rights")
            }
            if try ThreadRecords.hasReplies(db, rootId: messageId) {
                try ThreadEvents.leavePlaceholder(db, rootId: messageId, room: room, at: now, outbox: outbox,
                                                  render: { fragment($0, room.workspaceId) })
                return room
            }
            try ThreadRecords.replyRemoved(db, message)
            try Self.remove(db, messageId: messageId, room: room, outbox: outbox)
            if let rootId = message.threadRootId {
                if try Message.fetchOne(db, key: rootId)?.deletedAt != nil, !(try ThreadRecords.hasReplies(db, rootId: rootId)) {
                    try Self.remove(db, messageId: rootId, room: room, outbox: outbox)
                } else {
                    try ThreadEvents.summaryChanged(db, rootId: rootId, room: room, outbox: outbox, render: threadFragment)
                }
            }
            return room
        }
    }

    /// Deletes one message row with what goes with it, and tells the room.
    private static func remove(_ db: Database, messageId: Int64, room: Room, outbox: EventOutbox) throws {
        let wasPinned = try SQLitePinStore(db: db).isPinned(messageId: messageId)
        try Message.deleteOne(db, key: messageId)
        try MessageEventScrub.deleted(db, messageId: messageId)
        var event = OutgoingEvent(.messageDeleted, to: .room(room.id!),
                                  payload: MessageDeletedPayload(workspaceId: room.workspaceId, roomId: room.id!,
                                                                 messageId: messageId))
        event.messageId = messageId
        try outbox.publish(event, in: db)
        if wasPinned { try PinService.announceDeleted(SQLiteTransaction(db, outbox: outbox), messageId: messageId, room: room) }
    }
}
