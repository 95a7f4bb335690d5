import Views

/// A form field wsx validates; the raw value is the field's name in the form.
enum FormField: String, Sendable, CaseIterable {
    case email, nickname, phone, password
    case passwordConfirm = "password_confirm"
    case currentPassword = "current_password"
    case name, description, content
    case statusEmoji = "status_emoji"
    case statusText = "status_text"
    /// The people a conversation is started with.
    case member
    /// A two-step sign-in code.
    case code
}

/// Why a form was refused: for each field, the key of the message shown beside it
/// (`error_email_taken`). Controllers render these in the reader's language with status 422.
struct FormProblems: Error, Sendable, Equatable {
    var messages: [FormField: String] = [:]

    init(_ messages: [FormField: String] = [:]) {
        self.messages = messages
    }

    var isEmpty: Bool { messages.isEmpty }

    /// Records `key` for `field` unless the field already has a message (the first problem wins).
    mutating func add(_ field: FormField, _ key: String) {
        if messages[field] == nil { messages[field] = key }
    }

    /// Records a problem for `field` when `text` does not fit `limit`: `tooLongKey` for too many
    /// characters or bytes, `error_text_marks` for a character of stacked marks.
    mutating func check(_ text: String, fits limit: TextLimit, _ field: FormField, tooLongKey: String) {
        switch limit.check(text) {
        case .fits: break
        case .tooLong: add(field, tooLongKey)
        case .tooManyMarks: add(field, "error_text_marks")
        }
    }

    /// Throws self when any field has a message.
    func throwIfAny() throws {
        if !isEmpty { throw self }
    }
}
