import Hummingbird

/// `--require-2fa`: a person the server requires two-step sign-in of, who has not turned it on,
/// is sent to turn it on (pages) or refused (everything else) until they do. Signing out, the
/// language switch and the event stream are outside the signed-in routes and stay open.
struct TwoStepRequirementMiddleware: RouterMiddleware {
    typealias Context = SignedInContext
    let requirement: TwoStepRequirement

    /// The routes a person must reach to turn it on.
    private static let open: [any AnyRoute] = [Paths.twoStep, Paths.twoStepStart]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard requirement.applies(to: context.user), context.user.twoStepEnabledAt == nil,
              !Self.open.contains(where: { $0.matches(request.uri.path) })
        else { return try await next(request, context) }
        if request.method == .get || request.method == .head { return Pages.redirect(to: Paths.twoStep()) }
        throw AppError.forbidden("two_step_required")
    }
}
