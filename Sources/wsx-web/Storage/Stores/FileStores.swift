import Foundation

/// The rows of uploaded files (`StoredFile`); their bytes are on disk (`FileStore`).
protocol StoredFileStore {
    /// Stores the rows of prepared files; answers them with their ids.
    func insert(_ files: [PreparedFile], uploader: Int64, at now: Date) throws -> [StoredFile]
    /// The files with these ids (those that exist).
    func files(ids: [Int64]) throws -> [Int64: StoredFile]
    /// The files of each message, in the order they were attached.
    func attachments(messageIds: [Int64]) throws -> [Int64: [StoredFile]]
    /// The file, if `userId` may download it: they uploaded it, or it is in a message of a room
    /// they are in, or it pictures a workspace, room or person of a workspace they share.
    func downloadable(fileId: Int64, userId: Int64) throws -> StoredFile?
    /// The hashes of the files in `scope` (messages' files, link preview images and covers).
    func hashes(in scope: FileService.Scope) throws -> Set<String>
    /// Deletes the rows nothing refers to; answers the hashes the remaining rows have.
    func deleteUnreferenced() throws -> Set<String>
}
