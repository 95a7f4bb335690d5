import Foundation
import GRDB

extension StoredFile: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "files"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension StoredFile.CodingKeys: ColumnExpression {}

/// `StoredFileStore` on SQLite.
struct SQLiteFileStore: StoredFileStore {
    let db: Database

    func insert(_ files: [PreparedFile], uploader: Int64, at now: Date) throws -> [StoredFile] {
        try files.map { try $0.record(uploader: uploader, at: now).inserted(db) }
    }

    func files(ids: [Int64]) throws -> [Int64: StoredFile] {
        guard !ids.isEmpty else { return [:] }
        let files = try StoredFile.fetchAll(db, sql: "SELECT * FROM files WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
                                            arguments: StatementArguments(ids))
        return Dictionary(files.map { ($0.id!, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func attachments(messageIds: [Int64]) throws -> [Int64: [StoredFile]] {
        guard !messageIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT message_files.message_id, files.* FROM message_files JOIN files ON files.id = message_files.file_id
            WHERE message_files.message_id IN (\(databaseQuestionMarks(count: messageIds.count)))
            ORDER BY message_files.message_id, message_files.position
            """), arguments: StatementArguments(messageIds))
        var result: [Int64: [StoredFile]] = [:]
        for row in rows { result[row["message_id"], default: []].append(try StoredFile(row: row)) }
        return result
    }

    func downloadable(fileId: Int64, userId: Int64) throws -> StoredFile? {
        guard let file = try StoredFile.fetchOne(db, key: fileId) else { return nil }
        if file.uploaderId == userId { return file }
        let allowed = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (
                SELECT 1 FROM message_files JOIN messages ON messages.id = message_files.message_id
                JOIN room_members ON room_members.room_id = messages.room_id
                WHERE message_files.file_id = ?1 AND room_members.user_id = ?2)
            OR EXISTS (
                SELECT 1 FROM link_previews JOIN messages ON messages.id = link_previews.message_id
                JOIN room_members ON room_members.room_id = messages.room_id
                WHERE link_previews.image_file_id = ?1 AND room_members.user_id = ?2)
            OR EXISTS (
                SELECT 1 FROM workspaces JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
                WHERE workspaces.cover_file_id = ?1 AND workspace_members.user_id = ?2)
            OR EXISTS (
                SELECT 1 FROM rooms JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
                WHERE rooms.cover_file_id = ?1 AND rooms.kind = 'channel' AND workspace_members.user_id = ?2
                  AND (rooms.visibility = 'public'
                       OR EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id AND room_members.user_id = ?2)))
            OR EXISTS (
                SELECT 1 FROM users JOIN workspace_members AS theirs ON theirs.user_id = users.id
                JOIN workspace_members AS mine ON mine.workspace_id = theirs.workspace_id
                WHERE users.avatar_file_id = ?1 AND mine.user_id = ?2)
            """, arguments: [fileId, userId]) ?? false
        return allowed ? file : nil
    }

    func hashes(in scope: FileService.Scope) throws -> Set<String> {
        let sql: String
        let id: Int64
        switch scope {
        case .message(let message):
            (sql, id) = ("""
                SELECT files.sha256 FROM message_files JOIN files ON files.id = file_id WHERE message_id = ?1
                UNION SELECT files.sha256 FROM link_previews JOIN files ON files.id = image_file_id WHERE message_id = ?1
                """, message)
        case .room(let room):
            (sql, id) = ("""
                SELECT files.sha256 FROM message_files JOIN files ON files.id = file_id
                JOIN messages ON messages.id = message_id WHERE messages.room_id = ?1
                UNION SELECT files.sha256 FROM link_previews JOIN files ON files.id = image_file_id
                JOIN messages ON messages.id = link_previews.message_id WHERE messages.room_id = ?1
                UNION SELECT files.sha256 FROM rooms JOIN files ON files.id = rooms.cover_file_id WHERE rooms.id = ?1
                """, room)
        case .workspace(let workspace):
            (sql, id) = ("""
                SELECT files.sha256 FROM message_files JOIN files ON files.id = file_id
                JOIN messages ON messages.id = message_id JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = ?1
                UNION SELECT files.sha256 FROM link_previews JOIN files ON files.id = image_file_id
                JOIN messages ON messages.id = link_previews.message_id JOIN rooms ON rooms.id = messages.room_id
                WHERE rooms.workspace_id = ?1
                UNION SELECT files.sha256 FROM rooms JOIN files ON files.id = rooms.cover_file_id WHERE rooms.workspace_id = ?1
                UNION SELECT files.sha256 FROM workspaces JOIN files ON files.id = workspaces.cover_file_id WHERE workspaces.id = ?1
                """, workspace)
        }
        return Set(try String.fetchAll(db, sql: sql, arguments: [id]))
    }

    func deleteUnreferenced() throws -> Set<String> {
        try db.execute(sql: """
            DELETE FROM files WHERE id NOT IN (SELECT file_id FROM message_files)
              AND id NOT IN (SELECT image_file_id FROM link_previews WHERE image_file_id IS NOT NULL)
              AND id NOT IN (SELECT avatar_file_id FROM users WHERE avatar_file_id IS NOT NULL)
              AND id NOT IN (SELECT cover_file_id FROM workspaces WHERE cover_file_id IS NOT NULL)
              AND id NOT IN (SELECT cover_file_id FROM rooms WHERE cover_file_id IS NOT NULL)
            """)
        return Set(try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM files"))
    }
}

extension FileService {
    /// Stores the rows of prepared files inside the caller's transaction (code still holding a
    /// connection; stores use `tx.files`).
    static func insert(_ db: Database, _ files: [PreparedFile], uploader: Int64, at now: Date) throws -> [StoredFile] {
        try SQLiteFileStore(db: db).insert(files, uploader: uploader, at: now)
    }

    /// The files of each message (code still holding a connection; stores use `tx.files`).
    static func attachments(_ db: Database, messageIds: [Int64]) throws -> [Int64: [StoredFile]] {
        try SQLiteFileStore(db: db).attachments(messageIds: messageIds)
    }
}
