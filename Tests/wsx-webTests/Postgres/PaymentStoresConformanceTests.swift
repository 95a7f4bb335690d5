import Foundation
import Testing
@testable import wsx_web

/// The coin ledger and payment stores: the same tests on each backend (`ConformanceNode`).
@Suite("Coin ledger and payments on both backends", .timeLimit(.minutes(5)))
struct PaymentStoresConformanceTests {
    typealias Stores = (ledger: any LedgerStore, payments: any PaymentStore)

    private func withNodes(_ backend: StorageBackend, count: Int = 1, _ body: ([ConformanceNode<Stores>]) async throws -> Void)
        async throws {
        try await withConformanceNodes(backend, count: count, sqlite: { ($0.ledger, $0.payments) },
                                       postgres: { (PostgresLedgerStore(session: $0), PostgresPaymentStore(session: $0)) }, body)
    }

    private static func payment(_ merchantUid: String, userId: Int64, at now: Date) -> Payment {
        Payment(id: nil, merchantUid: merchantUid, userId: userId, item: "coins-50", coins: 50, amount: 5500, currency: "KRW",
                gateway: "sandbox", gatewayPaymentId: nil, status: .pending, failureReason: nil, creditedAt: nil,
                createdAt: now, updatedAt: now)
    }

    @Test("a balance moves with a ledger row saying why, and never below zero", arguments: StorageBackend.allCases)
    func ledger(_ backend: StorageBackend) async throws {
        try await withNodes(backend) { nodes in
            let node = nodes[0]
            let payer = try await node.person("payer@example.com")
            let now = Date(timeIntervalSince1970: 1_790_000_000.125)
            #expect(try await node.answer { try $0.ledger.change(userId: payer, by: 50, reason: "purchase", reference: "order-1", at: now) } == 50)
            #expect(try await node.answer { try $0.ledger.change(userId: payer, by: -20, reason: "workspace_created", reference: nil, at: now) } == 30)
            await #expect(throws: CoinError.insufficient(balance: 30, needed: 31)) {
                try await node.answer { try $0.ledger.change(userId: payer, by: -31, reason: "workspace_created", reference: nil, at: now) }
            }
            #expect(try await node.answer { try $0.ledger.entries(userId: payer, limit: 10).count } == 2, "the refused spend left no row")
            let newest = try await node.answer { try $0.ledger.entries(userId: payer, limit: 1) }
            #expect(newest.map(\.delta) == [-20] && newest.first?.balanceAfter == 30 && newest.first?.reference == nil)
            #expect(newest.first?.createdAt == now)
        }
    }

    @Test("two nodes spending at once cannot overdraw: of ten spends of 10 from 50, five succeed", arguments: StorageBackend.allCases)
    func concurrentSpending(_ backend: StorageBackend) async throws {
        try await withNodes(backend, count: 2) { nodes in
            let payer = try await nodes[0].person("spender@example.com")
            _ = try await nodes[0].answer { try $0.ledger.change(userId: payer, by: 50, reason: "grant", reference: nil, at: Date()) }
            let spent = try await withThrowingTaskGroup(of: Bool.self) { group in
                for attempt in 0..<10 {
                    group.addTask {
                        do {
                            _ = try await nodes[attempt % 2].answer {
                                try $0.ledger.change(userId: payer, by: -10, reason: "workspace_created", reference: nil, at: Date())
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
            let entries = try await nodes[1].answer { try $0.ledger.entries(userId: payer, limit: 100) }
            #expect(entries.count == 6 && entries.first?.balanceAfter == 0)
        }
    }

    @Test("a payment is stored, found, updated and listed newest first", arguments: StorageBackend.allCases)
    func payments(_ backend: StorageBackend) async throws {
        try await withNodes(backend) { nodes in
            let node = nodes[0]
            let payer = try await node.person("buyer@example.com")
            let now = Date(timeIntervalSince1970: 1_790_000_000.5)
            let first = try await node.answer { try $0.payments.insert(Self.payment("m-1", userId: payer, at: now)) }
            let second = try await node.answer { try $0.payments.insert(Self.payment("m-2", userId: payer, at: now)) }
            #expect(first.id != nil && second.id != nil && first.id != second.id)
            var declined = second
            (declined.status, declined.failureReason) = (.failed, "card declined")
            let failed = declined
            try await node.answer { try $0.payments.update(failed) }
            #expect(try await node.answer { try $0.payments.payment(merchantUid: "m-2") } == failed)
            #expect(try await node.answer { try $0.payments.payment(merchantUid: "m-3") } == nil)
            let history = try await node.answer { try $0.payments.history(userId: payer, limit: 10) }
            #expect(history.map(\.merchantUid) == ["m-2", "m-1"])
            #expect(history.last == first)
        }
    }

    @Test("a verification on one node and the webhook on another credit a payment once", arguments: StorageBackend.allCases)
    func creditedOnce(_ backend: StorageBackend) async throws {
        try await withNodes(backend, count: 2) { nodes in
            let payer = try await nodes[0].person("racer@example.com")
            let payment = try await nodes[0].answer { try $0.payments.insert(Self.payment("m-race", userId: payer, at: Date())) }
            let id = try #require(payment.id)
            let credits = try await withThrowingTaskGroup(of: Bool.self) { group in
                for attempt in 0..<6 {
                    group.addTask {
                        try await nodes[attempt % 2].answer { try $0.payments.markCredited(id: id, gatewayPaymentId: "imp_1", at: Date()) }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(credits.filter { $0 }.count == 1)
            let stored = try await nodes[1].answer { try $0.payments.payment(merchantUid: "m-race") }
            #expect(stored?.status == .paid && stored?.gatewayPaymentId == "imp_1" && stored?.creditedAt != nil)
        }
    }
}
