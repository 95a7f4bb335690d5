import ArgumentParser
import Foundation

/// The apps' API (`/v1`): off unless keys are given.
struct APIOptions: ParsableArguments {
    @Option(name: .customLong("api-key"), help: "Turns the apps' API (/v1) on: comma-separated keys, one of which every request carries as SesacKey (env WSX_API_KEY; without it /v1 is a 404).")
    var apiKey: String?
    @Option(name: .customLong("api-access-ttl"), help: "How long an app's access token works before it refreshes it, e.g. 15m, 1h (env WSX_API_ACCESS_TTL, default 15m).")
    var apiAccessTTL: String?
    @Option(name: .customLong("api-refresh-ttl"), help: "How long an app stays signed in without being used, e.g. 30d (env WSX_API_REFRESH_TTL, default 30d).")
    var apiRefreshTTL: String?
    @Option(name: .customLong("apple-client-id"), help: "Turns Sign in with Apple on for the apps: their bundle ids (the idToken's audience), comma-separated (env WSX_APPLE_CLIENT_ID).")
    var appleClientId: String?
    @Option(name: .customLong("apple-jwks"), help: "Where Apple's signing keys are: a JWKS file or URL (env WSX_APPLE_JWKS, default https://appleid.apple.com/auth/keys).")
    var appleJWKS: String?
    @Option(name: .customLong("kakao-api"), help: "Turns Kakao sign-in on for the apps: the base URL of Kakao's API, https://kapi.kakao.com (env WSX_KAKAO_API).")
    var kakaoAPI: String?
    @Flag(name: .customLong("socket-io-unauthenticated"), help: "Lets the apps' Socket.IO sockets join a public channel or a DM without an access token, by its opaque id alone (env WSX_SOCKET_IO_UNAUTHENTICATED=1). Weaker: such a socket belongs to nobody, so a member removed from the room is not disconnected.")
    var socketIOUnauthenticated = false

    func apply(to config: inout AppConfig, environment env: EnvironmentDefaults) throws {
        config.api.keys = (apiKey ?? env.string("WSX_API_KEY") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let text = apiAccessTTL ?? env.string("WSX_API_ACCESS_TTL") {
            guard let seconds = DurationText.seconds(text), seconds >= 1 else {
                throw ValidationError("--api-access-ttl: \(text) is not a duration like 15m, 1h or 900s")
            }
            config.api.accessLifetime = seconds
        }
        if let text = apiRefreshTTL ?? env.string("WSX_API_REFRESH_TTL") {
            guard let seconds = DurationText.seconds(text), seconds > config.api.accessLifetime else {
                throw ValidationError("--api-refresh-ttl: \(text) is not a duration longer than the access tokens', like 30d")
            }
            config.api.refreshLifetime = seconds
        }
        config.api.appleClientIds = (appleClientId ?? env.string("WSX_APPLE_CLIENT_ID") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        config.api.appleKeys = appleJWKS ?? env.string("WSX_APPLE_JWKS") ?? config.api.appleKeys
        config.api.socketIOUnauthenticated = socketIOUnauthenticated || env.string("WSX_SOCKET_IO_UNAUTHENTICATED") == "1"
        if let base = kakaoAPI ?? env.string("WSX_KAKAO_API") {
            guard let url = URL(string: base), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw ValidationError("--kakao-api: \(base) is not an http(s) address like https://kapi.kakao.com")
            }
            config.api.kakaoAPI = url
        }
    }
}

/// The apps' API settings (`APIOptions`).
struct APISettings: Sendable {
    /// The keys one of which every `/v1` request carries (`SesacKey`); none turns `/v1` off.
    var keys: [String] = []
    /// How long an access token works.
    var accessLifetime: TimeInterval = 15 * 60
    /// How long a refresh token works after its last use.
    var refreshLifetime: TimeInterval = 30 * 86_400
    /// Sign in with Apple: the apps' bundle ids (none: off), and where Apple's keys are (a JWKS
    /// file or URL).
    var appleClientIds: [String] = []
    var appleKeys = "https://appleid.apple.com/auth/keys"
    /// Kakao sign-in: the base URL of Kakao's API (nil: off).
    var kakaoAPI: URL?
    /// Socket.IO namespaces joined without a token (`--socket-io-unauthenticated`).
    var socketIOUnauthenticated = false

    var isOn: Bool { !keys.isEmpty }
}
