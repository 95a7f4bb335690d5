import Foundation
import GRDB

/// `SessionRecordStore` on SQLite: the rows of `sessions`.
struct SQLiteSessionRecordStore: SessionRecordStore {
    let db: Database

    func session(tokenHash: String) throws -> Session? {
        // Every request asks this: cached statements skip SQL generation and preparation.
        try Session.fetchOne(db.cachedStatement(sql: "SELECT * FROM sessions WHERE token_hash = ?"), arguments: [tokenHash])
    }

    func user(id: Int64) throws -> User? {
        try User.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE id = ?"), arguments: [id])
    }

    func insert(_ session: Session) throws -> Session {
        try session.inserted(db)
    }

    func refresh(id: Int64, refreshedAt: Date, expiresAt: Date) throws {
        try Session.filter(key: id).updateAll(db, Session.CodingKeys.refreshedAt.set(to: refreshedAt),
                                              Session.CodingKeys.expiresAt.set(to: expiresAt))
    }

    func delete(id: Int64) throws -> Bool {
        try Session.deleteOne(db, key: id)
    }

    func deleteAll(userId: Int64) throws -> [Int64] {
        let sessions = Session.filter(Session.CodingKeys.userId == userId)
        let ended = try sessions.select(Session.CodingKeys.id, as: Int64.self).fetchAll(db)
        try sessions.deleteAll(db)
        return ended
    }

    func deleteExpired(at now: Date, startedBefore: Date) throws -> Int {
        try Session.filter(Session.CodingKeys.expiresAt <= now || Session.CodingKeys.createdAt <= startedBefore).deleteAll(db)
    }
}

/// `PasswordResetStore` on SQLite: the rows of `password_resets`.
struct SQLitePasswordResetStore: PasswordResetStore {
    let db: Database

    func insert(_ reset: PasswordReset) throws {
        _ = try reset.inserted(db)
    }

    func reset(tokenHash: String) throws -> PasswordReset? {
        try PasswordReset.filter(PasswordReset.CodingKeys.tokenHash == tokenHash).fetchOne(db)
    }

    func live(tokenHash: String, at now: Date) throws -> PasswordReset? {
        try PasswordReset
            .filter(PasswordReset.CodingKeys.tokenHash == tokenHash
                    && PasswordReset.CodingKeys.usedAt == nil && PasswordReset.CodingKeys.expiresAt > now)
            .fetchOne(db)
    }

    func markUsed(id: Int64, at now: Date) throws {
        try PasswordReset.filter(key: id).updateAll(db, PasswordReset.CodingKeys.usedAt.set(to: now))
    }

    func removeAll(userId: Int64) throws {
        try PasswordReset.filter(PasswordReset.CodingKeys.userId == userId).deleteAll(db)
    }

    func deleteSpent(at now: Date) throws {
        try PasswordReset.filter(PasswordReset.CodingKeys.expiresAt <= now || PasswordReset.CodingKeys.usedAt != nil)
            .deleteAll(db)
    }
}
