import Foundation
import Views

/// What a valid account looks like. The rules live here once and every form that touches an
/// account (sign-up, profile, password change, reset, invitation) applies them through these.
enum AccountRules {
    static let nickname = TextLimit(characters: 30)
    static let minimumPasswordLength = 8
    static let email = TextLimit(characters: 254)
    static let maximumPhoneLength = 20

    /// A plausible address: one `@`, something before it, a dot-separated domain after it, no spaces.
    static func isPlausibleEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !email.contains(where: \.isWhitespace) else { return false }
        let domain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return domain.count >= 2 && domain.allSatisfy { !$0.isEmpty }
    }

    static func checkEmail(_ email: String, into problems: inout FormProblems) {
        problems.check(email, fits: Self.email, .email, tooLongKey: "error_email_long")
        if !isPlausibleEmail(email) { problems.add(.email, "error_email_invalid") }
    }

    static func checkNickname(_ nickname: String, into problems: inout FormProblems) {
        if nickname.isEmpty { problems.add(.nickname, "error_nickname_length") }
        problems.check(nickname, fits: Self.nickname, .nickname, tooLongKey: "error_nickname_length")
    }

    /// Digits, spaces, `+`, `-` and parentheses; empty means no phone.
    static func checkPhone(_ phone: String, into problems: inout FormProblems) {
        let allowed = CharacterSet(charactersIn: "0123456789+-() ")
        if phone.count > maximumPhoneLength || !phone.unicodeScalars.allSatisfy(allowed.contains) {
            problems.add(.phone, "error_phone_invalid")
        }
    }

    /// A new password and its confirmation.
    static func checkNewPassword(_ password: String, confirmation: String, into problems: inout FormProblems) {
        if password.count < minimumPasswordLength {
            problems.add(.password, "error_password_short")
        } else if password.utf8.count > PasswordHasher.maximumBytes {
            problems.add(.password, "error_password_long")
        }
        if password != confirmation { problems.add(.passwordConfirm, "error_password_mismatch") }
    }
}
