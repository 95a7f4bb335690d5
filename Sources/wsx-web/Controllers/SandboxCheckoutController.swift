import Foundation
import Hummingbird
import Views

/// `/sandbox-pay`: the built-in test gateway's checkout page (only with `--payment-gateway sandbox`).
/// Like a hosted checkout, it takes the merchant id and amount it is sent; Pay or Decline is
/// recorded on the sandbox's side and the browser returns to `/store/complete`.
struct SandboxCheckoutController: Sendable {
    let sandbox: SandboxGateway
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/sandbox-pay", use: page)
        router.post("/sandbox-pay", use: decide)
    }

    @Sendable func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let merchantUid = query["merchant_uid"].map(String.init), let amount = query["amount"].flatMap({ Int($0) }),
              amount > 0 else { throw AppError.badRequest }
        let currency = query["currency"].map(String.init) ?? "KRW"
        let page = SandboxCheckoutPage(merchantUid: merchantUid, amount: amount, currency: currency,
                                       name: query["name"].map(String.init) ?? "", amountText: StoreController.price(amount, currency))
        return try await pages.render(.sandboxCheckout, title: "TEST", page: page, request: request, context: context)
    }

    @Sendable func decide(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = context.visitor.form ?? FormData(fields: [])
        guard let merchantUid = form["merchant_uid"], let amount = form["amount"].flatMap({ Int($0) }), amount > 0,
              let decision = form["decision"], ["pay", "decline"].contains(decision)
        else { throw AppError.badRequest }
        let id = try await sandbox.decide(merchantUid: merchantUid, amount: amount, currency: form["currency"] ?? "KRW",
                                          pay: decision == "pay")
        return Pages.redirect(to: StoreController.completeURL(merchantUid, id))
    }
}
