import Foundation
import GRDB

/// `LedgerStore` on SQLite: the guarded UPDATE and SQLite's single writer decide whether a
/// balance may move.
struct SQLiteLedgerStore: LedgerStore {
    let db: Database

    func change(userId: Int64, by delta: Int, reason: String, reference: String?, at now: Date) throws -> Int {
        try db.execute(sql: "UPDATE users SET coin_balance = coin_balance + ? WHERE id = ? AND coin_balance + ? >= 0",
                       arguments: [delta, userId, delta])
        guard db.changesCount == 1 else {
            let balance = try Int.fetchOne(db, sql: "SELECT coin_balance FROM users WHERE id = ?", arguments: [userId]) ?? 0
            throw CoinError.insufficient(balance: balance, needed: -delta)
        }
        let balance = try Int.fetchOne(db, sql: "SELECT coin_balance FROM users WHERE id = ?", arguments: [userId]) ?? 0
        _ = try CoinLedgerEntry(id: nil, userId: userId, delta: delta, balanceAfter: balance, reason: reason,
                                reference: reference, createdAt: now).inserted(db)
        return balance
    }

    func entries(userId: Int64, limit: Int) throws -> [CoinLedgerEntry] {
        try CoinLedgerEntry.filter(CoinLedgerEntry.CodingKeys.userId == userId)
            .order(CoinLedgerEntry.CodingKeys.id.desc).limit(limit).fetchAll(db)
    }
}

extension CoinLedger {
    /// `change(_ tx:…)` for code still holding a GRDB connection: publishes through `outbox`.
    @discardableResult
    func change(_ db: Database, userId: Int64, by delta: Int, reason: String, reference: String? = nil,
                at now: Date) throws -> Int {
        try change(SQLiteTransaction(db, outbox: outbox), userId: userId, by: delta, reason: reason, reference: reference, at: now)
    }
}

/// A `Payment` is a row of `payments`.
extension Payment: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "payments"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Payment.CodingKeys: ColumnExpression {}

/// `PaymentStore` on SQLite.
struct SQLitePaymentStore: PaymentStore {
    let db: Database

    func insert(_ payment: Payment) throws -> Payment {
        try payment.inserted(db)
    }

    func update(_ payment: Payment) throws {
        try payment.update(db)
    }

    func payment(merchantUid: String) throws -> Payment? {
        try Payment.filter(Payment.CodingKeys.merchantUid == merchantUid).fetchOne(db)
    }

    func markCredited(id: Int64, gatewayPaymentId: String, at now: Date) throws -> Bool {
        try db.execute(sql: """
            UPDATE payments SET status = 'paid', gateway_payment_id = ?, credited_at = ?, failure_reason = NULL, updated_at = ?
            WHERE id = ? AND credited_at IS NULL
            """, arguments: [gatewayPaymentId, now, now, id])
        return db.changesCount == 1
    }

    func history(userId: Int64, limit: Int) throws -> [Payment] {
        try Payment.filter(Payment.CodingKeys.userId == userId).order(Payment.CodingKeys.id.desc).limit(limit).fetchAll(db)
    }
}

/// `SandboxPaymentStore` on SQLite: the rows of `sandbox_payments`.
struct SQLiteSandboxPaymentStore: SandboxPaymentStore {
    let db: Database

    func payment(id: String) throws -> SandboxPayment? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sandbox_payments WHERE imp_uid = ?", arguments: [id])
        else { return nil }
        return SandboxPayment(id: row["imp_uid"], merchantUid: row["merchant_uid"], amount: row["amount"],
                              currency: row["currency"], status: row["status"], createdAt: row["created_at"])
    }

    func hasDecided(merchantUid: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sandbox_payments WHERE merchant_uid = ?)",
                          arguments: [merchantUid]) ?? false
    }

    func add(_ payment: SandboxPayment) throws {
        try db.execute(sql: """
            INSERT INTO sandbox_payments (imp_uid, merchant_uid, amount, currency, status, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [payment.id, payment.merchantUid, payment.amount, payment.currency, payment.status, payment.createdAt])
    }
}
