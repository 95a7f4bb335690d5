import Foundation
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

/// The coin ledger and payment stores: the same tests on each backend, SQLite through the seam
/// (`AppDatabase.write`) and PostgreSQL through its stores on sessions of their own (the first
/// stores written for it). Two nodes racing are two connections on PostgreSQL, and two writes
/// on SQLite's single writer.
@Suite("Coin ledger and payments on both backends", .timeLimit(.minutes(5)))
struct PaymentStoresConformanceTests {
    enum Backend: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    /// One way in to a backend's database: a node.
    struct Node: Sendable {
        /// Runs `body` with the ledger and payment stores, in one transaction.
        let transaction: @Sendable (_ body: @escaping @Sendable (any LedgerStore, any PaymentStore) throws -> Int) async throws -> Int
        /// Makes an account without coins; answers its id.
        let person: @Sendable (_ email: String) async throws -> Int64
        let close: @Sendable () async throws -> Void
    }

    /// `count` nodes on one new database of `backend`.
    static func nodes(_ backend: Backend, count: Int) async throws -> [Node] {
        switch backend {
        case .sqlite:
            let database = try AppDatabase.open(dataDirectory: try makeEmptyFolder().appendingPathComponent("data").path)
            let node = Node(transaction: { body in try await database.write { tx in try body(tx.ledger, tx.payments) } },
                            person: { email in
                                try await database.write { tx in
                                    let now = Date()
                                    return try tx.accounts.insert(User(email: email, emailKey: email, nickname: "Payer", phone: nil,
                                                                       passwordHash: "x", lang: nil, createdAt: now, updatedAt: now)).id!
                                }
                            }, close: {})
            return Array(repeating: node, count: count)
        case .postgres:
            let logger = Logger(label: "test.postgres")
            let address = try await PostgresTestCluster.shared().database()
            var nodes: [Node] = []
            for index in 0..<count {
                let connection = try await PostgresConnector(address: address, logger: logger).connect()
                if index == 0 { try await PostgresSchema.migrate(connection, logger: logger) }
                let session = PostgresSession(connection, logger: logger)
                nodes.append(Node(transaction: { body in
                    try await onOwnThread {
                        try session.transaction { try body(PostgresLedgerStore(session: session), PostgresPaymentStore(session: session)) }
                    }
                }, person: { email in
                    try await onOwnThread {
                        let now = Date()
                        return try session.run("""
                            INSERT INTO users (email, email_key, nickname, password_hash, created_at, updated_at)
                            VALUES (\(email), \(email), 'Payer', 'x', \(now), \(now)) RETURNING id
                            """)[0].decode(Int64.self)
                    }
                }, close: { try await connection.close() }))
            }
            return nodes
        }
    }

    /// Runs `body` on `count` nodes of a new database, closed afterwards whatever happens.
    private func withNodes(_ backend: Backend, count: Int = 1, _ body: ([Node]) async throws -> Void) async throws {
        let nodes = try await Self.nodes(backend, count: count)
        do {
            try await body(nodes)
        } catch {
            for node in nodes { try? await node.close() }
            throw error
        }
        for node in nodes { try await node.close() }
    }

    private static func payment(_ merchantUid: String, userId: Int64, at now: Date) -> Payment {
        Payment(id: nil, merchantUid: merchantUid, userId: userId, item: "coins-50", coins: 50, amount: 5500, currency: "KRW",
                gateway: "sandbox", gatewayPaymentId: nil, status: .pending, failureReason: nil, creditedAt: nil,
                createdAt: now, updatedAt: now)
    }

    @Test("a balance moves with a ledger row saying why, and never below zero", arguments: Backend.allCases)
    func ledger(_ backend: Backend) async throws {
        try await withNodes(backend) { nodes in
            let node = nodes[0]
            let payer = try await node.person("payer@example.com")
            let now = Date(timeIntervalSince1970: 1_790_000_000.125)
            #expect(try await node.transaction { ledger, _ in try ledger.change(userId: payer, by: 50, reason: "purchase",
                                                                                 reference: "order-1", at: now) } == 50)
            #expect(try await node.transaction { ledger, _ in try ledger.change(userId: payer, by: -20, reason: "workspace_created",
                                                                                 reference: nil, at: now) } == 30)
            await #expect(throws: CoinError.insufficient(balance: 30, needed: 31)) {
                try await node.transaction { ledger, _ in try ledger.change(userId: payer, by: -31, reason: "workspace_created",
                                                                            reference: nil, at: now) }
            }
            let entries = try await node.transaction { ledger, _ in try ledger.entries(userId: payer, limit: 10).count }
            #expect(entries == 2, "the refused spend left no row")
            let newest = try await Self.answer(node) { ledger, _ in try ledger.entries(userId: payer, limit: 1) }
            #expect(newest.map(\.delta) == [-20] && newest.first?.balanceAfter == 30 && newest.first?.reference == nil)
            #expect(newest.first?.createdAt == now)
        }
    }

    @Test("two nodes spending at once cannot overdraw: of ten spends of 10 from 50, five succeed", arguments: Backend.allCases)
    func concurrentSpending(_ backend: Backend) async throws {
        try await withNodes(backend, count: 2) { nodes in
            let payer = try await nodes[0].person("spender@example.com")
            _ = try await nodes[0].transaction { ledger, _ in try ledger.change(userId: payer, by: 50, reason: "grant", reference: nil, at: Date()) }
            let spent = try await withThrowingTaskGroup(of: Bool.self) { group in
                for attempt in 0..<10 {
                    group.addTask {
                        do {
                            _ = try await nodes[attempt % 2].transaction { ledger, _ in
                                try ledger.change(userId: payer, by: -10, reason: "workspace_created", reference: nil, at: Date())
                            }
                            return true
                        } catch is CoinError {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(spent == 5)
            let rows = try await nodes[1].transaction { ledger, _ in try ledger.entries(userId: payer, limit: 100).count }
            #expect(rows == 6)
            let balance = try await nodes[1].transaction { ledger, _ in try ledger.entries(userId: payer, limit: 1).first?.balanceAfter ?? -1 }
            #expect(balance == 0)
        }
    }

    @Test("a payment is stored, found, updated and listed newest first", arguments: Backend.allCases)
    func payments(_ backend: Backend) async throws {
        try await withNodes(backend) { nodes in
            let node = nodes[0]
            let payer = try await node.person("buyer@example.com")
            let now = Date(timeIntervalSince1970: 1_790_000_000.5)
            let first = try await Self.answer(node) { _, payments in try payments.insert(Self.payment("m-1", userId: payer, at: now)) }
            let second = try await Self.answer(node) { _, payments in try payments.insert(Self.payment("m-2", userId: payer, at: now)) }
            #expect(first.id != nil && second.id != nil && first.id != second.id)
            var declined = second
            (declined.status, declined.failureReason) = (.failed, "card declined")
            let failed = declined
            try await Self.answer(node) { _, payments in try payments.update(failed) }
            #expect(try await Self.answer(node) { _, payments in try payments.payment(merchantUid: "m-2") } == failed)
            #expect(try await Self.answer(node) { _, payments in try payments.payment(merchantUid: "m-3") } == nil)
            let history = try await Self.answer(node) { _, payments in try payments.history(userId: payer, limit: 10) }
            #expect(history.map(\.merchantUid) == ["m-2", "m-1"])
            #expect(history.last == first)
        }
    }

    @Test("a verification on one node and the webhook on another credit a payment once", arguments: Backend.allCases)
    func creditedOnce(_ backend: Backend) async throws {
        try await withNodes(backend, count: 2) { nodes in
            let payer = try await nodes[0].person("racer@example.com")
            let payment = try await Self.answer(nodes[0]) { _, payments in
                try payments.insert(Self.payment("m-race", userId: payer, at: Date()))
            }
            let id = try #require(payment.id)
            let credits = try await withThrowingTaskGroup(of: Bool.self) { group in
                for attempt in 0..<6 {
                    group.addTask {
                        try await Self.answer(nodes[attempt % 2]) { _, payments in
                            try payments.markCredited(id: id, gatewayPaymentId: "imp_1", at: Date())
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(credits.filter { $0 }.count == 1)
            let stored = try await Self.answer(nodes[1]) { _, payments in try payments.payment(merchantUid: "m-race") }
            #expect(stored?.status == .paid && stored?.gatewayPaymentId == "imp_1" && stored?.creditedAt != nil)
        }
    }

    /// A store call's answer of any type, through `Node.transaction` (which answers an Int).
    static func answer<T: Sendable>(_ node: Node,
                                           _ body: @escaping @Sendable (any LedgerStore, any PaymentStore) throws -> T) async throws -> T {
        let box = Box<T>()
        _ = try await node.transaction { ledger, payments in
            box.set(try body(ledger, payments))
            return 0
        }
        return try #require(box.get())
    }
}

/// A value handed out of a transaction body.
private final class Box<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ new: T) { lock.withLock { value = new } }
    func get() -> T? { lock.withLock { value } }
}
