import Foundation
import GRDB

/// Every change of a coin balance goes through here, inside the caller's transaction: the
/// balance moves and a ledger row says why, or neither happens. A balance never goes negative,
/// also under concurrent requests: the guarded UPDATE and SQLite's single writer decide.
struct CoinLedger: Sendable {
    let outbox: EventOutbox

    /// Adds `delta` (negative to spend) to the user's balance. Throws `CoinError.insufficient`
    /// when spending more than the balance; returns the new balance.
    @discardableResult
    func change(_ db: Database, userId: Int64, by delta: Int, reason: String, reference: String? = nil,
                at now: Date) throws -> Int {
        try db.execute(sql: "UPDATE users SET coin_balance = coin_balance + ? WHERE id = ? AND coin_balance + ? >= 0",
                       arguments: [delta, userId, delta])
        guard db.changesCount == 1 else {
            let balance = try Int.fetchOne(db, sql: "SELECT coin_balance FROM users WHERE id = ?", arguments: [userId]) ?? 0
            throw CoinError.insufficient(balance: balance, needed: -delta)
        }
        let balance = try Int.fetchOne(db, sql: "SELECT coin_balance FROM users WHERE id = ?", arguments: [userId]) ?? 0
        _ = try CoinLedgerEntry(id: nil, userId: userId, delta: delta, balanceAfter: balance, reason: reason,
                                reference: reference, createdAt: now).inserted(db)
        try outbox.publish(OutgoingEvent(.coinsChanged, to: .user(userId),
                                         payload: CoinsChangedPayload(balance: balance, delta: delta, reason: reason)), in: db)
        return balance
    }

    /// The user's ledger, newest first.
    static func entries(_ db: Database, userId: Int64, limit: Int = 100) throws -> [CoinLedgerEntry] {
        try CoinLedgerEntry.filter(CoinLedgerEntry.CodingKeys.userId == userId)
            .order(CoinLedgerEntry.CodingKeys.id.desc).limit(limit).fetchAll(db)
    }
}

enum CoinError: Error, Equatable {
    case insufficient(balance: Int, needed: Int)
}

struct CoinsChangedPayload: Codable, Sendable {
    let balance: Int
    let delta: Int
    let reason: String
}
