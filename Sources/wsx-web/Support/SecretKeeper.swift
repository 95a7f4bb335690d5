import Foundation

/// Where the server keeps the secrets it makes for itself (`server-key`, `sandbox-secret`,
/// `vapid-key`): files in the data folder for one node on SQLite (`SecretFile`), or the shared
/// PostgreSQL database, so that every node signs and checks with the same ones (an invitation
/// link made on one node works on another).
enum SecretKeeper: Sendable {
    case folder(String)
    case database(PostgresBackend)

    /// Every secret the server makes for itself, by name (`wsx-web copy` moves them).
    static let names = ["server-key", "sandbox-secret", "vapid-key"]

    /// The secret called `name`, made by `make` the first time (a random token unless told
    /// otherwise); the same every time after, on every node.
    func load(_ name: String, make: () -> Data = { Data(SecretToken.generate().utf8) }) throws -> Data {
        switch self {
        case .folder(let dataDirectory): try SecretFile.load(name, in: dataDirectory, make: make)
        case .database(let backend): try backend.sharedSecret(name, make: make)
        }
    }
}
