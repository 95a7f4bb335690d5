import Foundation
import Hummingbird
import Uploads

/// A `/v1` request's body with the files it carries: a multipart form (fields and files, the
/// files streamed to disk under the web's limits), or JSON or a plain form (fields only).
struct APIForm: Sendable {
    let fields: APIFields
    /// What a multipart body carried; its files are temporary until prepared.
    let received: ReceivedForm

    /// Reads `request`'s body; files are taken from the parts named in `fileFields`.
    static func read(_ request: Request, files: FileService, uploader: Int64, fileFields: Set<String>) async throws -> APIForm {
        guard FileService.isMultipart(request) else {
            return APIForm(fields: try await APIFields.read(request), received: ReceivedForm())
        }
        let form = try await files.receiveFromApp(request, uploader: uploader, fileFields: fileFields)
        var values: [String: String] = [:]
        for field in form.fields where values[field.name] == nil { values[field.name] = field.value }
        return APIForm(fields: APIFields(values), received: form)
    }

    /// The one picture of the form (`image`), made ready to store; nil without one. More than
    /// one, or a file that is no picture, is `E11`.
    func picture(_ files: FileService) async throws -> PreparedFile? {
        guard let image = received.files.first else { return nil }
        guard received.files.count == 1, image.kind == .image else {
            received.discardTemporaries()
            throw APIError.badRequest
        }
        return try await files.prepare(received).first
    }

    /// Every file of the form, made ready to store.
    func attachments(_ files: FileService) async throws -> [PreparedFile] {
        received.files.isEmpty ? [] : try await files.prepare(received)
    }

    /// Deletes what was received (the request was refused).
    func discard() {
        received.discardTemporaries()
    }
}
