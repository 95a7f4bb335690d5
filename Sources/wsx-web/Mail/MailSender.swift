import Foundation
import Logging
import Mail
import Prometheus
import ServiceLifecycle

/// Sends the queued mail in the background: a request that makes mail only queues it, and
/// never waits for a mail server. Woken when mail is queued, else when the next retry is due.
/// A failed try is tried again after `retryDelay`, then four times as long each time (at most
/// six hours apart); after `maximumAttempts`, or at once when the server refused the recipient
/// or the message for good, the mail is given up on and kept with why (`SMTPFailureReason`) for
/// the people who can act on it: the workspace's owner for an invitation, server administrators
/// for every kind. When the mail server cannot be reached or stops answering, the rest of the
/// mail due waits for the same retry instead of each waiting out its own timeout.
final class MailSender: Service, Sendable {
    let outbox: MailOutbox
    let client: SMTPClient
    /// The envelope sender (`--mail-from`'s address).
    let sender: String
    let retryDelay: Duration
    let clock: WallClock
    let logger: Logger
    /// Counts the failed tries (`wsx_mail_attempts_failed_total`).
    let failedAttempts: Counter?
    static let maximumAttempts = 6
    private let doorbell = Doorbell()

    init(outbox: MailOutbox, client: SMTPClient, sender: String, retryDelay: Duration, clock: WallClock, logger: Logger,
         failedAttempts: Counter? = nil) {
        self.outbox = outbox
        self.client = client
        self.sender = sender
        self.retryDelay = retryDelay
        self.clock = clock
        self.logger = logger
        self.failedAttempts = failedAttempts
    }

    /// Mail was queued: send it now.
    func wake() {
        doorbell.ring()
    }

    func run() async throws {
        await doorbell.serve(clock: clock, nextDue: { try self.outbox.nextDue() }, round: { await self.sendDue() })
    }

    /// Tries every mail that is due.
    func sendDue() async {
        let due: [MailOutbox.Due]
        do {
            due = try await outbox.claimDue()
        } catch {
            logger.error("cannot read the mail queue", metadata: ["error": "\(error)"])
            return
        }
        for (index, mail) in due.enumerated() {
            do {
                try await client.send(mail.message, from: sender, to: [mail.recipient])
                try await outbox.markSent(mail.id)
                logger.info("mail sent", metadata: ["mail": "\(mail.id)"])
            } catch {
                failedAttempts?.increment()
                let attempts = mail.attempts + 1
                let smtp = error as? SMTPError
                let reason = smtp?.reason ?? .unreachable
                let permanent = smtp?.isPermanent ?? false
                let retryAt = clock.now().addingTimeInterval(delay(after: attempts))
                let next: Date? = permanent || attempts >= Self.maximumAttempts ? nil : retryAt
                logger.warning("mail not sent", metadata: ["mail": "\(mail.id)", "attempt": "\(attempts)", "error": "\(error)",
                                                           "retry": next == nil ? "no" : "yes"])
                try? await outbox.markFailed(mail.id, error: "\(error)", reason: reason, next: next)
                // The server itself is out of reach or stalled: the others would wait out the
                // same timeout one by one. They wait for this one's retry, their tries uncounted.
                if [.unreachable, .timedOut].contains(reason) {
                    let rest = due[(index + 1)...].map(\.id)
                    if !rest.isEmpty { try? await outbox.postpone(rest, until: retryAt) }
                    return
                }
            }
        }
    }

    /// Seconds before the next try after `attempts` failed ones.
    func delay(after attempts: Int) -> TimeInterval {
        let base = Double(retryDelay.components.seconds) + Double(retryDelay.components.attoseconds) / 1e18
        return min(6 * 3600, base * pow(4, Double(attempts - 1)))
    }
}
