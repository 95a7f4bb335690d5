import Foundation

extension MessageService {
    /// Deletes a message: its author may, and so may the workspace owner. A thread's root with
    /// replies becomes a placeholder that keeps them; a reply's thread line changes, and a
    /// placeholder goes with its last reply.
    func delete(messageId: Int64, in access: WorkspaceAccess) async throws -> Room {
        let fragment = self.fragment, threadFragment = self.threadFragment, now = clock.now()
        return try await database.write { tx in
            let (message, room) = try tx.messages.writable(id: messageId, access)
            guard message.authorId == access.userId || access.isOwner else {
                throw AppError.forbidden("error_message_delete_rights")
            }
            if try tx.threads.hasReplies(rootId: messageId) {
                try ThreadEvents.leavePlaceholder(tx, rootId: messageId, room: room, at: now,
                                                  render: { fragment($0, room.workspaceId) })
                return room
            }
            try tx.threads.replyRemoved(message)
            try Self.remove(tx, messageId: messageId, room: room)
            if let rootId = message.threadRootId {
                if try tx.messages.stamp(id: rootId)?.isDeleted == true, !(try tx.threads.hasReplies(rootId: rootId)) {
                    try Self.remove(tx, messageId: rootId, room: room)
                } else {
                    try ThreadEvents.summaryChanged(tx, rootId: rootId, room: room, render: threadFragment)
                }
            }
            return room
        }
    }

    /// Deletes one message row with what goes with it, and tells the room.
    private static func remove(_ tx: any StoreTransaction, messageId: Int64, room: Room) throws {
        let wasPinned = try tx.pins.isPinned(messageId: messageId)
        try tx.messages.delete(id: messageId)
        try tx.events.scrubDeleted(messageId: messageId)
        var event = OutgoingEvent(.messageDeleted, to: .room(room.id!),
                                  payload: MessageDeletedPayload(workspaceId: room.workspaceId, roomId: room.id!,
                                                                 messageId: messageId))
        event.messageId = messageId
        try tx.publish(event)
        if wasPinned { try PinService.announceDeleted(tx, messageId: messageId, room: room) }
    }
}
