import Foundation

/// The apps' sign-ins (`/v1`): an access token that works for `APISettings.accessLifetime`, and
/// a refresh token that gets a new one while the app keeps being used. Both are opaque random
/// tokens; the database keeps their SHA-256 only. Deactivating an account or changing its
/// password ends them, and a person sees and ends their apps' sign-ins on their profile page.
struct AppSessions: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let settings: APISettings

    /// What a new sign-in hands the app, once.
    struct Tokens: Sendable, Equatable {
        let accessToken: String
        let refreshToken: String
    }

    /// Signs `userId` in on a device; `deviceToken` is its push token, `client` its `User-Agent`.
    /// `appPassword`: the app password it signed in with (a two-step account), which ends it when revoked.
    func signIn(userId: Int64, deviceToken: String?, client: String?, appPassword: Int64? = nil) async throws -> Tokens {
        let tokens = Tokens(accessToken: SecretToken.generate(), refreshToken: SecretToken.generate())
        let now = clock.now()
        let record = AppSession(id: nil, userId: userId, accessHash: SecretToken.hash(tokens.accessToken),
                                refreshHash: SecretToken.hash(tokens.refreshToken),
                                accessExpiresAt: now.addingTimeInterval(settings.accessLifetime),
                                refreshExpiresAt: now.addingTimeInterval(settings.refreshLifetime),
                                deviceToken: deviceToken.flatMap { $0.isEmpty ? nil : String($0.prefix(512)) },
                                client: client.map { String($0.prefix(200)) }, createdAt: now, usedAt: now, appPasswordId: appPassword)
        _ = try await database.write { tx in try tx.appSessions.insert(record) }
        return tokens
    }

    /// The signed-in account `authorization` (the `Authorization` header: the token, or
    /// `Bearer` and the token) stands for. A token that is no live sign-in's access token is
    /// `APIError.badToken` (a refresh token too); one that expired is `APIError.accessExpired`.
    func account(authorization: String?) async throws -> (user: User, session: AppSession) {
        guard let token = Self.token(in: authorization) else { throw APIError.badToken }
        let hash = SecretToken.hash(token), now = clock.now()
        let found = try await database.queryOffLoop { tx -> (AppSession, User)? in
            guard let session = try tx.appSessions.session(accessHash: hash), let user = try tx.accounts.user(id: session.userId) else {
                return nil
            }
            return (session, user)
        }
        guard let (session, user) = found, user.isActive, session.refreshExpiresAt > now else { throw APIError.badToken }
        guard session.accessExpiresAt > now else { throw APIError.accessExpired }
        return (user, session)
    }

    /// A new access token for the sign-in whose refresh token is `refreshToken`; its refresh
    /// token keeps working (the apps never store a new one) for another `refreshLifetime`.
    /// An unknown, expired or revoked refresh token is `APIError.refreshExpired`.
    func refresh(refreshToken: String?) async throws -> String {
        guard let token = Self.token(in: refreshToken) else { throw APIError.refreshExpired }
        let hash = SecretToken.hash(token), access = SecretToken.generate(), now = clock.now()
        let settings = self.settings
        let renewed = try await database.write { tx -> Bool in
            guard let session = try tx.appSessions.session(refreshHash: hash), session.refreshExpiresAt > now,
                  let user = try tx.accounts.user(id: session.userId), user.isActive else { return false }
            try tx.appSessions.renew(id: session.id!, accessHash: SecretToken.hash(access),
                                     accessExpiresAt: now.addingTimeInterval(settings.accessLifetime),
                                     refreshExpiresAt: now.addingTimeInterval(settings.refreshLifetime), at: now)
            return true
        }
        guard renewed else { throw APIError.refreshExpired }
        return access
    }

    /// `userId`'s apps' sign-ins, newest first.
    func list(userId: Int64) async throws -> [AppSession] {
        try await database.queryOffLoop { tx in try tx.appSessions.sessions(userId: userId) }
    }

    /// Ends one of `userId`'s sign-ins; answers whether there was one.
    func end(id: Int64, userId: Int64) async throws -> Bool {
        try await database.write { tx in try tx.appSessions.delete(id: id, userId: userId) }
    }

    /// The token in a header's value: the value itself, or what follows `Bearer `.
    private static func token(in header: String?) -> String? {
        guard var value = header?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.lowercased().hasPrefix("bearer ") { value = String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
        return value.isEmpty || value.count > 512 ? nil : value
    }
}
