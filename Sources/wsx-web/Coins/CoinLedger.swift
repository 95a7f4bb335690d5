import Foundation

/// Every change of a coin balance goes through here, inside the caller's transaction: the
/// balance moves and a ledger row says why, or neither happens. A balance never goes negative,
/// also under concurrent requests: the store's guarded change (`LedgerStore`) decides.
struct CoinLedger: Sendable {
    /// Where a change made on a GRDB connection publishes its event (`change(_ db:…)`, in
    /// `Storage/SQLite/`); a change made in a `StoreTransaction` publishes in that transaction.
    let outbox: EventOutbox

    /// Adds `delta` (negative to spend) to the user's balance. Throws `CoinError.insufficient`
    /// when spending more than the balance; returns the new balance. The person's open pages
    /// hear of it (`coins.changed`) once the transaction commits.
    @discardableResult
    func change(_ tx: any StoreTransaction, userId: Int64, by delta: Int, reason: String, reference: String? = nil,
                at now: Date) throws -> Int {
        let balance = try tx.ledger.change(userId: userId, by: delta, reason: reason, reference: reference, at: now)
        try tx.publish(OutgoingEvent(.coinsChanged, to: .user(userId),
                                     payload: CoinsChangedPayload(balance: balance, delta: delta, reason: reason)))
        return balance
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
