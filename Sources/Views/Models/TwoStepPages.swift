/// The second step of signing in: the code from the app (or a recovery code).
public struct TwoStepLoginPage: Sendable {
    public var action: String
    public var error: String?
    public var remember: Bool

    public init(action: String, error: String? = nil, remember: Bool = false) {
        self.action = action
        self.error = error
        self.remember = remember
    }
}

/// `/profile/2fa`: two-step sign-in, off (a button to begin), being set up (the QR code, the
/// secret as text, a field for the first code), on (recovery codes left, renew, turn off), or
/// just turned on or renewed (the recovery codes, shown this once).
public struct TwoStepPage: Sendable {
    public var isOn: Bool
    /// Setting up: the QR code we drew (`<svg>` of our own), the secret in groups of four.
    public var qrSvgHtml: String? { didSet { isSettingUp = qrSvgHtml != nil } }
    public var secretText: String?
    public private(set) var isSettingUp = false
    /// Recovery codes to write down now (after turning on or renewing).
    public var recoveryCodes: [String] = [] { didSet { hasRecoveryCodes = !recoveryCodes.isEmpty } }
    public private(set) var hasRecoveryCodes = false
    public var codesLeftText: String = ""
    /// The server asks this person to turn it on before going on (`--require-2fa`).
    public var isRequired = false
    public var errors: FieldErrors
    public var startURL: String
    public var enableURL: String
    public var disableURL: String
    public var recoveryURL: String

    public init(isOn: Bool, errors: FieldErrors = FieldErrors(), startURL: String, enableURL: String, disableURL: String,
                recoveryURL: String) {
        self.isOn = isOn
        self.errors = errors
        self.startURL = startURL
        self.enableURL = enableURL
        self.disableURL = disableURL
        self.recoveryURL = recoveryURL
    }
}
