import Foundation
import Logging
import ServiceLifecycle
import Views

/// Mails each person the mentions and direct messages they have missed: a message that has
/// stayed unread for `after` (an hour by default) while its reader is not online, once, in
/// their language. Someone online (a tab open and in use) reads it there instead; someone who
/// turned the digest off in their profile, or with the mail's one-click unsubscribe, gets none.
/// Only the last day is looked at, so turning mail on never sends a backlog.
struct DigestMailer: Service {
    let database: AppDatabase
    let hub: RealtimeHub
    let composer: MailComposer
    let sender: MailSender
    let serverKey: ServerKey
    /// How long a message stays unread before it is mailed.
    let after: TimeInterval
    let clock: WallClock
    let logger: Logger
    /// Messages told of in one mail, at most.
    static let itemsPerMail = 20

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let queued = try await mailDue()
                    if queued > 0 {
                        sender.wake()
                        logger.info("digests queued", metadata: ["count": "\(queued)"])
                    }
                } catch {
                    logger.error("digests failed", metadata: ["error": "\(String(reflecting: error))"])
                }
                // Checked a few times per `after`, at least every five minutes.
                try await Task.sleep(for: .milliseconds(Int(min(after / 4, 300) * 1000)))
            }
        }
    }

    /// Queues the digests due now; returns how many.
    func mailDue() async throws -> Int {
        let now = clock.now()
        let candidates = try await database.queryOffLoop { tx in try Self.unread(tx, now: now, after: after) }
        var queued = 0
        for (userId, items) in candidates {
            guard await hub.presence(of: userId) != .online, let first = items.first else { continue }
            let lang = Lang(rawValue: first.lang) ?? .fallback
            let mailItems = items.prefix(Self.itemsPerMail).map { item in
                MailComposer.DigestItem(place: item.place, author: item.author, excerpt: Self.excerpt(item.body), path: item.path)
            }
            let message = composer.digest(to: first.email, nickname: first.nickname, items: Array(mailItems),
                                          unsubscribePath: Paths.unsubscribe(Self.unsubscribeToken(userId: userId, key: serverKey)),
                                          lang: lang)
            let through = items.map(\.messageId).max() ?? 0
            let sent = try await database.write { tx -> Bool in
                // Written once: a second look (another loop, a restart) finds the marker moved.
                guard try tx.mail.advanceDigest(userId: userId, through: through) else { return false }
                try tx.mail.enqueue(kind: .digest, recipient: first.email, workspaceId: nil, message: message, at: now)
                return true
            }
            if sent { queued += 1 }
        }
        return queued
    }

    /// One unread message for the digest.
    struct Unread: Sendable {
        let userId: Int64
        let email: String
        let nickname: String
        let lang: String
        let messageId: Int64
        let body: String
        let place: String
        let author: String
        let path: String
    }

    /// Mentions of each person, and messages to them in conversations, unread since before
    /// `now - after` and newer than their last digest, within the last day.
    static func unread(_ tx: any StoreTransaction, now: Date, after: TimeInterval) throws -> [(Int64, [Unread])] {
        let rows = try tx.mail.digestUnread(postedFrom: now.addingTimeInterval(-86_400), until: now.addingTimeInterval(-after))
        var grouped: [(Int64, [Unread])] = []
        for row in rows {
            let userId = row.userId
            let kind = row.kind
            let workspaceId = row.workspaceId
            let messageId = row.messageId
            let roomId = row.roomId
            let author = row.author
            let path: String
            if let root = row.threadRootId {
                path = Paths.thread(workspaceId, root, fragment: "m-\(messageId)")
            } else if kind == "channel" {
                path = Paths.message(messageId, on: Paths.channel(workspaceId, roomId))
            } else {
                path = Paths.message(messageId, on: Paths.group(workspaceId, roomId))
            }
            let place = kind == "channel" ? "#" + (row.name ?? "") : author
            let item = Unread(userId: userId, email: row.email, nickname: row.nickname, lang: row.lang, messageId: messageId,
                              body: row.body, place: place, author: author, path: kind == "dm" ? dmPath(row, for: userId) : path)
            if grouped.last?.0 == userId { grouped[grouped.count - 1].1.append(item) } else { grouped.append((userId, [item])) }
        }
        return grouped
    }

    /// A 1:1 conversation's page, as its reader sees it (named by the other person).
    private static func dmPath(_ row: DigestUnreadRow, for userId: Int64) -> String {
        let key = row.dmKey ?? ""
        let partner = key.split(separator: ":").compactMap { Int64($0) }.first { $0 != userId } ?? userId
        return Paths.message(row.messageId, on: Paths.directMessages(row.workspaceId, partner))
    }

    /// The first words of a message, on one line.
    static func excerpt(_ body: String) -> String {
        let line = body.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 140 ? String(line.prefix(139)) + "…" : line
    }

    /// The token of a person's one-click unsubscribe link: their id and a code only this
    /// server can make for it.
    static func unsubscribeToken(userId: Int64, key: ServerKey) -> String {
        "\(userId).\(key.code("digest-unsubscribe", "\(userId)"))"
    }

    /// Whose link `token` is, when it is genuine.
    static func unsubscriber(_ token: String, key: ServerKey) -> Int64? {
        let parts = token.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let userId = Int64(parts[0]),
              SecretToken.constantTimeEquals(String(parts[1]), key.code("digest-unsubscribe", "\(userId)")) else { return nil }
        return userId
    }
}
