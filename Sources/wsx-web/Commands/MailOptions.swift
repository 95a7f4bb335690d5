import ArgumentParser
import Foundation
import Mail

/// `serve`'s options for mail: where it goes (`--smtp-url`), who it is from, how it retries,
/// when the digest goes out, and how often one address may ask for a password reset.
struct MailOptions: ParsableArguments {
    @Option(name: .customLong("smtp-url"), help: "smtp://[user:pass@]host[:port] (STARTTLS whenever offered; a login is never sent without TLS) or smtps://… (TLS from the start). Without it no mail is sent (env WSX_SMTP_URL).")
    var smtpURL: String?
    @Option(name: .customLong("smtp-ca-file"), help: "PEM file of the certificate authorities to trust for the mail server instead of the system's (env WSX_SMTP_CA_FILE).")
    var smtpCAFile: String?
    @Option(name: .customLong("mail-from"), help: "Sender of the mail, e.g. 'wsx <chat@example.com>' (env WSX_MAIL_FROM, default wsx <wsx@ the --base-url host>).")
    var mailFrom: String?
    @Option(name: .customLong("mail-retry-delay"), help: "Seconds before a failed mail is tried again; four times as long each further time (env WSX_MAIL_RETRY_DELAY, default 30).")
    var mailRetryDelay: Double?
    @Option(name: .customLong("digest-after"), help: "How long a mention or direct message stays unread, its reader away, before it is mailed, e.g. 1h, 30m (env WSX_DIGEST_AFTER, default 1h).")
    var digestAfter: String?
    @Option(name: .customLong("reset-max-per-ip"), help: "Password-reset requests per address per hour; 0 for no limit (env WSX_RESET_MAX_PER_IP, default 5).")
    var resetMaxPerIP: Int?

    func apply(to config: inout AppConfig, environment env: EnvironmentDefaults) throws {
        config.resetLimitPerAddress = try resetMaxPerIP ?? env.int("WSX_RESET_MAX_PER_IP") ?? config.resetLimitPerAddress
        guard config.resetLimitPerAddress >= 0 else { throw ValidationError("--reset-max-per-ip cannot be negative") }
        guard let url = smtpURL ?? env.string("WSX_SMTP_URL"), !url.isEmpty else { return }
        var smtp: SMTPSettings
        do {
            smtp = try SMTPSettings.parse(url)
        } catch {
            throw ValidationError("--smtp-url: \(error)")
        }
        smtp.trustedCAFile = smtpCAFile ?? env.string("WSX_SMTP_CA_FILE")
        if let file = smtp.trustedCAFile, !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("--smtp-ca-file: cannot read \(file)")
        }
        smtp.heloName = Self.host(of: config.baseURL)
        var mail = MailSettings(smtp: smtp, from: try Self.sender(mailFrom, baseURL: config.baseURL, environment: env))
        if let delay = try mailRetryDelay ?? env.string("WSX_MAIL_RETRY_DELAY").map({ text in
            guard let value = Double(text) else { throw ValidationError("WSX_MAIL_RETRY_DELAY=\(text) is not a number") }
            return value
        }) {
            guard delay > 0 else { throw ValidationError("--mail-retry-delay must be positive") }
            mail.retryDelay = .milliseconds(Int(delay * 1000))
        }
        if let text = digestAfter ?? env.string("WSX_DIGEST_AFTER") {
            guard let seconds = DurationText.seconds(text), seconds > 0 else {
                throw ValidationError("--digest-after: \(text) is not a duration like 1h, 30m or 600s")
            }
            mail.digestAfter = seconds
        }
        config.mail = mail
    }
}

extension MailOptions {
    /// The host of the site's address, which mail is sent from (`localhost` without one).
    static func host(of baseURL: String?) -> String {
        baseURL.flatMap { URLComponents(string: $0)?.host } ?? "localhost"
    }

    /// Who mail is from: `--mail-from` (or `WSX_MAIL_FROM`), else wsx at the site's host.
    static func sender(_ flag: String?, baseURL: String?, environment env: EnvironmentDefaults) throws -> MailAddress {
        let text = flag ?? env.string("WSX_MAIL_FROM") ?? "wsx <wsx@\(host(of: baseURL))>"
        guard let from = MailAddress.parse(text) else {
            throw ValidationError("--mail-from: \(text) is not an address like 'wsx <chat@example.com>'")
        }
        return from
    }
}

/// How mail goes out, when it does (`--smtp-url` and friends).
struct MailSettings: Sendable {
    var smtp: SMTPSettings
    var from: MailAddress
    var retryDelay: Duration = .seconds(30)
    /// How long a mention or direct message stays unread, its reader away, before it is mailed.
    var digestAfter: TimeInterval = 3600
}
