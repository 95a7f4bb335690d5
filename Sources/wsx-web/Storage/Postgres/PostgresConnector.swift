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
        do {
            return try await PostgresConnection.connect(on: Self.loops.any(), configuration: try configuration(application),
                                                        id: 1, logger: logger)
        } catch {
            throw unreachable(error)
        }
    }

    /// The same, waited for on the calling thread (a session replaced while a body waits for it).
    func connectNow(as application: String = "wsx-web") throws -> PostgresConnection {
        do {
            return try PostgresSession.waitFor(PostgresConnection.connect(on: Self.loops.any(), configuration: try configuration(application),
                                                                          id: 1, logger: logger))
        } catch {
            throw unreachable(error)
        }
    }

    private func configuration(_ application: String) throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: address.password,
            database: address.database, tls: try tls())
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = [("application_name", application)]
        return configuration
    }

    /// postgres-nio's errors hide their cause from `description`: this one says where and what.
    private func unreachable(_ error: any Error) -> PostgresAddress.Problem {
        PostgresAddress.Problem(description: "cannot reach PostgreSQL at \(address): \(String(reflecting: error))")
    }

    /// The event loops every PostgreSQL connection's input and output runs on: threads of their
    /// own, because request handlers wait for a session's statements on the server's loops
    /// (`PostgresBackend.queryNow`), and a loop waiting for its own input would never get it.
    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

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
