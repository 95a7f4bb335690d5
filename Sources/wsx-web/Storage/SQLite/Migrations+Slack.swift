import GRDB

extension AppDatabase {
    /// Migrations from 025 on: workspaces brought from Slack and taken back to it.
    static func registerSlackMigrations(_ migrator: inout DatabaseMigrator) {
        // 025: which Slack id each person, conversation, message and file of a workspace has
        // (`SlackIds`), so importing an export again adds only what is new, and an export
        // writes the ids an earlier import read (or ones it made up and kept). A message is
        // known by its conversation's id and its `ts` ("C01/1709542800.000100"). Rows outlive
        // what they name (ids are never given out twice), so a message deleted here is not
        // brought back by the next import.
        migrator.registerMigration("025-slack-ids") { db in
            try db.execute(sql: """
                CREATE TABLE slack_ids (
                    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('user', 'room', 'message', 'file')),
                    slack_id TEXT NOT NULL,
                    local_id INTEGER NOT NULL,
                    PRIMARY KEY (workspace_id, kind, slack_id)
                ) WITHOUT ROWID;
                CREATE INDEX slack_ids_by_local ON slack_ids(workspace_id, kind, local_id);
                """)
        }
        registerOutsideMigrations(&migrator)
    }
}
