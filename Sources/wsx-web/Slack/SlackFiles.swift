import Foundation
import SlackFormat
import Uploads
import Views

/// The files shared in an export's messages, brought over the way uploads are: the bytes
/// typed by libmagic (never by the export's `mimetype` or the name), refused unless an
/// allowed type within the size limit, images given their thumbnail. A file the export only
/// links to (a standard export holds links, not files: nothing is ever fetched from them), one
/// deleted in Slack, or one refused becomes a line in its message that names it and says why.
struct SlackFiles {
    let files: FileService
    let archive: SlackArchiveReader
    /// The language of those lines.
    let strings: Strings

    /// What became of one file.
    enum Outcome {
        case kept(PreparedFile)
        case placeholder(String)
    }

    func bring(_ file: SlackFile) async -> Outcome {
        let name = FileName.clean(file.shownName)
        if file.mode == "tombstone" || file.mode == "hidden_by_limit" {
            return .placeholder(strings.format("slack_file_deleted", name))
        }
        let policy = files.policy
        let data: Data?
        do {
            data = try archive.upload(fileId: file.id)
        } catch {
            return .placeholder(strings.format("slack_file_too_large", name, FileService.megabytes(policy.maximumFileBytes)))
        }
        guard let data else { return .placeholder(missing(file)) }
        do {
            let received = try files.receiver.receive(bytes: Array(data), name: name, field: "files", kind: nil)
            return .kept(try await files.prepare(ReceivedForm(files: [received]))[0])
        } catch UploadError.fileTooLarge {
            return .placeholder(strings.format("slack_file_too_large", name, FileService.megabytes(policy.maximumFileBytes)))
        } catch {
            // Not a type wsx keeps, or an image that does not decode within the limits.
            return .placeholder(strings.format("slack_file_type", name, UploadPolicy.allowedDescription))
        }
    }

    /// The line for a file the export does not hold.
    func missing(_ file: SlackFile) -> String {
        strings.format("slack_file_missing", FileName.clean(file.shownName))
    }

    /// The line for a file past the number a message may carry.
    func tooMany(_ file: SlackFile) -> String {
        strings.format("slack_file_too_many", FileName.clean(file.shownName))
    }
}
