import ArgumentParser
import Foundation
import Logging

/// `serve`'s options for selling coins. Payments are off unless configured: a default
/// deployment handed out coins through the built-in sandbox, and nothing warned.
struct PaymentOptions: ParsableArguments {
    @Option(name: .customLong("payments"), help: "off, sandbox (built in, no money moves: testing only) or portone (env WSX_PAYMENTS, default off).")
    var mode: String?
    @Option(name: .customLong("payment-gateway"), help: ArgumentHelp("Deprecated: use --payments (env WSX_PAYMENT_GATEWAY).", visibility: .hidden))
    var deprecatedGateway: String?
    @Option(name: .customLong("coin-packs"), help: "Packs for sale as coins:price pairs (env WSX_COIN_PACKS, default 10:100,50:500,100:1000).")
    var coinPacks: String?
    @Option(name: .customLong("currency"), help: "Currency of the prices (env WSX_CURRENCY, default KRW).")
    var currency: String?
    @Option(name: .customLong("sandbox-confirm-delay"), help: "Seconds a sandbox payment stays unconfirmed (env WSX_SANDBOX_CONFIRM_DELAY, default 1).")
    var sandboxConfirmDelay: Double?
    @Option(name: .customLong("sandbox-secret"), help: "HMAC secret of sandbox webhooks (env WSX_SANDBOX_SECRET; default: made and kept in the data folder).")
    var sandboxSecret: String?
    @Option(name: .customLong("portone-api"), help: "PortOne V1 API base URL (env WSX_PORTONE_API, default https://api.iamport.kr).")
    var portOneAPI: String?
    @Option(name: .customLong("portone-key"), help: "PortOne REST API key, imp_key (env WSX_PORTONE_KEY).")
    var portOneKey: String?
    @Option(name: .customLong("portone-secret"), help: "PortOne REST API secret, imp_secret (env WSX_PORTONE_SECRET).")
    var portOneSecret: String?
    @Option(name: .customLong("portone-merchant-code"), help: "PortOne merchant code for the browser SDK, imp… (env WSX_PORTONE_MERCHANT_CODE).")
    var portOneMerchantCode: String?
    @Option(name: .customLong("portone-pg"), help: "PG the PortOne SDK opens (env WSX_PORTONE_PG, default html5_inicis).")
    var portOnePG: String?

    /// Warnings to log once the logger exists (a deprecated flag used).
    func notices(environment env: EnvironmentDefaults = EnvironmentDefaults()) -> [String] {
        guard deprecatedGateway != nil || env.string("WSX_PAYMENT_GATEWAY") != nil else { return [] }
        return ["--payment-gateway (WSX_PAYMENT_GATEWAY) is deprecated and will be removed: use --payments (WSX_PAYMENTS)"]
    }

    func apply(to config: inout AppConfig, environment env: EnvironmentDefaults) throws {
        var payments = config.payments
        if let text = mode ?? env.string("WSX_PAYMENTS") ?? deprecatedGateway ?? env.string("WSX_PAYMENT_GATEWAY") {
            guard let parsed = PaymentSettings.Mode(rawValue: text.lowercased()) else {
                throw ValidationError("--payments must be off, sandbox or portone")
            }
            payments.mode = parsed
        }
        if let text = coinPacks ?? env.string("WSX_COIN_PACKS") {
            guard let packs = CoinPack.parse(text) else { throw ValidationError("--coin-packs: \(text) is not like 10:100,50:500") }
            payments.packs = packs
        }
        payments.currency = (currency ?? env.string("WSX_CURRENCY") ?? payments.currency).uppercased()
        if let delay = sandboxConfirmDelay ?? env.string("WSX_SANDBOX_CONFIRM_DELAY").flatMap(Double.init) {
            payments.sandboxConfirmDelay = max(0, delay)
        }
        payments.sandboxSecret = sandboxSecret ?? env.string("WSX_SANDBOX_SECRET")
        payments.portOneAPI = portOneAPI ?? env.string("WSX_PORTONE_API") ?? payments.portOneAPI
        payments.portOneKey = portOneKey ?? env.string("WSX_PORTONE_KEY") ?? ""
        payments.portOneSecret = portOneSecret ?? env.string("WSX_PORTONE_SECRET") ?? ""
        payments.portOneMerchantCode = portOneMerchantCode ?? env.string("WSX_PORTONE_MERCHANT_CODE") ?? ""
        payments.portOnePG = portOnePG ?? env.string("WSX_PORTONE_PG") ?? payments.portOnePG
        if payments.mode == .portone, payments.portOneKey.isEmpty || payments.portOneSecret.isEmpty {
            throw ValidationError("--payments portone needs --portone-key and --portone-secret")
        }
        config.payments = payments
    }
}
