/// Every template the server renders. Start-up checks each one exists, so a missing file stops the
/// server with its name instead of failing on the first request.
public enum TemplateName: String, CaseIterable, Sendable {
    case layout
    case sidebar
    case error
    case login
    case signup
    case signupForm = "signup_form"
    case profile
    case user
    case workspaces
    case resetPassword = "reset_password"
    case resetRequest = "reset_request"
    case join
    case workspaceHome = "workspace_home"
    case workspaceSettings = "workspace_settings"
    case confirm
    case members
    case invite
    case channels
    case room
    case message
    case messageActions = "message_actions"
    case reactions
    case messageFlags = "message_flags"
    case reactionsPage = "reactions_page"
    case messageCollection = "message_collection"
    case channelSettings = "channel_settings"
    case audit
    case store
    case storeResult = "store_result"
    case sandboxCheckout = "sandbox_checkout"
    case portoneCheckout = "portone_checkout"
    case search
    case newConversation = "new_conversation"
    case linkPreview = "link_preview"
    case linkPreviewRemoval = "link_preview_removal"
    case threadSummary = "thread_summary"
    case twoStep = "two_step"
    case twoStepLogin = "two_step_login"
    case adminAccounts = "admin_accounts"
    case adminWorkspaces = "admin_workspaces"
    case adminLines = "admin_lines"
    case adminTabs = "admin_tabs"
}
