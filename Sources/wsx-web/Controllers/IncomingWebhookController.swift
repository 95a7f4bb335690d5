import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import SlackFormat

/// `POST /hooks/{token}`: Slack's incoming webhook protocol. The payload (`SlackPayload`) as
/// JSON or as a `payload=` form; the answers are Slack's: `ok` once the message is stored,
/// `no_service` (404) for a URL no hook has, `invalid_payload` or `no_text` (400),
/// `msg_too_long` (400), `channel_is_archived` (410), `rate_limited` (429, `Retry-After`).
/// The token is only in the path, whose template alone is logged.
struct IncomingWebhookController: Sendable {
    let webhooks: IncomingWebhooks
    /// Slack's markup as wsx reads it: ids it cannot know stay as written, `:shortcodes:` it
    /// knows become emoji.
    let mrkdwn: SlackToMarkdown

    /// Slack takes payloads of some tens of kilobytes; this leaves room for blocks.
    static let maximumBytes = 256 * 1024

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(Paths.incomingWebhook.routerPath, use: post)
    }

    @Sendable func post(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let payload: SlackPayload
        do {
            let body = try await request.body.collect(upTo: Self.maximumBytes)
            payload = try SlackPayload(body: Data(buffer: body), contentType: request.headers[.contentType], mrkdwn: mrkdwn)
        } catch {
            return Self.answer(.badRequest, "invalid_payload")
        }
        do {
            _ = try await webhooks.post(token: token, payload: payload)
            return Self.answer(.ok, "ok")
        } catch let refusal as IncomingWebhooks.Refusal {
            switch refusal {
            case .noService: return Self.answer(.notFound, "no_service")
            case .noText: return Self.answer(.badRequest, "no_text")
            case .tooLong: return Self.answer(.badRequest, "msg_too_long")
            case .archived: return Self.answer(.gone, "channel_is_archived")
            case .rateLimited(let seconds):
                var response = Self.answer(.tooManyRequests, "rate_limited")
                response.headers[.retryAfter] = String(seconds)
                return response
            }
        }
    }

    private static func answer(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
