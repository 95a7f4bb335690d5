import Foundation
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

@Suite("A PostgreSQL session's transactions", .timeLimit(.minutes(5)))
struct PostgresSessionTests {
    let logger = Logger(label: "test.postgres")

    @Test("two threads' transactions on one session take turns: one rolling back never takes the other's rows with it")
    func transactionsTakeTurns() async throws {
        let address = try await PostgresTestCluster.shared().database()
        let connection = try await PostgresConnector(address: address, logger: logger).connect()
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
            let session = PostgresSession(connection, logger: logger)
            struct Abandoned: Error {}
            let insert: @Sendable (String) throws -> Void = { type in
                let id = try PostgresEventIds.next(in: session)
                try session.run("INSERT INTO events (id, type, room_id, payload, created_at) VALUES (\(id), \(type), 1, '{}', now())")
            }
            async let abandoned: Void = onOwnThread {
                do {
                    try session.transaction {
                        try insert("abandoned")
                        usleep(200_000)
                        throw Abandoned()
                    }
                } catch is Abandoned {}
            }
            async let kept: Void = onOwnThread {
                usleep(50_000)  // starts while the other is open
                try session.transaction { try insert("kept") }
            }
            _ = try await (abandoned, kept)
            let types = try await onOwnThread { try session.run("SELECT type FROM events ORDER BY id").map { try $0.decode(String.self) } }
            #expect(types == ["kept"])
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
