import Hummingbird
import Uploads

/// What a composer posted, to a room or to a thread: the text, and the files of a multipart
/// form (streamed to disk), with the composer's own fields.
struct MessageSubmission: Sendable {
    let content: String
    let upload: ReceivedForm?
    /// The id the posting script gave the message (`client_id`), so a retry is not a second post.
    let clientId: String?
    /// The author confirmed a mention of everyone in a large room (`confirm_mentions=yes`).
    var confirmsMentions = false
    /// A reply that also goes to the room's timeline (`also_channel=1`).
    var alsoInRoom = false

    var hasFiles: Bool { !(upload?.files.isEmpty ?? true) }

    /// Reads the request's form: plain, or multipart with up to the upload policy's files in
    /// `files` (anything wrong with them throws, and nothing stays on disk).
    static func read(_ request: Request, _ context: SignedInContext, files: FileService) async throws -> MessageSubmission {
        guard FileService.isMultipart(request) else {
            return try MessageSubmission(fields: { context.form[$0] }, upload: nil)
        }
        let form = try await files.receive(request, visitor: context.visitor, fileFields: ["files"])
        do {
            return try MessageSubmission(fields: { form[$0] }, upload: form)
        } catch {
            form.discardTemporaries()
            throw error
        }
    }

    private init(fields: (String) -> String?, upload: ReceivedForm?) throws {
        content = fields("content") ?? ""
        self.upload = upload
        clientId = try Self.clientId(fields("client_id"))
        confirmsMentions = fields("confirm_mentions") == "yes"
        alsoInRoom = ["1", "on", "yes"].contains(fields("also_channel") ?? "")
    }

    /// A client id: 8 to 64 letters, digits, `-` or `_` (a UUID fits); none when the field is absent.
    static func clientId(_ value: String?) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard (8...64).contains(value.utf8.count),
              value.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                  || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw AppError.status(400, "error_client_id")
        }
        return value
    }
}
