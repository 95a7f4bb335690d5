import Foundation
import Hummingbird
import LinkPreviews
import NIOFoundationEssentialsCompat

/// Web Push for scripts: the server's public key (`GET /push/key`), a browser's subscription
/// (`POST /push/subscriptions`, the browser's PushSubscription JSON, CSRF by `X-CSRF-Token`),
/// and its removal (`POST /push/subscriptions/remove`, `{"endpoint": …}`).
struct PushController: Sendable {
    let push: PushServices

    func addRoutes(to router: Router<AppRequestContext>, signedIn: RouterGroup<SignedInContext>) {
        router.get(Paths.pushKey.routerPath, use: key)
        signedIn.post(Paths.pushSubscriptions.routerPath, use: subscribe)
        signedIn.post(Paths.pushSubscriptionRemoval.routerPath, use: unsubscribe)
    }

    /// The VAPID public key, base64url without padding (65 bytes: an uncompressed P-256 point).
    @Sendable func key(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"],
                 body: .init(byteBuffer: ByteBuffer(string: push.key.publicKeyText)))
    }

    /// What a browser sends: `{"endpoint": "https://…", "expirationTime": null, "keys": {"p256dh": …, "auth": …}}`.
    struct PostedSubscription: Decodable {
        struct Keys: Decodable {
            let p256dh: String
            let auth: String
        }
        let endpoint: String
        let keys: Keys
    }

    struct PostedRemoval: Decodable {
        let endpoint: String
    }

    /// 201 once kept; 422 for anything but a usable subscription.
    @Sendable func subscribe(_ request: Request, context: SignedInContext) async throws -> Response {
        let posted = try await Self.decoded(PostedSubscription.self, request)
        let subscription = try Self.checked(posted, allowedHosts: push.sender.fetcher.allowedHosts)
        try await push.store.subscribe(subscription, userId: context.userId, sessionId: context.session.id!)
        return Response(status: .created, headers: [.cacheControl: "no-store"])
    }

    @Sendable func unsubscribe(_ request: Request, context: SignedInContext) async throws -> Response {
        let posted = try await Self.decoded(PostedRemoval.self, request)
        try await push.store.unsubscribe(endpoint: posted.endpoint, userId: context.userId)
        return Response(status: .noContent)
    }

    /// The JSON body (at most 8 KB) as `T`, or a 422.
    static func decoded<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: 8192)
        } catch {
            throw AppError.status(413, "error_push_subscription")
        }
        guard let value = try? JSONDecoder().decode(T.self, from: Data(buffer: body)) else {
            throw AppError.status(422, "error_push_subscription")
        }
        return value
    }

    /// A subscription wsx can send to: an allowed endpoint, a P-256 point and a 16-byte secret.
    static func checked(_ posted: PostedSubscription, allowedHosts: Set<String>) throws -> PushStore.Subscription {
        guard (try? PushEndpoint.url(posted.endpoint, allowedHosts: allowedHosts)) != nil,
              let p256dh = Data(base64URLEncoded: posted.keys.p256dh), (try? WebPushEncryption.publicKey(p256dh)) != nil,
              let auth = Data(base64URLEncoded: posted.keys.auth), auth.count == 16
        else { throw AppError.status(422, "error_push_subscription") }
        return PushStore.Subscription(endpoint: posted.endpoint, p256dh: p256dh, auth: auth)
    }
}

/// Web Push's parts, when it is on: the server's key, the subscriptions and queue, who is told
/// of what, and the sender.
struct PushServices: Sendable {
    let key: VAPIDKey
    let store: PushStore
    let notifier: PushNotifier
    let sender: PushSender
}
