import HTTPTypes

/// An error with a meaning for the person who made the request: the error page middleware
/// renders it with its status and message in their language. Anything else becomes a 500.
struct AppError: Error, Sendable {
    let status: HTTPResponse.Status
    /// Key of the message shown (`error_403_body` when nil is derived from the status).
    let messageKey: String?
    /// Extra headers (`Retry-After`).
    var headers: HTTPFields = [:]
    /// Values for the message's `{0}`, `{1}` placeholders.
    var arguments: [String] = []

    static let notFound = AppError(status: .notFound, messageKey: nil)
    static let forbidden = AppError(status: .forbidden, messageKey: nil)
    static let badRequest = AppError(status: .badRequest, messageKey: nil)
    /// A POST without the right CSRF token: nothing happened.
    static let csrfRejected = AppError(status: .forbidden, messageKey: "error_csrf_body")
    /// A page that needs a signed-in user.
    static let signInRequired = AppError(status: .unauthorized, messageKey: nil)
    static let tooLarge = AppError(status: .contentTooLarge, messageKey: nil)
    /// The server is too busy right now (password hashing's line is full): try again shortly.
    static let busy = AppError(status: .serviceUnavailable, messageKey: "error_busy", headers: [.retryAfter: "2"])

    static func forbidden(_ messageKey: String) -> AppError { AppError(status: .forbidden, messageKey: messageKey) }
    static func notFound(_ messageKey: String) -> AppError { AppError(status: .notFound, messageKey: messageKey) }

    static func status(_ code: Int, _ messageKey: String, _ arguments: String...) -> AppError {
        AppError(status: .init(code: code), messageKey: messageKey, arguments: arguments)
    }

    /// A refusal after which the connection closes (`Connection: close`): the rest of an
    /// oversized body is not worth reading.
    static func closing(_ code: Int, _ messageKey: String, _ arguments: String...) -> AppError {
        AppError(status: .init(code: code), messageKey: messageKey, headers: [.connection: "close"], arguments: arguments)
    }
}
