import Foundation
import Hummingbird
import Views

/// `/store`: the balance, coin packs and purchase history; checkout; the return from the gateway.
struct StoreController: Sendable {
    let payments: PaymentService
    let accounts: AccountService
    let pages: Pages

    /// `/store` always (the balance); checkout and its return only when payments are on.
    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.store.routerPath, use: store)
        guard payments.isEnabled else { return }
        group.post(Paths.checkout.routerPath, use: checkout)
        group.get(Paths.checkoutComplete.routerPath, use: complete)
    }

    @Sendable func store(_ request: Request, context: SignedInContext) async throws -> Response {
        let strings = context.strings
        let history = try await payments.history(userId: context.userId).map { payment in
            PurchaseRow(timestamp: Timestamps.iso(payment.createdAt), timeText: Timestamps.utcText(payment.createdAt),
                        pack: strings.format("store_pack_name", payment.coins),
                        amountText: Self.price(payment.amount, payment.currency),
                        statusText: strings["payment_\(payment.status.rawValue)"], status: payment.status.rawValue,
                        checkURL: payment.status == .pending ? payment.gatewayPaymentId.map { Self.completeURL(payment.merchantUid, $0) } : nil)
        }
        let page = StorePage(balance: context.user.coinBalance,
                             packs: payments.packs.map { PackView(item: $0.item, coins: $0.coins,
                                                                  priceText: Self.price($0.price, payments.currency)) },
                             history: history, isSandbox: payments.gateway?.name == "sandbox",
                             isSelling: payments.isEnabled)
        return try await pages.render(.store, title: strings["store_title"], page: page, request: request, context: context)
    }

    @Sendable func checkout(_ request: Request, context: SignedInContext) async throws -> Response {
        guard let gateway = payments.gateway else { throw AppError.notFound }
        let (payment, pack) = try await payments.checkout(userId: context.userId, item: context.form["item"] ?? "")
        let name = Self.itemName(pack.coins, context.strings)
        switch gateway.start(payment, itemName: name, buyerEmail: context.user.email) {
        case .redirect(let url):
            return Pages.redirect(to: url)
        case .clientSDK(let sdk):
            let page = PortOneCheckoutPage(merchantCode: sdk.merchantCode, pg: sdk.pg, merchantUid: sdk.merchantUid,
                                           amount: sdk.amount, name: sdk.itemName, buyerEmail: sdk.buyerEmail,
                                           completeURL: Paths.checkoutComplete(), sdkURL: Self.portOneSDK,
                                           scriptURL: pages.assets.url(for: "store.js"))
            // This page alone may load iamport's SDK and open its payment window.
            let policy = SecurityHeaders.contentSecurityPolicy
                .replacingOccurrences(of: "script-src 'self'", with: "script-src 'self' https://cdn.iamport.kr")
                .replacingOccurrences(of: "connect-src 'self'", with: "connect-src 'self' https://*.iamport.kr")
                + "; frame-src https:"
            return try await pages.render(.portoneCheckout, title: context.strings["portone_title"], page: page,
                                          request: request, context: context, headers: [.contentSecurityPolicy: policy])
        }
    }

    static let portOneSDK = "https://cdn.iamport.kr/v1/iamport.js"

    /// What a pack is called at the gateway.
    static func itemName(_ coins: Int, _ strings: Strings) -> String {
        "wsx " + strings.format("store_pack_name", coins)
    }

    /// The return from the gateway (`?merchant_uid=…&imp_uid=…`): asks the gateway and says what happened.
    @Sendable func complete(_ request: Request, context: SignedInContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let merchantUid = query["merchant_uid"].map(String.init),
              let payment = try await payments.payment(merchantUid: merchantUid), payment.userId == context.userId
        else { throw AppError.notFound }
        let strings = context.strings
        let outcome: PaymentService.Outcome
        if let gatewayId = query["imp_uid"].map(String.init) ?? payment.gatewayPaymentId {
            outcome = try await payments.verify(gatewayPaymentId: gatewayId, claimedMerchantUid: merchantUid)
        } else {
            outcome = .failed(payment, reason: payment.status == .paid ? "" : "not_completed")
        }
        let balance = try await accounts.user(id: context.userId)?.coinBalance ?? 0
        let page: StoreResultPage
        switch outcome.belonging(to: context.userId) {
        case .credited(let paid), .alreadyCredited(let paid):
            page = StoreResultPage(succeeded: true, isPending: false, heading: strings["store_result_paid_title"],
                                   message: strings.format("store_result_paid_body", paid.coins), balance: balance, checkURL: nil)
        case .pending(let pending, let reason):
            let check = (pending ?? payment).gatewayPaymentId.map { Self.completeURL(merchantUid, $0) }
            page = StoreResultPage(succeeded: false, isPending: true, heading: strings["store_result_pending_title"],
                                   message: strings["reason_\(reason)"], balance: balance, checkURL: check)
        case .failed(_, let reason):
            page = StoreResultPage(succeeded: false, isPending: false, heading: strings["store_result_failed_title"],
                                   message: strings["reason_\(reason)"], balance: balance, checkURL: nil)
        }
        return try await pages.render(.storeResult, title: page.heading, page: page, request: request, context: context)
    }

    static func completeURL(_ merchantUid: String, _ gatewayId: String) -> String {
        Paths.checkoutComplete(query: "merchant_uid=\(merchantUid)&imp_uid=\(gatewayId)")
    }

    /// `₩1,000` for won; `1,000 USD` otherwise.
    static func price(_ amount: Int, _ currency: String) -> String {
        let digits = String(amount)
        var grouped = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(character)
        }
        return currency.uppercased() == "KRW" ? "₩" + grouped : "\(grouped) \(currency.uppercased())"
    }
}
