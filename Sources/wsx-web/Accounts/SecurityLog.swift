import Foundation

/// The server-wide record of what touches accounts: sign-ins (succeeded and failed, with the
/// client's address and at most 254 bytes of the address typed), administrators' actions,
/// deactivations, two-step changes. A workspace's own log (`AuditTrail`) records what happens
/// inside it; `wsx-web audit export` writes both.
enum SecurityLog {
    /// What happened.
    enum Action: String, Sendable, CaseIterable {
        case signIn = "sign_in"
        case signInFailed = "sign_in_failed"
        case signInRefused = "sign_in_refused"
        case signUp = "sign_up"
        case twoStepFailed = "two_step_failed"
        case twoStepOn = "two_step_on"
        case twoStepOff = "two_step_off"
        case twoStepReset = "two_step_reset"
        case recoveryCodeUsed = "recovery_code_used"
        case recoveryCodesRenewed = "recovery_codes_renewed"
        case deactivated
        case reactivated
        case promoted
        case demoted
        case workspaceHandedOver = "workspace_handed_over"
        case emailConfirmed = "email_confirmed"
        case passwordChanged = "password_changed"
        case passwordReset = "password_reset"
    }

    /// One line of the log as administrators and exports read it.
    struct Line: Sendable {
        let id: Int64
        let action: String
        let actor: String?
        let target: String?
        let workspaceId: Int64?
        let address: String
        let email: String
        let detail: String
        let at: Date
    }

    /// The longest e-mail address (RFC 5321): what a failed sign-in keeps of the address typed.
    static let emailBytes = 254

    /// Writes one line in a transaction of its own (`tx.securityLog.record` writes one in the
    /// caller's transaction).
    static func record(_ database: AppDatabase, _ action: Action, actor: Int64? = nil, target: Int64? = nil, address: String = "",
                       email: String = "", detail: String = "", at now: Date) async throws {
        try await database.write { tx in
            try tx.securityLog.record(action, actor: actor, target: target, address: address, email: email, detail: detail, at: now)
        }
    }
}
