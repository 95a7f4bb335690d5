import ArgumentParser
import Foundation
import Mail

/// `serve`'s options for Web Push: on by default (a browser subscribes only when its person
/// allows notifications); push services are fetched like link previews, public `https` only,
/// unless their host is named.
struct PushOptions: ParsableArguments {
    @Option(name: .customLong("web-push"), help: "Notifications to phones and browsers whose tab is closed: on or off (env WSX_WEB_PUSH, default on).")
    var webPush: String?
    @Option(name: .customLong("push-service-hosts"), help: "Comma-separated push service host names that may be plain http or private and loopback addresses, e.g. an intranet push service (env WSX_PUSH_SERVICE_HOSTS, default none).")
    var pushServiceHosts: String?

    /// Applied after the mail options: the VAPID subject is the mail sender's address.
    func apply(to config: inout AppConfig, mailFrom: String?, environment env: EnvironmentDefaults) throws {
        switch webPush ?? env.string("WSX_WEB_PUSH") ?? "on" {
        case "on": config.webPush.isOn = true
        case "off": config.webPush.isOn = false
        case let other: throw ValidationError("--web-push: \(other) is not on or off")
        }
        config.webPush.serviceHosts = (pushServiceHosts ?? env.string("WSX_PUSH_SERVICE_HOSTS") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let sender = try config.mail?.from ?? MailOptions.sender(mailFrom, baseURL: config.baseURL, environment: env)
        config.webPush.subject = "mailto:" + sender.address
    }
}

/// How the server sends Web Push (`--web-push`, `--push-service-hosts`).
struct WebPushSettings: Sendable {
    var isOn = true
    /// Push service hosts allowed plain `http` and non-public addresses.
    var serviceHosts: [String] = []
    /// The VAPID `sub` claim: `mailto:` the address mail comes from.
    var subject = "mailto:wsx@localhost"
}
