import Foundation

/// Signed-in browsers. The cookie holds a random token; the database keeps only its SHA-256,
/// with the session's CSRF token, a sliding 30-day expiry, and an absolute one: however active,
/// a session ends `maximumAge` (90 days) after it began, and the person signs in again.
struct SessionStore: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// Sessions and their users as last read, by token hash: every request asks `find`, and
    /// while neither table was written the answer cannot have changed (posting writes neither).
    private let recent: VersionedCache<String, Found>
    /// What the kept sessions were read from.
    var keptRegion: ReadRegion { recent.region }

    typealias Found = (session: Session, user: User)

    init(database: AppDatabase, clock: WallClock) {
        self.database = database
        self.clock = clock
        recent = VersionedCache("sessions", of: database, clock: clock, capacity: 4096)
    }

    static let lifetime: TimeInterval = 30 * 24 * 60 * 60
    /// The longest any session lasts, however active: it used to slide forever.
    static let maximumAge: TimeInterval = 90 * 24 * 60 * 60
    /// A session's expiry is pushed forward at most this often, so browsing is not a write per page.
    static let refreshInterval: TimeInterval = 60 * 60

    /// A new session for `userId`; returns the cookie token (never stored) and the row.
    func create(userId: Int64, userAgent: String?) async throws -> (token: String, session: Session) {
        let now = clock.now()
        return try await database.write { tx in try Self.insert(tx, userId: userId, userAgent: userAgent, at: now) }
    }

    /// Inserts a new session in the caller's transaction; returns its cookie token and row. The
    /// person was seen now.
    static func insert(_ tx: any StoreTransaction, userId: Int64, userAgent: String?,
                       at now: Date) throws -> (token: String, session: Session) {
        try tx.accounts.noteSeen(userId: userId, at: now)
        let token = SecretToken.generate()
        let session = Session(id: nil, tokenHash: SecretToken.hash(token), userId: userId,
                              csrfToken: SecretToken.generate(), userAgent: userAgent.map { String($0.prefix(300)) },
                              createdAt: now, refreshedAt: now, expiresAt: now.addingTimeInterval(lifetime))
        return (token, try tx.sessions.insert(session))
    }

    /// Seconds the session's cookie should live from `now`: the sliding expiry, never past the
    /// session's absolute end.
    static func cookieAge(_ session: Session, now: Date) -> Int {
        Int(max(0, min(session.expiresAt, session.createdAt.addingTimeInterval(maximumAge)).timeIntervalSince(now)))
    }

    /// The live session of a cookie token and its user; nil for unknown or expired tokens.
    /// Synchronous (a read on the calling thread), so the event-stream handler can ask it on its
    /// event loop.
    func find(token: String) throws -> Found? {
        let now = clock.now()
        let hash = SecretToken.hash(token)
        if let found = recent.value(for: hash), Self.isLive(found.session, now: now) { return found }
        return try recent.fresh(for: hash, from: database, query: { tx in try Self.find(tx, hash: hash, now: now) })
    }

    /// The same for a route's middleware: a session not kept is read off the event loop.
    func find(token: String) async throws -> Found? {
        let now = clock.now()
        let hash = SecretToken.hash(token)
        if let found = recent.value(for: hash), Self.isLive(found.session, now: now) { return found }
        return try await recent.fresh(for: hash, from: database, query: { tx in try Self.find(tx, hash: hash, now: now) })
    }

    /// The live session with this token hash and its active user, read in `tx` (every request
    /// asks this).
    private static func find(_ tx: any StoreTransaction, hash: String, now: Date) throws -> Found? {
        guard let session = try tx.sessions.session(tokenHash: hash),
              isLive(session, now: now),
              let user = try tx.sessions.user(id: session.userId),
              user.isActive
        else { return nil }
        return (session, user)
    }

    /// Whether a session may still sign its browser in: before its sliding expiry and within
    /// its maximum age.
    static func isLive(_ session: Session, now: Date) -> Bool {
        session.expiresAt > now && now.timeIntervalSince(session.createdAt) < maximumAge
    }

    /// Pushes the expiry 30 days past now (never past the session's maximum age) when the last
    /// push is older than `refreshInterval`. Returns the refreshed session, or nil when nothing
    /// was due.
    func refreshIfDue(_ session: Session) async throws -> Session? {
        let now = clock.now()
        guard now.timeIntervalSince(session.refreshedAt) >= Self.refreshInterval, let id = session.id else { return nil }
        var refreshed = session
        refreshed.refreshedAt = now
        refreshed.expiresAt = min(now.addingTimeInterval(Self.lifetime), session.createdAt.addingTimeInterval(Self.maximumAge))
        let expiresAt = refreshed.expiresAt
        let userId = session.userId
        try await database.write { tx in
            try tx.sessions.refresh(id: id, refreshedAt: now, expiresAt: expiresAt)
            // Last seen, to the hour: the administrators' list shows who still uses the server.
            try tx.accounts.noteSeen(userId: userId, at: now)
        }
        return refreshed
    }

    /// Ends one session (logout); its open event stream closes.
    func delete(_ session: Session) async throws {
        guard let id = session.id else { return }
        try await database.write { tx in
            guard try tx.sessions.delete(id: id) else { return }
            try tx.publish(OutgoingEvent(.sessionRevoked, to: .user(session.userId),
                                         payload: SessionRevokedPayload(userId: session.userId, reason: "logout"),
                                         closesSessions: [id]))
        }
    }

    /// Removes expired sessions and used or expired reset links.
    func pruneExpired() async throws -> Int {
        let now = clock.now(), started = now.addingTimeInterval(-Self.maximumAge)
        return try await database.write { tx in
            let sessions = try tx.sessions.deleteExpired(at: now, startedBefore: started)
            try tx.passwordResets.deleteSpent(at: now)
            return sessions
        }
    }
}
