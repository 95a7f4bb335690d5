import Foundation
import SlackFormat
@testable import wsx_web

/// The Slack export of `Tests/Fixtures/slack-export` (see its README), zipped for a test, and
/// importers bound to a test app.
enum SlackFixture {
    static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/slack-export")
    }

    /// A new temporary folder, removed by the caller.
    static func workFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-slack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The fixture zipped into `folder`, after `edit` changed a copy of it (a broken export).
    static func zip(into folder: URL, name: String = "export.zip", edit: ((URL) throws -> Void)? = nil) throws -> URL {
        var source = Self.folder
        if let edit {
            source = folder.appendingPathComponent("unpacked-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: Self.folder, to: source)
            try edit(source)
        }
        let zip = folder.appendingPathComponent(name)
        try SlackArchiveWriter.zip(folder: source, to: zip, modified: Date(timeIntervalSince1970: 1_709_700_000))
        return zip
    }

    /// The importer the command builds, on the test app's services.
    static func importer(_ app: TestSession, mail: MailComposer? = nil) -> SlackImport {
        SlackImport(database: app.database, files: app.services.files, catalog: app.services.reactions.catalog,
                    serverKey: app.services.serverKey, mail: mail, clock: app.services.clock, progress: { _ in })
    }

    /// Imports `zip` into the workspace "Acme" owned by mina@example.com.
    @discardableResult
    static func importAcme(_ app: TestSession, _ zip: URL, workspace: String = "Acme") async throws -> SlackImportSummary {
        try await importer(app).run(.init(archive: zip, workspaceName: workspace, ownerEmail: "mina@example.com"))
    }

    /// The exporter the command builds.
    static func exporter(_ app: TestSession) -> SlackExport {
        SlackExport(database: app.database, store: app.services.files.store, catalog: app.services.reactions.catalog,
                    clock: app.services.clock)
    }

    /// What a workspace holds, counted, to compare before and after an import.
    static func counts(_ app: TestSession, workspace: Int64) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (name, sql) in [
            ("rooms", "SELECT COUNT(*) FROM rooms WHERE workspace_id = ?"),
            ("members", "SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ?"),
            ("messages", "SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = room_id WHERE workspace_id = ?"),
            ("replies", "SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = room_id WHERE workspace_id = ? AND thread_root_id IS NOT NULL"),
            ("reactions", "SELECT COUNT(*) FROM reactions JOIN messages ON messages.id = message_id JOIN rooms ON rooms.id = room_id WHERE workspace_id = ?"),
            ("files", "SELECT COUNT(*) FROM message_files JOIN messages ON messages.id = message_id JOIN rooms ON rooms.id = room_id WHERE workspace_id = ?"),
            ("pins", "SELECT COUNT(*) FROM pins JOIN rooms ON rooms.id = pins.room_id WHERE workspace_id = ?"),
            ("placeholders", "SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = room_id WHERE workspace_id = ? AND deleted_at IS NOT NULL"),
            ("edited", "SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = room_id WHERE workspace_id = ? AND edited_at IS NOT NULL"),
            ("room members", "SELECT COUNT(*) FROM room_members JOIN rooms ON rooms.id = room_id WHERE workspace_id = ?"),
        ] {
            counts[name] = try await app.count(sql, [workspace])
        }
        counts["users"] = try await app.count("SELECT COUNT(*) FROM users")
        return counts
    }
}
