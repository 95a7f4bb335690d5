import Foundation

/// Coin balances and their ledger (`CoinLedger`): a balance moves only with a ledger row saying
/// why, and never below zero.
protocol LedgerStore {
    /// Adds `delta` (negative to spend) to the person's balance and records the change in the
    /// ledger with `reason` and `reference`; answers the new balance. When that would take the
    /// balance below zero nothing changes and it throws `CoinError.insufficient`. The check and
    /// the change are one step, so concurrent spending cannot overdraw.
    func change(userId: Int64, by delta: Int, reason: String, reference: String?, at now: Date) throws -> Int
    /// The person's ledger, newest first, at most `limit` rows.
    func entries(userId: Int64, limit: Int) throws -> [CoinLedgerEntry]
}

/// Coin purchases (`PaymentService`), one `Payment` per checkout.
protocol PaymentStore {
    /// Stores a new payment; answers it with its id.
    func insert(_ payment: Payment) throws -> Payment
    /// Saves every field of a stored payment.
    func update(_ payment: Payment) throws
    /// The payment with our merchant id, or nil.
    func payment(merchantUid: String) throws -> Payment?
    /// Marks the payment paid and credited at `now`, with the gateway's id for it, unless it was
    /// credited already; answers whether this call credited it (so that racing verifications
    /// credit it once).
    func markCredited(id: Int64, gatewayPaymentId: String, at now: Date) throws -> Bool
    /// A person's payments, newest first, at most `limit`.
    func history(userId: Int64, limit: Int) throws -> [Payment]
}

/// A payment as the built-in test gateway keeps it on its own side (`SandboxGateway`).
struct SandboxPayment: Sendable {
    /// The sandbox's payment id (`imps_…`, PortOne's `imp_uid`).
    let id: String
    let merchantUid: String
    let amount: Int
    let currency: String
    /// `paid` or `failed`: what the test card decided.
    let status: String
    let createdAt: Date
}

/// The built-in test gateway's own records (`SandboxGateway`): what its test card decided.
protocol SandboxPaymentStore {
    /// The sandbox payment with this id, or nil.
    func payment(id: String) throws -> SandboxPayment?
    /// Whether the test card already decided the checkout with our merchant id.
    func hasDecided(merchantUid: String) throws -> Bool
    /// Records the test card's decision.
    func add(_ payment: SandboxPayment) throws
}
