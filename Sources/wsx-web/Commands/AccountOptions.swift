import ArgumentParser
import Foundation

/// `serve`'s options for accounts: who may sign up, and who must use two-step sign-in.
struct AccountOptions: ParsableArguments {
    @Option(name: .customLong("signup"), help: "Who may sign up on the form: invite (the first account, invitations and join links), domain (also addresses at --signup-domains; needs --smtp-url) or open (anyone) (env WSX_SIGNUP, default invite).")
    var signup: String?
    @Option(name: .customLong("signup-domains"), help: "Comma-separated domains whose addresses may sign up with --signup domain, e.g. example.com,example.kr (env WSX_SIGNUP_DOMAINS).")
    var signupDomains: String?
    @Option(name: .customLong("require-2fa"), help: "Who must turn on two-step sign-in before using the server: off, admins or everyone (env WSX_REQUIRE_2FA, default off).")
    var require2FA: String?

    /// Applies them; call after the mail options (`domain` needs mail).
    func apply(to config: inout AppConfig, environment env: EnvironmentDefaults) throws {
        let modeText = signup ?? env.string("WSX_SIGNUP") ?? config.signup.mode.rawValue
        guard let mode = SignupPolicy.Mode(rawValue: modeText) else {
            throw ValidationError("--signup: \(modeText) is not open, invite or domain")
        }
        let domains = (signupDomains ?? env.string("WSX_SIGNUP_DOMAINS") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if mode == .domain {
            guard !domains.isEmpty else { throw ValidationError("--signup domain needs --signup-domains, e.g. example.com") }
            guard config.mail != nil else {
                throw ValidationError("--signup domain needs --smtp-url: a sign-up's address must be confirmed by mail")
            }
        }
        config.signup = SignupPolicy(mode: mode, domains: domains)
        let requireText = require2FA ?? env.string("WSX_REQUIRE_2FA") ?? config.requireTwoStep.rawValue
        guard let requirement = TwoStepRequirement(rawValue: requireText) else {
            throw ValidationError("--require-2fa: \(requireText) is not off, admins or everyone")
        }
        config.requireTwoStep = requirement
    }
}
