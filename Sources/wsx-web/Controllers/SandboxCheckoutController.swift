import Foundation
import Hummingbird
import Views

/// `/sandbox-pay`: the built-in test gateway's checkout page (only with `--payments sandbox`).
///
/// It is for the signed-in buyer of a pending sandbox payment only, and shows the server's own
/// amount and item for it: the page once showed any name and price a query string asked for,
/// to anyone. Pay or Decline is recorded on the sandbox's side and the browser returns to
/// `/store/complete`, where wsx asks the sandbox what happened, as it would ask PortOne. Like a
/// hosted checkout, the sandbox records the amount it is sent; `PaymentService` refuses a
/// payment whose gateway amount differs from its own.
struct SandboxCheckoutController: Sendable {
    let sandbox: SandboxGateway
    let payments: PaymentService
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.sandboxPay.routerPath, use: page)
        group.post(Paths.sandboxPay.routerPath, use: decide)
    }

    /// The viewer's pending sandbox payment with this merchant id, or a 404.
    private func pendingPayment(_ merchantUid: String?, _ context: SignedInContext) async throws -> Payment {
        guard let merchantUid, let payment = try await payments.payment(merchantUid: merchantUid),
              payment.userId == context.userId, payment.gateway == sandbox.name, payment.status == .pending,
              try !sandbox.hasDecided(merchantUid: merchantUid)
        else { throw AppError.notFound }
        return payment
    }

    @Sendable func page(_ request: Request, context: SignedInContext) async throws -> Response {
        let payment = try await pendingPayment(request.uri.queryParameters["merchant_uid"].map(String.init), context)
        let page = SandboxCheckoutPage(merchantUid: payment.merchantUid, amount: payment.amount, currency: payment.currency,
                                       name: StoreController.itemName(payment.coins, context.strings),
                                       amountText: StoreController.price(payment.amount, payment.currency))
        return try await pages.render(.sandboxCheckout, title: "TEST", page: page, request: request, context: context)
    }

    @Sendable func decide(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = context.form
        let payment = try await pendingPayment(form["merchant_uid"], context)
        guard let decision = form["decision"], ["pay", "decline"].contains(decision) else { throw AppError.badRequest }
        let amount = form["amount"].flatMap { Int($0) } ?? payment.amount
        guard amount > 0 else { throw AppError.badRequest }
        let id = try await sandbox.decide(merchantUid: payment.merchantUid, amount: amount, currency: payment.currency,
                                          pay: decision == "pay")
        return Pages.redirect(to: StoreController.completeURL(payment.merchantUid, id))
    }
}
