import Foundation
import LinkPreviews
import Logging
import ServiceLifecycle

/// Sends the queued pushes in the background (RFC 8030): each payload sealed for its
/// subscription (`WebPushEncryption`), signed for with the server's VAPID key, posted to the
/// push service the browser chose, the way link previews are fetched (public `https` only,
/// unless `--push-service-hosts` names the host). Woken as soon as something is queued.
/// 2xx: done. 404 and 410: the subscription is gone, and goes here too. 429 and 5xx (or no
/// answer): tried again after `Retry-After` or a backoff that doubles from 5 s, at most
/// `maximumAttempts` times. Any other answer is a push this service will never take: dropped.
final class PushSender: Service, Sendable {
    let store: PushStore
    let key: VAPIDKey
    let fetcher: SafeFetcher
    let clock: WallClock
    let logger: Logger
    let doorbell: Doorbell
    static let maximumAttempts = 8
    /// How long a push service keeps a push for a browser that is offline.
    static let timeToLive = 24 * 3600

    init(store: PushStore, key: VAPIDKey, fetcher: SafeFetcher, clock: WallClock, logger: Logger, doorbell: Doorbell) {
        (self.store, self.key, self.fetcher, self.clock, self.logger, self.doorbell) = (store, key, fetcher, clock, logger, doorbell)
    }

    func run() async throws {
        await doorbell.serve(clock: clock, nextDue: { try self.store.nextDue() }, round: { await self.sendDue() })
    }

    /// Tries every push that is due, a few at a time.
    func sendDue() async {
        let due: [PushStore.Due]
        do {
            due = try await store.claimDue()
        } catch {
            logger.error("cannot read the push queue", metadata: ["error": "\(error)"])
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, push) in due.enumerated() {
                if index >= 8 { await group.next() }
                group.addTask { await self.send(push) }
            }
        }
    }

    /// What became of one push.
    enum Outcome: Equatable {
        case delivered, gone, retry(after: TimeInterval), refused(Int)
    }

    private func send(_ push: PushStore.Due) async {
        let outcome: Outcome
        do {
            outcome = try await deliver(push)
        } catch {
            logger.info("push not delivered", metadata: ["push": "\(push.id)", "error": "\(error)"])
            outcome = error is PushEndpointError || error is WebPushEncryption.KeyError
                ? .refused(0) : .retry(after: Self.backoff(after: push.attempts + 1))
        }
        do {
            switch outcome {
            case .delivered:
                try await store.finish(push.id)
            case .gone:
                logger.info("push subscription gone", metadata: ["subscription": "\(push.subscriptionId)"])
                try await store.drop(subscriptionId: push.subscriptionId)
            case .retry(let seconds):
                if push.attempts + 1 >= Self.maximumAttempts {
                    try await store.finish(push.id)
                } else {
                    try await store.retry(push.id, at: clock.now().addingTimeInterval(seconds))
                }
            case .refused(let status):
                logger.warning("push refused", metadata: ["push": "\(push.id)", "status": "\(status)"])
                try await store.finish(push.id)
            }
        } catch {
            logger.error("cannot update the push queue", metadata: ["error": "\(error)"])
        }
    }

    /// Seals and posts one push; its outcome by the push service's answer.
    func deliver(_ push: PushStore.Due) async throws -> Outcome {
        let endpoint = try PushEndpoint.url(push.subscription.endpoint, allowedHosts: fetcher.allowedHosts)
        let body = try WebPushEncryption.encrypt(Data(push.payload.utf8), p256dh: push.subscription.p256dh,
                                                 auth: push.subscription.auth)
        let answer = try await fetcher.post(endpoint, headers: [
            ("Authorization", try key.authorization(for: endpoint, now: clock.now())),
            ("Content-Encoding", "aes128gcm"),
            ("Content-Type", "application/octet-stream"),
            ("TTL", String(Self.timeToLive)),
            ("Urgency", "high"),
        ], body: [UInt8](body))
        return Self.outcome(answer, attempts: push.attempts + 1)
    }

    static func outcome(_ answer: SafeFetcher.PostAnswer, attempts: Int) -> Outcome {
        switch answer.status {
        case 200..<300: return .delivered
        case 404, 410: return .gone
        case 429, 500..<600:
            let told = answer.retryAfter.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
            return .retry(after: min(max(told ?? backoff(after: attempts), 1), 3600))
        default: return .refused(answer.status)
        }
    }

    /// Seconds before the next try after `attempts` failed ones: 5, 10, 20, … at most an hour.
    static func backoff(after attempts: Int) -> TimeInterval {
        min(3600, 5 * pow(2, Double(max(attempts - 1, 0))))
    }
}

/// Why a subscription's endpoint is not one wsx sends to.
enum PushEndpointError: Error {
    case notAllowed
}

/// Which push service URLs the server posts to: `https`, or `http` for a host the operator
/// named; the address it resolves to is checked when sending, as for link previews.
enum PushEndpoint {
    static func url(_ text: String, allowedHosts: Set<String>) throws -> URL {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              let host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty, url.user == nil
        else { throw PushEndpointError.notAllowed }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard scheme == "https" || (scheme == "http" && allowedHosts.contains(bare)) else { throw PushEndpointError.notAllowed }
        return url
    }
}
