import Foundation
import Logging
import ServiceLifecycle
import Views

/// Decides who a new message is pushed to and queues it: each member of its room with a
/// subscription, by their level there (all; mentions and DMs, group DMs and followed threads;
/// mute: mentions only, as in Slack), when none of their tabs is in use. Follows the committed
/// events, so a post never waits for it; the sender takes the queue at once.
struct PushNotifier: Service, Sendable {
    let store: PushStore
    let hub: RealtimeHub
    let events: AsyncStream<[CommittedEvent]>
    let doorbell: Doorbell
    let logger: Logger

    func run() async throws {
        // On graceful shutdown the loop is cancelled: the stream would otherwise outlive the app.
        await cancelWhenGracefulShutdown {
            for await batch in events {
                for committed in batch where committed.event.type == .messageCreated {
                    do {
                        try await queue(committed.event)
                    } catch {
                        logger.warning("push: could not queue a message's pushes", metadata: ["error": "\(error)"])
                    }
                }
            }
        }
    }

    private func queue(_ event: OutgoingEvent) async throws {
        // A message's event goes to its room. Who there has a subscription is read first: most
        // posts go to rooms where nobody has one, and decoding the payload with Foundation's
        // JSONDecoder was 3% of a post's CPU (`bench/profile.py post`).
        guard case .room(let roomId) = event.audience else { return }
        let subscribed = try store.recipients(roomId: roomId, authorId: nil)
        guard !subscribed.isEmpty,
              let message = try? JSONDecoder().decode(MessagePayload.self, from: Data(event.payload.utf8)) else { return }
        var chosen: [Int64] = []
        var inUse: [Int64: Bool] = [:]
        for recipient in subscribed
        where recipient.userId != message.authorId && Self.notifies(message, userId: recipient.userId, level: recipient.level) {
            if inUse[recipient.userId] == nil { inUse[recipient.userId] = await hub.presence(of: recipient.userId) == .online }
            if inUse[recipient.userId] == false { chosen.append(recipient.subscriptionId) }
        }
        guard !chosen.isEmpty else { return }
        try await store.enqueue(Self.payload(message), to: chosen)
        doorbell.ring()
    }

    /// Whether `message` speaks to `userId` at `level` (the same rule as the page's desktop
    /// notifications, chat.js `notify`).
    static func notifies(_ message: MessagePayload, userId: Int64, level: NotifyLevel) -> Bool {
        let mentioned = message.mentions.contains(userId)
        if mentioned { return true }
        // A reply kept in its thread speaks only to the thread's followers.
        let follows = message.followers?.contains(userId) ?? false
        if message.threadRootId != nil, message.inTimeline == false, !follows { return false }
        switch level {
        case .all: return true
        case .mute: return false
        case .mentions: return message.roomKind != "channel" || follows
        }
    }

    /// What the notification says (sealed for each subscription by the sender): the sender and
    /// room, a preview, and where tapping it leads.
    static func payload(_ message: MessagePayload) -> String {
        let title = message.roomKind == "channel" ? "\(message.authorNickname) · #\(message.roomName)" : message.authorNickname
        let url = message.threadRootId != nil ? message.url : Paths.message(message.messageId, on: message.url)
        return CompactJSON.object([
            "body": .string(message.snippet),
            "messageId": .int(message.messageId),
            "roomId": .int(message.roomId),
            "tag": .string("wsx-m-\(message.messageId)"),
            "title": .string(title),
            "url": .string(url),
        ])
    }
}
