import Foundation
import GRDB
import Mail
import Views

/// `MailQueueStore` on SQLite: `mail_outbox`, and the digest's columns of `users`.
struct SQLiteMailQueueStore: MailQueueStore {
    let db: Database

    func enqueue(kind: MailOutbox.Kind, recipient: String, workspaceId: Int64?, message: String, at now: Date) throws {
        try db.execute(sql: """
            INSERT INTO mail_outbox (kind, recipient, workspace_id, message, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [kind.rawValue, recipient, workspaceId, message, Timestamps.database(now), Timestamps.database(now)])
    }

    func due(at now: Date, limit: Int) throws -> [MailOutbox.Due] {
        let stamp = Timestamps.database(now)
        return try Row.fetchAll(db, sql: """
            SELECT id, recipient, message, attempts FROM mail_outbox
            WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
            """, arguments: [stamp, limit]).map { MailOutbox.Due(id: $0["id"], recipient: $0["recipient"], message: $0["message"], attempts: $0["attempts"]) }
    }

    /// In the write's transaction: SQLite's single writer takes them before anyone else reads.
    func claim(at now: Date, limit: Int, until lease: Date) throws -> [MailOutbox.Due] {
        let due = try due(at: now, limit: limit)
        try postpone(ids: due.map(\.id), until: lease)
        return due
    }

    func nextDue() throws -> Date? {
        try Date.fetchOne(db, sql: """
            SELECT MIN(next_attempt_at) FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL
            """)
    }

    func language(emailKey: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT lang FROM users WHERE email_key = ?", arguments: [emailKey])
    }

    func queueLength() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL") ?? 0
    }

    func failedCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mail_outbox WHERE failed_at IS NOT NULL AND cleared_at IS NULL") ?? 0
    }

    func markSent(id: Int64, at now: Date) throws {
        let stamp = Timestamps.database(now)
        try db.execute(sql: "UPDATE mail_outbox SET sent_at = ?, message = '', attempts = attempts + 1 WHERE id = ?",
                       arguments: [stamp, id])
        try db.execute(sql: """
            UPDATE mail_outbox SET cleared_at = ?
            WHERE failed_at IS NOT NULL AND cleared_at IS NULL AND id < ?
              AND (kind, recipient, IFNULL(workspace_id, 0)) = (SELECT kind, recipient, IFNULL(workspace_id, 0) FROM mail_outbox WHERE id = ?)
            """, arguments: [stamp, id, id])
    }

    func markFailed(id: Int64, error: String, reason: SMTPFailureReason, next: Date?, at now: Date) throws {
        if let next {
            try db.execute(sql: """
                UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, failure = ?, next_attempt_at = ? WHERE id = ?
                """, arguments: [error, reason.rawValue, Timestamps.database(next), id])
        } else {
            try db.execute(sql: """
                UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, failure = ?, failed_at = ?, message = ''
                WHERE id = ?
                """, arguments: [error, reason.rawValue, Timestamps.database(now), id])
        }
    }

    func postpone(ids: [Int64], until time: Date) throws {
        try db.execute(sql: """
            UPDATE mail_outbox SET next_attempt_at = ? WHERE id IN (\(databaseQuestionMarks(count: ids.count)))
              AND sent_at IS NULL AND failed_at IS NULL
            """, arguments: StatementArguments([Timestamps.database(time)] + ids.map { $0 as (any DatabaseValueConvertible) }))
    }

    func failures(workspaceId: Int64) throws -> [MailOutbox.Failure] {
        try Row.fetchAll(db, sql: """
            SELECT kind, recipient, failure, failed_at FROM mail_outbox
            WHERE workspace_id = ? AND failed_at IS NOT NULL AND cleared_at IS NULL ORDER BY failed_at DESC, id DESC LIMIT 20
            """, arguments: [workspaceId]).map(Self.failure)
    }

    func failures(limit: Int) throws -> [MailOutbox.Failure] {
        try Row.fetchAll(db, sql: """
            SELECT kind, recipient, failure, failed_at FROM mail_outbox
            WHERE failed_at IS NOT NULL AND cleared_at IS NULL ORDER BY failed_at DESC, id DESC LIMIT ?
            """, arguments: [limit]).map(Self.failure)
    }

    private static func failure(_ row: Row) -> MailOutbox.Failure {
        MailOutbox.Failure(kind: MailOutbox.Kind(rawValue: row["kind"]) ?? .invitation, recipient: row["recipient"],
                           reason: (row["failure"] as String?).flatMap(SMTPFailureReason.init(rawValue:)) ?? .refused,
                           failedAt: row["failed_at"] ?? .distantPast)
    }

    func digestUnread(postedFrom since: Date, until cutoff: Date) throws -> [DigestUnreadRow] {
        try Row.fetchAll(db, sql: """
            SELECT u.id AS user_id, u.email, u.nickname, COALESCE(u.lang, '') AS lang, m.id AS message_id, m.body,
                   m.thread_root_id, r.id AS room_id, r.kind, r.name, r.workspace_id, r.dm_key,
                   COALESCE(a.nickname, '') AS author
            FROM users u
            JOIN room_members rm ON rm.user_id = u.id
            JOIN rooms r ON r.id = rm.room_id AND r.archived_at IS NULL
            JOIN messages m ON m.room_id = rm.room_id
            LEFT JOIN users a ON a.id = m.author_id
            WHERE u.mail_digest = 1 AND u.password_hash <> '' AND m.id > u.digest_through AND m.id > rm.last_read_message_id
              AND m.deleted_at IS NULL AND (m.author_id IS NULL OR m.author_id <> u.id)
              AND m.created_at <= ? AND m.created_at >= ?
              AND (r.kind IN ('dm', 'group') OR EXISTS (SELECT 1 FROM mentions WHERE mentions.user_id = u.id AND mentions.message_id = m.id))
            ORDER BY u.id, m.id
            LIMIT 2000
            """, arguments: [Timestamps.database(cutoff), Timestamps.database(since)]).map(Self.digestRow)
    }

    private static func digestRow(_ row: Row) -> DigestUnreadRow {
        let userId: Int64 = row["user_id"], email: String = row["email"], nickname: String = row["nickname"]
        let lang: String = row["lang"], messageId: Int64 = row["message_id"], body: String = row["body"]
        let threadRootId: Int64? = row["thread_root_id"], roomId: Int64 = row["room_id"], kind: String = row["kind"]
        let name: String? = row["name"], workspaceId: Int64 = row["workspace_id"], dmKey: String? = row["dm_key"]
        let author: String = row["author"]
        return DigestUnreadRow(userId: userId, email: email, nickname: nickname, lang: lang, messageId: messageId, body: body,
                               threadRootId: threadRootId, roomId: roomId, kind: kind, name: name, workspaceId: workspaceId,
                               dmKey: dmKey, author: author)
    }

    func advanceDigest(userId: Int64, through: Int64) throws -> Bool {
        // Written once: a second look (another loop, a restart) finds the marker moved.
        try db.execute(sql: "UPDATE users SET digest_through = ? WHERE id = ? AND digest_through < ? AND mail_digest = 1",
                       arguments: [through, userId, through])
        return db.changesCount == 1
    }
}

extension MailOutbox {
    /// Queues one mail in the caller's transaction, for code still holding a GRDB connection
    /// (`EmailConfirmations`); elsewhere `tx.mail.enqueue`.
    static func enqueue(_ db: Database, kind: Kind, recipient: String, workspaceId: Int64?, message: String, at now: Date) throws {
        try SQLiteMailQueueStore(db: db).enqueue(kind: kind, recipient: recipient, workspaceId: workspaceId, message: message, at: now)
    }
}

/// `PushSubscriptionStore` on SQLite: `push_subscriptions` and `push_queue`.
struct SQLitePushSubscriptionStore: PushSubscriptionStore {
    let db: Database

    func subscribe(_ subscription: PushStore.Subscription, userId: Int64, sessionId: Int64, keeping: Int, at now: Date) throws {
        let stamp = Timestamps.database(now)
        try db.execute(sql: """
            INSERT INTO push_subscriptions (user_id, session_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id, session_id = excluded.session_id,
                p256dh = excluded.p256dh, auth = excluded.auth
            """, arguments: [userId, sessionId, subscription.endpoint, subscription.p256dh, subscription.auth, stamp])
        try db.execute(sql: """
            DELETE FROM push_subscriptions WHERE user_id = ? AND id NOT IN
                (SELECT id FROM push_subscriptions WHERE user_id = ? ORDER BY id DESC LIMIT ?)
            """, arguments: [userId, userId, keeping])
    }

    func unsubscribe(endpoint: String, userId: Int64) throws {
        try db.execute(sql: "DELETE FROM push_subscriptions WHERE endpoint = ? AND user_id = ?", arguments: [endpoint, userId])
    }

    func count(userId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_subscriptions WHERE user_id = ?", arguments: [userId]) ?? 0
    }

    func recipients(roomId: Int64, authorId: Int64?) throws -> [PushStore.Recipient] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT push_subscriptions.id, push_subscriptions.user_id, COALESCE(room_members.notify_level, users.notify_default)
            FROM push_subscriptions
            JOIN room_members ON room_members.user_id = push_subscriptions.user_id AND room_members.room_id = ?
            JOIN users ON users.id = push_subscriptions.user_id AND users.deactivated_at IS NULL
            WHERE push_subscriptions.user_id IS NOT ?
            """), arguments: [roomId, authorId]).map { row in
            PushStore.Recipient(subscriptionId: row[0], userId: row[1], level: NotifyLevel(rawValue: row[2]) ?? .standard)
        }
    }

    func enqueue(_ payload: String, to subscriptionIds: [Int64], at now: Date) throws {
        let stamp = Timestamps.database(now)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO push_queue (subscription_id, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?)
            """)
        for id in subscriptionIds { try insert.execute(arguments: [id, payload, stamp, stamp]) }
    }

    func due(at now: Date, limit: Int) throws -> [PushStore.Due] {
        let stamp = Timestamps.database(now)
        return try Row.fetchAll(db, sql: """
            SELECT push_queue.id, push_queue.subscription_id, push_queue.payload, push_queue.attempts,
                   push_subscriptions.endpoint, push_subscriptions.p256dh, push_subscriptions.auth
            FROM push_queue JOIN push_subscriptions ON push_subscriptions.id = push_queue.subscription_id
            WHERE push_queue.next_attempt_at <= ? ORDER BY push_queue.next_attempt_at, push_queue.id LIMIT ?
            """, arguments: [stamp, limit]).map { row in
            PushStore.Due(id: row[0], subscriptionId: row[1],
                          subscription: PushStore.Subscription(endpoint: row[4], p256dh: row[5], auth: row[6]),
                          payload: row[2], attempts: row[3])
        }
    }

    /// In the write's transaction: SQLite's single writer takes them before anyone else reads.
    func claim(at now: Date, limit: Int, until lease: Date) throws -> [PushStore.Due] {
        let due = try due(at: now, limit: limit)
        let postpone = try db.cachedStatement(sql: "UPDATE push_queue SET next_attempt_at = ? WHERE id = ?")
        for push in due { try postpone.execute(arguments: [Timestamps.database(lease), push.id]) }
        return due
    }

    func nextDue() throws -> Date? {
        try Date.fetchOne(db, sql: "SELECT MIN(next_attempt_at) FROM push_queue")
    }

    func finish(id: Int64) throws {
        try db.execute(sql: "DELETE FROM push_queue WHERE id = ?", arguments: [id])
    }

    func retry(id: Int64, at: Date) throws {
        try db.execute(sql: "UPDATE push_queue SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?",
                       arguments: [Timestamps.database(at), id])
    }

    func drop(subscriptionId: Int64) throws {
        try db.execute(sql: "DELETE FROM push_subscriptions WHERE id = ?", arguments: [subscriptionId])
    }
}
