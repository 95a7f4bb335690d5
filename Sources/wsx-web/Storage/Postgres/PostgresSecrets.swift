import Foundation
import PostgresNIO

extension PostgresBackend {
    /// The secret called `name` in `node_secrets`, made by `make` when no node made it yet: the
    /// first node's insert wins, and every node reads what won.
    func sharedSecret(_ name: String, make: () -> Data) throws -> Data {
        let fresh = make()
        return try withSessionNow { session in
            try session.transaction {
                try session.run("INSERT INTO node_secrets (name, value) VALUES (\(name), \(fresh)) ON CONFLICT (name) DO NOTHING")
                let stored = try session.run("SELECT value FROM node_secrets WHERE name = \(name)")[0].decode(ByteBuffer.self)
                return Data(stored.readableBytesView)
            }
        }
    }
}
