import Foundation
import PostgresNIO

/// `LedgerStore` on PostgreSQL. The guarded `UPDATE … RETURNING` is one statement on a locked
/// row: a second node spending at once waits for the first and then sees its balance, so
/// concurrent spending cannot overdraw (READ COMMITTED re-checks the condition on the new row).
struct PostgresLedgerStore: LedgerStore {
    let session: PostgresSession

    func change(userId: Int64, by delta: Int, reason: String, reference: String?, at now: Date) throws -> Int {
        let changed = try session.run("""
            UPDATE users SET coin_balance = coin_balance + \(delta) WHERE id = \(userId) AND coin_balance + \(delta) >= 0
            RETURNING coin_balance
            """)
        guard let balance = try changed.first?.decode(Int.self) else {
            let balance = try session.run("SELECT coin_balance FROM users WHERE id = \(userId)").first?.decode(Int.self) ?? 0
            throw CoinError.insufficient(balance: balance, needed: -delta)
        }
        try session.run("""
            INSERT INTO coin_ledger (user_id, delta, balance_after, reason, reference, created_at)
            VALUES (\(userId), \(delta), \(balance), \(reason), \(reference), \(now))
            """)
        return balance
    }

    func entries(userId: Int64, limit: Int) throws -> [CoinLedgerEntry] {
        try session.run("""
            SELECT id, user_id, delta, balance_after, reason, reference, created_at FROM coin_ledger
            WHERE user_id = \(userId) ORDER BY id DESC LIMIT \(limit)
            """).map { row in
            let (id, user, delta, after, reason, reference, createdAt) = try row.decode((Int64, Int64, Int, Int, String, String?, Date).self)
            return CoinLedgerEntry(id: id, userId: user, delta: delta, balanceAfter: after, reason: reason, reference: reference,
                                   createdAt: createdAt)
        }
    }
}

/// `PaymentStore` on PostgreSQL. `markCredited` is one conditional `UPDATE`: when a verification
/// on one node and the gateway's webhook on another race, one of them credits.
struct PostgresPaymentStore: PaymentStore {
    let session: PostgresSession

    private static let columns = """
        id, merchant_uid, user_id, item, coins, amount, currency, gateway, gateway_payment_id, status, failure_reason,
        credited_at, created_at, updated_at
        """

    func insert(_ payment: Payment) throws -> Payment {
        let rows = try session.run("""
            INSERT INTO payments (merchant_uid, user_id, item, coins, amount, currency, gateway, gateway_payment_id, status,
                                  failure_reason, credited_at, created_at, updated_at)
            VALUES (\(payment.merchantUid), \(payment.userId), \(payment.item), \(payment.coins), \(payment.amount),
                    \(payment.currency), \(payment.gateway), \(payment.gatewayPaymentId), \(payment.status.rawValue),
                    \(payment.failureReason), \(payment.creditedAt), \(payment.createdAt), \(payment.updatedAt))
            RETURNING id
            """)
        var inserted = payment
        inserted.id = try rows.first?.decode(Int64.self)
        return inserted
    }

    func update(_ payment: Payment) throws {
        try session.run("""
            UPDATE payments SET merchant_uid = \(payment.merchantUid), user_id = \(payment.userId), item = \(payment.item),
                coins = \(payment.coins), amount = \(payment.amount), currency = \(payment.currency), gateway = \(payment.gateway),
                gateway_payment_id = \(payment.gatewayPaymentId), status = \(payment.status.rawValue),
                failure_reason = \(payment.failureReason), credited_at = \(payment.creditedAt), created_at = \(payment.createdAt),
                updated_at = \(payment.updatedAt)
            WHERE id = \(payment.id)
            """)
    }

    func payment(merchantUid: String) throws -> Payment? {
        try session.run("SELECT \(unescaped: Self.columns) FROM payments WHERE merchant_uid = \(merchantUid)").first.map(Self.payment)
    }

    func markCredited(id: Int64, gatewayPaymentId: String, at now: Date) throws -> Bool {
        try !session.run("""
            UPDATE payments SET status = 'paid', gateway_payment_id = \(gatewayPaymentId), credited_at = \(now),
                failure_reason = NULL, updated_at = \(now)
            WHERE id = \(id) AND credited_at IS NULL
            RETURNING id
            """).isEmpty
    }

    func history(userId: Int64, limit: Int) throws -> [Payment] {
        try session.run("SELECT \(unescaped: Self.columns) FROM payments WHERE user_id = \(userId) ORDER BY id DESC LIMIT \(limit)")
            .map(Self.payment)
    }

    private static func payment(_ row: PostgresRow) throws -> Payment {
        let (id, merchantUid, userId, item, coins, amount, currency, gateway, gatewayPaymentId, status, failureReason,
             creditedAt, createdAt, updatedAt) = try row.decode(
            (Int64, String, Int64, String, Int, Int, String, String, String?, String, String?, Date?, Date, Date).self)
        guard let status = Payment.Status(rawValue: status) else {
            throw PostgresSchema.Refusal(description: "payment \(id) has a status wsx does not know: \(status)")
        }
        return Payment(id: id, merchantUid: merchantUid, userId: userId, item: item, coins: coins, amount: amount,
                       currency: currency, gateway: gateway, gatewayPaymentId: gatewayPaymentId, status: status,
                       failureReason: failureReason, creditedAt: creditedAt, createdAt: createdAt, updatedAt: updatedAt)
    }
}

/// `SandboxPaymentStore` on PostgreSQL: the rows of `sandbox_payments`.
struct PostgresSandboxPaymentStore: SandboxPaymentStore {
    let session: PostgresSession

    func payment(id: String) throws -> SandboxPayment? {
        try session.run("""
            SELECT imp_uid, merchant_uid, amount, currency, status, created_at FROM sandbox_payments WHERE imp_uid = \(id)
            """).first.map { row in
            let (id, merchantUid, amount, currency, status, createdAt) = try row.decode((String, String, Int, String, String, Date).self)
            return SandboxPayment(id: id, merchantUid: merchantUid, amount: amount, currency: currency, status: status,
                                  createdAt: createdAt)
        }
    }

    func hasDecided(merchantUid: String) throws -> Bool {
        try session.run("SELECT EXISTS (SELECT 1 FROM sandbox_payments WHERE merchant_uid = \(merchantUid))").first?
            .decode(Bool.self) ?? false
    }

    func add(_ payment: SandboxPayment) throws {
        try session.run("""
            INSERT INTO sandbox_payments (imp_uid, merchant_uid, amount, currency, status, created_at)
            VALUES (\(payment.id), \(payment.merchantUid), \(payment.amount), \(payment.currency), \(payment.status), \(payment.createdAt))
            """)
    }
}
