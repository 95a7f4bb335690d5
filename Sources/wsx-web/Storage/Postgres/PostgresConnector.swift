import Logging
import NIOPosix
import NIOSSL
import PostgresNIO

/// Opens connections to the database a `PostgresAddress` names, with TLS as its `sslmode` asks.
struct PostgresConnector: Sendable {
    let address: PostgresAddress
    let logger: Logger

    /// A new connection, named `application` in `pg_stat_activity`; the caller closes it.
    func connect(as application: String = "wsx-web") async throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: address.password,
            database: address.database, tls: try tls())
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = [("application_name", application)]
        do {
            return try await PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(),
                                                        configuration: configuration, id: 1, logger: logger)
        } catch {
            // postgres-nio's errors hide their cause from `description`; say where and what.
            throw PostgresAddress.Problem(description: "cannot reach PostgreSQL at \(address): \(String(reflecting: error))")
        }
    }

    /// Runs `body` on a new connection and closes it afterwards.
    func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let connection = try await connect()
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private func tls() throws -> PostgresConnection.Configuration.TLS {
        var settings = TLSConfiguration.makeClientConfiguration()
        switch address.tls {
        case .disable: return .disable
        case .prefer, .require: settings.certificateVerification = .none
        case .verifyCA: settings.certificateVerification = .noHostnameVerification
        case .verifyFull: settings.certificateVerification = .fullVerification
        }
        let context = try NIOSSLContext(configuration: settings)
        return address.tls == .prefer ? .prefer(context) : .require(context)
    }
}
