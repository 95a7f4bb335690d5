import Foundation
import PostgresNIO

/// `StoredFileStore` on PostgreSQL: the rows of `files` (their bytes are on disk, `FileStore`).
struct PostgresFileStore: StoredFileStore {
    let session: PostgresSession

    private static let columns = "files.id, files.sha256, files.mime, files.size, files.original_name, files.width, files.height, files.has_thumbnail, files.uploader_id, files.created_at"

    func insert(_ files: [PreparedFile], uploader: Int64, at now: Date) throws -> [StoredFile] {
        try files.map { prepared in
            var file = prepared.record(uploader: uploader, at: now)
            file.id = try session.run("""
                INSERT INTO files (sha256, mime, size, original_name, width, height, has_thumbnail, uploader_id, created_at)
                VALUES (\(file.sha256), \(file.mime), \(file.size), \(file.originalName), \(file.width), \(file.height),
                        \(file.hasThumbnail), \(file.uploaderId), \(file.createdAt))
                RETURNING id
                """)[0].decode(Int64.self)
            return file
        }
    }

    func files(ids: [Int64]) throws -> [Int64: StoredFile] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: StoredFile] = [:]
        for row in try session.run("SELECT \(unescaped: Self.columns) FROM files WHERE files.id = ANY(\(ids))") {
            let cells = try row.decode((Int64, String, String, Int, String, Int?, Int?, Bool, Int64?, Date).self)
            result[cells.0] = StoredFile(id: cells.0, sha256: cells.1, mime: cells.2, size: cells.3, originalName: cells.4,
                                         width: cells.5, height: cells.6, hasThumbnail: cells.7, uploaderId: cells.8, createdAt: cells.9)
        }
        return result
    }

    func attachments(messageIds: [Int64]) throws -> [Int64: [StoredFile]] {
        guard !messageIds.isEmpty else { return [:] }
        var result: [Int64: [StoredFile]] = [:]
        for row in try session.run("""
            SELECT message_files.message_id, \(unescaped: Self.columns) FROM message_files JOIN files ON files.id = message_files.file_id
            WHERE message_files.message_id = ANY(\(messageIds))
            ORDER BY message_files.message_id, message_files.position
            """) {
            let cells = try row.decode((Int64, Int64, String, String, Int, String, Int?, Int?, Bool, Int64?, Date).self)
            result[cells.0, default: []].append(StoredFile(id: cells.1, sha256: cells.2, mime: cells.3, size: cells.4,
                                                           originalName: cells.5, width: cells.6, height: cells.7,
                                                           hasThumbnail: cells.8, uploaderId: cells.9, createdAt: cells.10))
        }
        return result
    }

    func downloadable(fileId: Int64, userId: Int64) throws -> StoredFile? {
        guard let row = try session.run("SELECT \(unescaped: Self.columns) FROM files WHERE id = \(fileId)").first else { return nil }
        let file = try Self.file(row)
        if file.uploaderId == userId { return file }
        let allowed = try session.run(numbered: """
            SELECT EXISTS (
                SELECT 1 FROM message_files JOIN messages ON messages.id = message_files.message_id
                JOIN room_members ON room_members.room_id = messages.room_id
                WHERE message_files.file_id = $1 AND room_members.user_id = $2)
            OR EXISTS (
                SELECT 1 FROM link_previews JOIN messages ON messages.id = link_previews.message_id
                JOIN room_members ON room_members.room_id = messages.room_id
                WHERE link_previews.image_file_id = $1 AND room_members.user_id = $2)
            OR EXISTS (
                SELECT 1 FROM workspaces JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
                WHERE workspaces.cover_file_id = $1 AND workspace_members.user_id = $2)
            OR EXISTS (
                SELECT 1 FROM rooms JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
                WHERE rooms.cover_file_id = $1 AND rooms.kind = 'channel' AND workspace_members.user_id = $2
                  AND (rooms.visibility = 'public'
                       OR EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id AND room_members.user_id = $2)))
            OR EXISTS (
                SELECT 1 FROM users JOIN workspace_members AS theirs ON theirs.user_id = users.id
                JOIN workspace_members AS mine ON mine.workspace_id = theirs.workspace_id
                WHERE users.avatar_file_id = $1 AND mine.user_id = $2)
            """, binding: fileId, userId)[0].decode(Bool.self)
        return allowed ? file : nil
    }

    func hashes(in scope: FileService.Scope) throws -> Set<String> {
        let sql: String
        let id: Int64
        switch scope {
        case .message(let message):
            (sql, id) = ("""
                SELECT files.sha256 FROM message_files JOIN files ON files.id = file_id WHERE message_id = $1
                UNION SELECT files.sha256 FROM link_previews JOIN files ON files.id = image_file_id WHERE message_id = $1
                """, message)
        case .room(let room):
            (sql, id) = ("""
                SELECT files.sha256 FROM message_files JOIN files ON files.id = file_id
                JOIN messages ON messages.id = message_id WHERE messages.room_id = $1
                UNION SELECT files.sha256 FROM link_previews JOIN files ON files.id = image_file_id
                JOIN messages ON messages.id = link_previews.message_id WHERE messages.room_id = $1
                UNION SELECT files.sha256 FROM rooms JOIN files ON files.id = rooms.cover_file_id WHERE rooms.id = $1
                """, room)
        case .workspace(let workspace):
            (sql, id) = ("""
                SELECT files.sha256 FROM message_files JOIN files ON files.id = file_id
                JOIN messages ON messages.id = message_id JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = $1
                UNION SELECT files.sha256 FROM link_previews JOIN files ON files.id = image_file_id
                JOIN messages ON messages.id = link_previews.message_id JOIN rooms ON rooms.id = messages.room_id
                WHERE rooms.workspace_id = $1
                UNION SELECT files.sha256 FROM rooms JOIN files ON files.id = rooms.cover_file_id WHERE rooms.workspace_id = $1
                UNION SELECT files.sha256 FROM workspaces JOIN files ON files.id = workspaces.cover_file_id WHERE workspaces.id = $1
                """, workspace)
        }
        return Set(try session.run(numbered: sql, binding: id).map { try $0.decode(String.self) })
    }

    func deleteUnreferenced() throws -> Set<String> {
        try session.run("""
            DELETE FROM files WHERE id NOT IN (SELECT file_id FROM message_files)
              AND id NOT IN (SELECT image_file_id FROM link_previews WHERE image_file_id IS NOT NULL)
              AND id NOT IN (SELECT avatar_file_id FROM users WHERE avatar_file_id IS NOT NULL)
              AND id NOT IN (SELECT cover_file_id FROM workspaces WHERE cover_file_id IS NOT NULL)
              AND id NOT IN (SELECT cover_file_id FROM rooms WHERE cover_file_id IS NOT NULL)
            """)
        return Set(try session.run("SELECT DISTINCT sha256 FROM files").map { try $0.decode(String.self) })
    }

    /// `rows` with their files.
    func withAttachments(_ rows: [MessageRow]) throws -> [MessageRow] {
        let files = try attachments(messageIds: rows.map(\.id))
        return rows.map { row in
            var row = row
            row.attachments = files[row.id] ?? []
            return row
        }
    }

    private static func file(_ row: PostgresRow) throws -> StoredFile {
        let cells = try row.decode((Int64, String, String, Int, String, Int?, Int?, Bool, Int64?, Date).self)
        return StoredFile(id: cells.0, sha256: cells.1, mime: cells.2, size: cells.3, originalName: cells.4, width: cells.5,
                          height: cells.6, hasThumbnail: cells.7, uploaderId: cells.8, createdAt: cells.9)
    }
}
