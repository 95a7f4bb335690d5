import ArgumentParser
import Foundation

/// `serve`'s options for sign-ins and sign-ups: how many failures, and sign-ups, before waiting.
struct SignInOptions: ParsableArguments {
    @Option(name: .customLong("login-max-failures"), help: "Failed sign-ins per account from one address in a window (env WSX_LOGIN_MAX_FAILURES, default 10).")
    var loginMaxFailures: Int?
    @Option(name: .customLong("login-max-failures-per-account"), help: "Failed sign-ins per account from anywhere in a window; browsers that signed in to it before are not held (env WSX_LOGIN_MAX_FAILURES_PER_ACCOUNT, default 100).")
    var loginMaxFailuresPerAccount: Int?
    @Option(name: .customLong("login-max-failures-per-ip"), help: "Failed sign-ins per address in a window (env WSX_LOGIN_MAX_FAILURES_PER_IP, default 100).")
    var loginMaxFailuresPerIP: Int?
    @Option(name: .customLong("login-failure-window"), help: "Seconds failed sign-ins are remembered (env WSX_LOGIN_FAILURE_WINDOW, default 180).")
    var loginFailureWindow: Int?
    @Option(name: .customLong("signup-max-per-ip"), help: "Sign-ups per address per hour; sign-ups through an invitation do not count (env WSX_SIGNUP_MAX_PER_IP, default 20).")
    var signupMaxPerIP: Int?

    func apply(to config: inout AppConfig, environment env: EnvironmentDefaults) throws {
        var limits = config.loginLimits
        limits.perAccountAndAddress = try loginMaxFailures ?? env.int("WSX_LOGIN_MAX_FAILURES") ?? limits.perAccountAndAddress
        limits.perAccount = try loginMaxFailuresPerAccount ?? env.int("WSX_LOGIN_MAX_FAILURES_PER_ACCOUNT") ?? limits.perAccount
        limits.perAddress = try loginMaxFailuresPerIP ?? env.int("WSX_LOGIN_MAX_FAILURES_PER_IP") ?? limits.perAddress
        limits.window = TimeInterval(try loginFailureWindow ?? env.int("WSX_LOGIN_FAILURE_WINDOW") ?? Int(limits.window))
        guard limits.perAccountAndAddress > 0, limits.perAccount > 0, limits.perAddress > 0, limits.window > 0 else {
            throw ValidationError("sign-in limits and their window must be positive")
        }
        config.loginLimits = limits
        config.signupLimit.limit = try signupMaxPerIP ?? env.int("WSX_SIGNUP_MAX_PER_IP") ?? config.signupLimit.limit
        guard config.signupLimit.limit > 0 else { throw ValidationError("--signup-max-per-ip must be positive") }
    }
}
