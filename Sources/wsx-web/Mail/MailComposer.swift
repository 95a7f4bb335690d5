import Foundation
import Mail
import Views

/// The mail wsx sends, written out in the reader's language: plain text and HTML of the same
/// words, links built from `--base-url`, Korean subjects as RFC 2047 encoded words.
struct MailComposer: Sendable {
    let from: MailAddress
    let site: SiteAddress
    let clock: WallClock

    /// One line of a digest: where, who, what (its first words), and the way to it.
    struct DigestItem: Sendable {
        let place: String
        let author: String
        let excerpt: String
        let path: String
    }

    func invitation(to email: String, inviter: String, workspace: String, token: String, lang: Lang) -> String {
        let strings = lang.strings
        let link = site.base + Paths.invite(token)
        return compose(to: email, subject: strings.format("mail_invite_subject", inviter, workspace),
                       paragraphs: [strings.format("mail_invite_body", inviter, workspace), strings["mail_invite_expiry"]],
                       link: (link, strings["mail_invite_action"]), lang: lang)
    }

    func passwordReset(to email: String, token: String, lang: Lang) -> String {
        let strings = lang.strings
        return compose(to: email, subject: strings["mail_reset_subject"],
                       paragraphs: [strings["mail_reset_body"], strings["mail_reset_ignore"]],
                       link: (site.base + Paths.passwordReset(token), strings["mail_reset_action"]), lang: lang)
    }

    /// Asks a new account's person to confirm their address (`/confirm/{token}`).
    func emailConfirmation(to email: String, token: String, lang: Lang) -> String {
        let strings = lang.strings
        return compose(to: email, subject: strings["mail_confirm_subject"],
                       paragraphs: [strings["mail_confirm_body"], strings["mail_confirm_ignore"]],
                       link: (site.base + Paths.confirmEmail(token), strings["mail_confirm_action"]), lang: lang)
    }

    /// Mentions and direct messages someone missed, with a one-click unsubscribe (RFC 8058).
    func digest(to email: String, nickname: String, items: [DigestItem], unsubscribePath: String, lang: Lang) -> String {
        let strings = lang.strings
        let unsubscribe = site.base + unsubscribePath
        let lines = items.map { "\($0.place) · \($0.author): \($0.excerpt)\n\(site.base)\($0.path)" }
        let htmlItems = items.map { item in
            "<li><a href=\"\(HTMLEscaping.escape(site.base + item.path))\">\(HTMLEscaping.escape(item.place))</a> · "
                + "<strong>\(HTMLEscaping.escape(item.author))</strong>: \(HTMLEscaping.escape(item.excerpt))</li>"
        }
        let intro = strings.format("mail_digest_body", nickname, items.count)
        let footer = strings["mail_digest_footer"]
        let text = ([intro, ""] + lines + ["", footer, unsubscribe]).joined(separator: "\n")
        let html = "<p>\(HTMLEscaping.escape(intro))</p><ul>\(htmlItems.joined())</ul>"
            + "<p style=\"color:#666\">\(HTMLEscaping.escape(footer)) <a href=\"\(HTMLEscaping.escape(unsubscribe))\">"
            + "\(HTMLEscaping.escape(strings["mail_digest_unsubscribe"]))</a></p>"
        let message = MailMessage(from: from, to: MailAddress(address: email),
                                  subject: strings.format("mail_digest_subject", items.count), text: text,
                                  html: Self.document(html, lang: lang),
                                  headers: [("List-Unsubscribe", "<\(unsubscribe)>"),
                                            ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"),
                                            ("Auto-Submitted", "auto-generated")])
        return message.rendered(date: clock.now(), messageId: messageId())
    }

    private func compose(to email: String, subject: String, paragraphs: [String], link: (url: String, label: String),
                         lang: Lang) -> String {
        let text = (paragraphs + [link.url]).joined(separator: "\n\n")
        let html = paragraphs.map { "<p>\(HTMLEscaping.escape($0))</p>" }.joined()
            + "<p><a href=\"\(HTMLEscaping.escape(link.url))\">\(HTMLEscaping.escape(link.label))</a></p>"
        let message = MailMessage(from: from, to: MailAddress(address: email), subject: subject, text: text,
                                  html: Self.document(html, lang: lang), headers: [("Auto-Submitted", "auto-generated")])
        return message.rendered(date: clock.now(), messageId: messageId())
    }

    private static func document(_ body: String, lang: Lang) -> String {
        "<!doctype html><html lang=\"\(lang.rawValue)\"><head><meta charset=\"utf-8\"></head>"
            + "<body style=\"font-family:sans-serif;line-height:1.5\">\(body)</body></html>"
    }

    private func messageId() -> String {
        let domain = from.address.split(separator: "@").last.map(String.init) ?? "localhost"
        return "\(UUID().uuidString.lowercased())@\(domain)"
    }
}

/// What a controller needs to send mail: the queue, and (with `--smtp-url`) the composer and
/// the sender to wake.
struct MailRoutes: Sendable {
    let outbox: MailOutbox
    let composer: MailComposer?
    let sender: MailSender?
}
