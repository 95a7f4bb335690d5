import Foundation
import GRDB

/// Signed-in browsers. The cookie holds a random token; the database keeps only its SHA-256,
/// with the session's CSRF token and a sliding 30-day expiry.
struct SessionStore: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// Sessions and their users as last read, by token hash: every request asks `find`, and
    /// while neither table was written the answer cannot have changed (posting writes neither).
    private let recent: VersionedCache<String, Found>

    typealias Found = (session: Session, user: User)

    init(database: AppDatabase, clock: WallClock) {
        self.database = database
        self.clock = clock
        recent = VersionedCache(version: database.accountsVersion, clock: clock, capacity: 4096)
    }

    static let lifetime: TimeInterval = 30 * 24 * 60 * 60
    /// A session's expiry is pushed forward at most this often, so browsing is not a write per page.
    static let refreshInterval: TimeInterval = 60 * 60

    /// A new session for `userId`; returns the cookie token (never stored) and the row.
    func create(userId: Int64, userAgent: String?) async throws -> (token: String, session: Session) {
        let token = SecretToken.generate()
        let now = clock.now()
        let session = Session(id: nil, tokenHash: SecretToken.hash(token), userId: userId,
                              csrfToken: SecretToken.generate(), userAgent: userAgent.map { String($0.prefix(300)) },
                              createdAt: now, refreshedAt: now, expiresAt: now.addingTimeInterval(Self.lifetime))
        let stored = try await database.writer.write { db in try session.inserted(db) }
        return (token, stored)
    }

    /// The live session of a cookie token and its user; nil for unknown or expired tokens.
    /// Synchronous (a read on the calling thread), so the event-stream handler can ask it on its
    /// event loop.
    func find(token: String) throws -> Found? {
        let now = clock.now()
        let hash = SecretToken.hash(token)
        if let found = recent.value(for: hash), found.session.expiresAt > now { return found }
        let readAt = recent.version.current
        let found: Found? = try database.read { db in
            // Every request asks this: cached statements skip SQL generation and preparation.
            guard let session = try Session.fetchOne(db.cachedStatement(sql: "SELECT * FROM sessions WHERE token_hash = ?"),
                                                     arguments: [hash]),
                  session.expiresAt > now,
                  let user = try User.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE id = ?"),
                                               arguments: [session.userId])
            else { return nil }
            return (session, user)
        }
        if let found { recent.store(found, for: hash, readAt: readAt) }
        return found
    }

    /// Pushes the expiry 30 days past now when the last push is older than `refreshInterval`.
    /// Returns the refreshed session, or nil when nothing was due.
    func refreshIfDue(_ session: Session) async throws -> Session? {
        let now = clock.now()
        guard now.timeIntervalSince(session.refreshedAt) >= Self.refreshInterval, let id = session.id else { return nil }
        var refreshed = session
        refreshed.refreshedAt = now
        refreshed.expiresAt = now.addingTimeInterval(Self.lifetime)
        let expiresAt = refreshed.expiresAt
        _ = try await database.writer.write { db in
            try Session.filter(key: id).updateAll(db, Session.CodingKeys.refreshedAt.set(to: now),
                                                  Session.CodingKeys.expiresAt.set(to: expiresAt))
        }
        return refreshed
    }

    /// Ends one session (logout); its open event stream closes.
    func delete(_ session: Session) async throws {
        guard let id = session.id else { return }
        let outbox = database.outbox
        try await database.writer.write { db in
            guard try Session.deleteOne(db, key: id) else { return }
            try outbox.publish(OutgoingEvent(.sessionRevoked, to: .user(session.userId),
                                             payload: SessionRevokedPayload(userId: session.userId, reason: "logout"),
                                             closesSessions: [id]), in: db)
        }
    }

    /// Removes expired sessions and used or expired reset links.
    func pruneExpired() async throws -> Int {
        let now = clock.now()
        return try await database.writer.write { db in
            let sessions = try Session.filter(Session.CodingKeys.expiresAt <= now).deleteAll(db)
            try PasswordReset.filter(PasswordReset.CodingKeys.expiresAt <= now || PasswordReset.CodingKeys.usedAt != nil)
                .deleteAll(db)
            return sessions
        }
    }
}
