import Foundation
import Mail
import PostgresNIO
import Views

/// `MailQueueStore` on PostgreSQL: `mail_outbox`, and the digest's columns of `users`.
struct PostgresMailQueueStore: MailQueueStore {
    let session: PostgresSession

    /// What a mail still waiting is: neither sent nor given up on.
    private static let waiting = "sent_at IS NULL AND failed_at IS NULL"
    /// What a failure still shown is: given up on, and not delivered since.
    private static let unresolved = "failed_at IS NOT NULL AND cleared_at IS NULL"

    func enqueue(kind: MailOutbox.Kind, recipient: String, workspaceId: Int64?, message: String, at now: Date) throws {
        try session.run("""
            INSERT INTO mail_outbox (kind, recipient, workspace_id, message, next_attempt_at, created_at)
            VALUES (\(kind.rawValue), \(recipient), \(workspaceId), \(message), \(now), \(now))
            """)
    }

    func due(at now: Date, limit: Int) throws -> [MailOutbox.Due] {
        try session.run("""
            SELECT id, recipient, message, attempts FROM mail_outbox
            WHERE \(unescaped: Self.waiting) AND next_attempt_at <= \(now) ORDER BY next_attempt_at, id LIMIT \(limit)
            """).map { row in
            let (id, recipient, message, attempts) = try row.decode((Int64, String, String, Int).self)
            return MailOutbox.Due(id: id, recipient: recipient, message: message, attempts: attempts)
        }
    }

    /// Rows another node is taking are skipped (`SKIP LOCKED`), so two senders never take one mail.
    func claim(at now: Date, limit: Int, until lease: Date) throws -> [MailOutbox.Due] {
        try session.run("""
            WITH picked AS (
                SELECT id, next_attempt_at FROM mail_outbox
                WHERE \(unescaped: Self.waiting) AND next_attempt_at <= \(now)
                ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ), taken AS (
                UPDATE mail_outbox SET next_attempt_at = \(lease) FROM picked WHERE mail_outbox.id = picked.id
                RETURNING mail_outbox.id, mail_outbox.recipient, mail_outbox.message, mail_outbox.attempts, picked.next_attempt_at AS due_at
            )
            SELECT id, recipient, message, attempts FROM taken ORDER BY due_at, id
            """).map { row in
            let (id, recipient, message, attempts) = try row.decode((Int64, String, String, Int).self)
            return MailOutbox.Due(id: id, recipient: recipient, message: message, attempts: attempts)
        }
    }

    func nextDue() throws -> Date? {
        try session.run("SELECT MIN(next_attempt_at) FROM mail_outbox WHERE \(unescaped: Self.waiting)").first
            .flatMap { try $0.decode(Date?.self) }
    }

    func language(emailKey: String) throws -> String? {
        try session.run("SELECT lang FROM users WHERE email_key = \(emailKey)").first.flatMap { try $0.decode(String?.self) }
    }

    func queueLength() throws -> Int {
        try session.run("SELECT COUNT(*) FROM mail_outbox WHERE \(unescaped: Self.waiting)").first?.decode(Int.self) ?? 0
    }

    func failedCount() throws -> Int {
        try session.run("SELECT COUNT(*) FROM mail_outbox WHERE \(unescaped: Self.unresolved)").first?.decode(Int.self) ?? 0
    }

    func markSent(id: Int64, at now: Date) throws {
        try session.run("UPDATE mail_outbox SET sent_at = \(now), message = '', attempts = attempts + 1 WHERE id = \(id)")
        try session.run("""
            UPDATE mail_outbox SET cleared_at = \(now)
            WHERE \(unescaped: Self.unresolved) AND id < \(id)
              AND (kind, recipient, COALESCE(workspace_id, 0))
                  = (SELECT kind, recipient, COALESCE(workspace_id, 0) FROM mail_outbox WHERE id = \(id))
            """)
    }

    func markFailed(id: Int64, error: String, reason: SMTPFailureReason, next: Date?, at now: Date) throws {
        if let next {
            try session.run("""
                UPDATE mail_outbox SET attempts = attempts + 1, last_error = \(error), failure = \(reason.rawValue),
                    next_attempt_at = \(next)
                WHERE id = \(id)
                """)
        } else {
            try session.run("""
                UPDATE mail_outbox SET attempts = attempts + 1, last_error = \(error), failure = \(reason.rawValue),
                    failed_at = \(now), message = ''
                WHERE id = \(id)
                """)
        }
    }

    func postpone(ids: [Int64], until time: Date) throws {
        try session.run("""
            UPDATE mail_outbox SET next_attempt_at = \(time) WHERE id = ANY(\(ids)) AND \(unescaped: Self.waiting)
            """)
    }

    func failures(workspaceId: Int64) throws -> [MailOutbox.Failure] {
        try session.run("""
            SELECT kind, recipient, failure, failed_at FROM mail_outbox
            WHERE workspace_id = \(workspaceId) AND \(unescaped: Self.unresolved) ORDER BY failed_at DESC, id DESC LIMIT 20
            """).map(Self.failure)
    }

    func failures(limit: Int) throws -> [MailOutbox.Failure] {
        try session.run("""
            SELECT kind, recipient, failure, failed_at FROM mail_outbox
            WHERE \(unescaped: Self.unresolved) ORDER BY failed_at DESC, id DESC LIMIT \(limit)
            """).map(Self.failure)
    }

    /// A failure from a row of kind, recipient, failure and failed_at; what is not known reads
    /// as an invitation refused (as on SQLite).
    private static func failure(_ row: PostgresRow) throws -> MailOutbox.Failure {
        let (kind, recipient, reason, failedAt) = try row.decode((String, String, String?, Date?).self)
        return MailOutbox.Failure(kind: MailOutbox.Kind(rawValue: kind) ?? .invitation, recipient: recipient,
                                  reason: reason.flatMap(SMTPFailureReason.init(rawValue:)) ?? .refused,
                                  failedAt: failedAt ?? .distantPast)
    }

    func digestUnread(postedFrom since: Date, until cutoff: Date) throws -> [DigestUnreadRow] {
        try session.run("""
            SELECT u.id, u.email, u.nickname, COALESCE(u.lang, ''), m.id, m.body, m.thread_root_id, r.id, r.kind, r.name,
                   r.workspace_id, r.dm_key, COALESCE(a.nickname, '')
            FROM users u
            JOIN room_members rm ON rm.user_id = u.id
            JOIN rooms r ON r.id = rm.room_id AND r.archived_at IS NULL
            JOIN messages m ON m.room_id = rm.room_id
            LEFT JOIN users a ON a.id = m.author_id
            WHERE u.mail_digest AND u.password_hash <> '' AND m.id > u.digest_through AND m.id > rm.last_read_message_id
              AND m.deleted_at IS NULL AND (m.author_id IS NULL OR m.author_id <> u.id)
              AND m.created_at <= \(cutoff) AND m.created_at >= \(since)
              AND (r.kind IN ('dm', 'group')
                   OR EXISTS (SELECT 1 FROM mentions WHERE mentions.user_id = u.id AND mentions.message_id = m.id))
            ORDER BY u.id, m.id
            LIMIT 2000
            """).map(Self.digestRow)
    }

    private static func digestRow(_ row: PostgresRow) throws -> DigestUnreadRow {
        let cells = row.makeRandomAccess()
        return DigestUnreadRow(
            userId: try cells[0].decode(Int64.self), email: try cells[1].decode(String.self),
            nickname: try cells[2].decode(String.self), lang: try cells[3].decode(String.self),
            messageId: try cells[4].decode(Int64.self), body: try cells[5].decode(String.self),
            threadRootId: try cells[6].decode(Int64?.self), roomId: try cells[7].decode(Int64.self),
            kind: try cells[8].decode(String.self), name: try cells[9].decode(String?.self),
            workspaceId: try cells[10].decode(Int64.self), dmKey: try cells[11].decode(String?.self),
            author: try cells[12].decode(String.self))
    }

    func advanceDigest(userId: Int64, through: Int64) throws -> Bool {
        // Written once: a second look (another loop, another node, a restart) finds the marker moved.
        try !session.run("""
            UPDATE users SET digest_through = \(through) WHERE id = \(userId) AND digest_through < \(through) AND mail_digest
            RETURNING id
            """).isEmpty
    }
}

/// `PushSubscriptionStore` on PostgreSQL: `push_subscriptions` and `push_queue`.
struct PostgresPushSubscriptionStore: PushSubscriptionStore {
    let session: PostgresSession

    func subscribe(_ subscription: PushStore.Subscription, userId: Int64, sessionId: Int64, keeping: Int, at now: Date) throws {
        try session.run("""
            INSERT INTO push_subscriptions (user_id, session_id, endpoint, p256dh, auth, created_at)
            VALUES (\(userId), \(sessionId), \(subscription.endpoint), \(subscription.p256dh), \(subscription.auth), \(now))
            ON CONFLICT (endpoint) DO UPDATE SET user_id = EXCLUDED.user_id, session_id = EXCLUDED.session_id,
                p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth
            """)
        try session.run("""
            DELETE FROM push_subscriptions WHERE user_id = \(userId) AND id NOT IN
                (SELECT id FROM push_subscriptions WHERE user_id = \(userId) ORDER BY id DESC LIMIT \(keeping))
            """)
    }

    func unsubscribe(endpoint: String, userId: Int64) throws {
        try session.run("DELETE FROM push_subscriptions WHERE endpoint = \(endpoint) AND user_id = \(userId)")
    }

    func count(userId: Int64) throws -> Int {
        try session.run("SELECT COUNT(*) FROM push_subscriptions WHERE user_id = \(userId)").first?.decode(Int.self) ?? 0
    }

    func recipients(roomId: Int64, authorId: Int64?) throws -> [PushStore.Recipient] {
        try session.run("""
            SELECT push_subscriptions.id, push_subscriptions.user_id, COALESCE(room_members.notify_level, users.notify_default)
            FROM push_subscriptions
            JOIN room_members ON room_members.user_id = push_subscriptions.user_id AND room_members.room_id = \(roomId)
            JOIN users ON users.id = push_subscriptions.user_id AND users.deactivated_at IS NULL
            WHERE push_subscriptions.user_id IS DISTINCT FROM \(authorId)
            """).map { row in
            let (subscriptionId, userId, level) = try row.decode((Int64, Int64, String).self)
            return PushStore.Recipient(subscriptionId: subscriptionId, userId: userId, level: NotifyLevel(rawValue: level) ?? .standard)
        }
    }

    func enqueue(_ payload: String, to subscriptionIds: [Int64], at now: Date) throws {
        // One statement for every subscription; ids follow the order given, as one insert each would.
        try session.run("""
            INSERT INTO push_queue (subscription_id, payload, next_attempt_at, created_at)
            SELECT subscription.id, \(payload), \(now), \(now)
            FROM unnest(\(subscriptionIds)) WITH ORDINALITY AS subscription (id, position)
            ORDER BY subscription.position
            """)
    }

    func due(at now: Date, limit: Int) throws -> [PushStore.Due] {
        try session.run("""
            SELECT push_queue.id, push_queue.subscription_id, push_queue.payload, push_queue.attempts,
                   push_subscriptions.endpoint, push_subscriptions.p256dh, push_subscriptions.auth
            FROM push_queue JOIN push_subscriptions ON push_subscriptions.id = push_queue.subscription_id
            WHERE push_queue.next_attempt_at <= \(now) ORDER BY push_queue.next_attempt_at, push_queue.id LIMIT \(limit)
            """).map(Self.due(_:))
    }

    /// Rows another node is taking are skipped (`SKIP LOCKED`), so two senders never take one push.
    func claim(at now: Date, limit: Int, until lease: Date) throws -> [PushStore.Due] {
        try session.run("""
            WITH picked AS (
                SELECT id, next_attempt_at FROM push_queue WHERE next_attempt_at <= \(now)
                ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ), taken AS (
                UPDATE push_queue SET next_attempt_at = \(lease) FROM picked WHERE push_queue.id = picked.id
                RETURNING push_queue.id, push_queue.subscription_id, push_queue.payload, push_queue.attempts,
                          picked.next_attempt_at AS due_at
            )
            SELECT taken.id, taken.subscription_id, taken.payload, taken.attempts,
                   push_subscriptions.endpoint, push_subscriptions.p256dh, push_subscriptions.auth
            FROM taken JOIN push_subscriptions ON push_subscriptions.id = taken.subscription_id
            ORDER BY taken.due_at, taken.id
            """).map(Self.due(_:))
    }

    /// One push of a queue read: id, subscription id, payload, attempts, endpoint, keys.
    private static func due(_ row: PostgresRow) throws -> PushStore.Due {
        let (id, subscriptionId, payload, attempts, endpoint, p256dh, auth) =
            try row.decode((Int64, Int64, String, Int, String, Data, Data).self)
        return PushStore.Due(id: id, subscriptionId: subscriptionId,
                             subscription: PushStore.Subscription(endpoint: endpoint, p256dh: p256dh, auth: auth),
                             payload: payload, attempts: attempts)
    }

    func nextDue() throws -> Date? {
        try session.run("SELECT MIN(next_attempt_at) FROM push_queue").first.flatMap { try $0.decode(Date?.self) }
    }

    func finish(id: Int64) throws {
        try session.run("DELETE FROM push_queue WHERE id = \(id)")
    }

    func retry(id: Int64, at: Date) throws {
        try session.run("UPDATE push_queue SET attempts = attempts + 1, next_attempt_at = \(at) WHERE id = \(id)")
    }

    func drop(subscriptionId: Int64) throws {
        try session.run("DELETE FROM push_subscriptions WHERE id = \(subscriptionId)")
    }
}
