import GRDB

extension AppDatabase {
    /// Every schema change, append-only and named by number. Never edit a migration that has
    /// shipped: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        // 001: accounts and the sessions that sign them in, and one-time password reset links.
        migrator.registerMigration("001-accounts") { db in
            try db.execute(sql: """
                CREATE TABLE users (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    email TEXT NOT NULL,
                    -- the email lowercased: makes uniqueness case-insensitive for any script
                    email_key TEXT NOT NULL UNIQUE,
                    nickname TEXT NOT NULL,
                    phone TEXT,
                    password_hash TEXT NOT NULL,
                    -- the UI language the user chose (ko, en), NULL until they choose
                    lang TEXT,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE sessions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    -- SHA-256 of the cookie's token: a stolen database does not sign anyone in
                    token_hash TEXT NOT NULL UNIQUE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    csrf_token TEXT NOT NULL,
                    user_agent TEXT,
                    created_at DATETIME NOT NULL,
                    refreshed_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL
                );
                CREATE INDEX sessions_by_user ON sessions(user_id);
                CREATE TABLE password_resets (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    token_hash TEXT NOT NULL UNIQUE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL,
                    used_at DATETIME
                );
                """)
        }
        // 002: the real-time outbox. Every change another tab must see writes an event here in
        // the same transaction as the change; event ids are the SSE ids. Audience: one room or
        // one user. `event_retention` remembers how far old events were pruned, so a client
        // asking to resume from before that point is told to reload instead of missing events.
        migrator.registerMigration("002-events") { db in
            try db.execute(sql: """
                CREATE TABLE events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    type TEXT NOT NULL,
                    room_id INTEGER,
                    user_id INTEGER,
                    payload TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    CHECK ((room_id IS NULL) <> (user_id IS NULL))
                );
                CREATE INDEX events_by_user ON events(user_id, id) WHERE user_id IS NOT NULL;
                CREATE INDEX events_by_room ON events(room_id, id) WHERE room_id IS NOT NULL;
                CREATE INDEX events_by_time ON events(created_at);
                CREATE TABLE event_retention (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    pruned_through INTEGER NOT NULL
                );
                INSERT INTO event_retention (id, pruned_through) VALUES (1, 0);
                """)
        }
        // 003: workspaces, their members, rooms (channels and DMs in one table, so messages,
        // unread counts and real-time treat both alike), invitations, the audit log, and coins.
        migrator.registerMigration("003-workspaces") { db in
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN coin_balance INTEGER NOT NULL DEFAULT 0 CHECK (coin_balance >= 0);
                CREATE TABLE coin_ledger (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    delta INTEGER NOT NULL,
                    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
                    -- signup, workspace_created, purchase, grant, ...
                    reason TEXT NOT NULL,
                    reference TEXT,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX coin_ledger_by_user ON coin_ledger(user_id, id);
                CREATE TABLE workspaces (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    name_key TEXT NOT NULL,
                    description TEXT NOT NULL DEFAULT '',
                    owner_id INTEGER NOT NULL REFERENCES users(id),
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE UNIQUE INDEX workspaces_name_per_owner ON workspaces(owner_id, name_key);
                CREATE TABLE workspace_members (
                    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
                    joined_at DATETIME NOT NULL,
                    PRIMARY KEY (workspace_id, user_id)
                );
                CREATE INDEX workspace_members_by_user ON workspace_members(user_id);
                CREATE TABLE rooms (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('channel', 'dm')),
                    name TEXT NOT NULL DEFAULT '',
                    name_key TEXT NOT NULL DEFAULT '',
                    description TEXT NOT NULL DEFAULT '',
                    owner_id INTEGER REFERENCES users(id),
                    is_default INTEGER NOT NULL DEFAULT 0,
                    -- for DMs, "smallerUserId:largerUserId": one room per pair
                    dm_key TEXT,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE UNIQUE INDEX rooms_channel_name ON rooms(workspace_id, name_key) WHERE kind = 'channel';
                CREATE UNIQUE INDEX rooms_dm_pair ON rooms(workspace_id, dm_key) WHERE kind = 'dm';
                CREATE UNIQUE INDEX rooms_one_default ON rooms(workspace_id) WHERE is_default = 1;
                CREATE TABLE room_members (
                    room_id INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    joined_at DATETIME NOT NULL,
                    last_read_message_id INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (room_id, user_id)
                );
                CREATE INDEX room_members_by_user ON room_members(user_id);
                CREATE TABLE invites (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                    email TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    invited_by INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL,
                    used_at DATETIME
                );
                CREATE TABLE audit_log (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                    actor_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    action TEXT NOT NULL,
                    target_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    target_room_id INTEGER,
                    -- names at the time, so the log reads right after renames and deletions
                    detail TEXT NOT NULL DEFAULT '',
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX audit_log_by_workspace ON audit_log(workspace_id, id);
                """)
        }
        // 004: messages of channels and DMs. `id` is the paging cursor both ways and the unread
        // arithmetic's unit; `body_html` is the escaped, linked, mention-marked rendering, made once
        // at write time so pages and events never format text on the hot path.
        migrator.registerMigration("004-messages") { db in
            try db.execute(sql: """
                CREATE TABLE messages (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    room_id INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                    author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    body TEXT NOT NULL,
                    body_html TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    edited_at DATETIME
                );
                CREATE INDEX messages_by_room ON messages(room_id, id);
                CREATE INDEX messages_by_author ON messages(author_id);
                """)
        }
        // 005: uploaded files. A row per upload (its original name, sniffed type, size, image
        // size); the bytes live on disk under their SHA-256, stored once however often they are
        // uploaded. Messages hold up to five; people, workspaces and channels hold a picture.
        migrator.registerMigration("005-files") { db in
            try db.execute(sql: """
                CREATE TABLE files (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    sha256 TEXT NOT NULL,
                    mime TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    original_name TEXT NOT NULL,
                    width INTEGER,
                    height INTEGER,
                    has_thumbnail INTEGER NOT NULL DEFAULT 0,
                    uploader_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX files_by_hash ON files(sha256);
                CREATE TABLE message_files (
                    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                    file_id INTEGER NOT NULL REFERENCES files(id),
                    position INTEGER NOT NULL,
                    PRIMARY KEY (message_id, file_id)
                );
                CREATE INDEX message_files_by_file ON message_files(file_id);
                ALTER TABLE users ADD COLUMN avatar_file_id INTEGER REFERENCES files(id) ON DELETE SET NULL;
                ALTER TABLE workspaces ADD COLUMN cover_file_id INTEGER REFERENCES files(id) ON DELETE SET NULL;
                ALTER TABLE rooms ADD COLUMN cover_file_id INTEGER REFERENCES files(id) ON DELETE SET NULL;
                """)
        }
        // 006: coin purchases. Our own unique merchant id per checkout; the gateway's payment id is
        // unique too, so one gateway payment can never be credited twice, whatever arrives twice.
        // `sandbox_payments` is the built-in test gateway's own side of the story.
        migrator.registerMigration("006-payments") { db in
            try db.execute(sql: """
                CREATE TABLE payments (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    merchant_uid TEXT NOT NULL UNIQUE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    item TEXT NOT NULL,
                    coins INTEGER NOT NULL CHECK (coins > 0),
                    amount INTEGER NOT NULL CHECK (amount > 0),
                    currency TEXT NOT NULL,
                    gateway TEXT NOT NULL,
                    gateway_payment_id TEXT UNIQUE,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'failed')),
                    failure_reason TEXT,
                    credited_at DATETIME,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE INDEX payments_by_user ON payments(user_id, id);
                CREATE TABLE sandbox_payments (
                    imp_uid TEXT PRIMARY KEY,
                    merchant_uid TEXT NOT NULL,
                    amount INTEGER NOT NULL,
                    currency TEXT NOT NULL,
                    status TEXT NOT NULL,
                    created_at DATETIME NOT NULL
                );
                """)
        }
        // 007: the search index of messages (Korean by unigrams and bigrams, words by prefix),
        // filled from the messages already there.
        migrator.registerMigration("007-search") { db in
            try SearchIndex.create(db)
        }
        // 008: unread counts read only the index. Counting a room's unread messages filters on
        // the author; with the author in the index, no table row is touched (measured on 20,000
        // messages in 10 rooms: 9.5 ms -> 0.9 ms for a sidebar's counts). Replaces messages_by_room.
        migrator.registerMigration("008-unread-index") { db in
            try db.execute(sql: """
                CREATE INDEX messages_by_room_author ON messages(room_id, id, author_id);
                DROP INDEX messages_by_room;
                """)
        }
        // 009: unread counts kept, not counted. Counting on every page cost one index entry per
        // unread message (a sidebar of 9 busy rooms with 2,000 unread each took 44% of the
        // channel page's time). Triggers keep `unread_count` exact on every path that changes
        // it: a message posted or deleted, a marker moved, a member added, an author removed.
        migrator.registerMigration("009-unread-counters") { db in
            let recount = """
                (SELECT COUNT(*) FROM messages WHERE messages.room_id = room_members.room_id
                   AND messages.id > room_members.last_read_message_id
                   AND (messages.author_id IS NULL OR messages.author_id <> room_members.user_id))
                """
            try db.execute(sql: """
                ALTER TABLE room_members ADD COLUMN unread_count INTEGER NOT NULL DEFAULT 0;
                UPDATE room_members SET unread_count = \(recount);
                CREATE TRIGGER messages_count_unread AFTER INSERT ON messages BEGIN
                    UPDATE room_members SET unread_count = unread_count + 1
                    WHERE room_id = NEW.room_id AND last_read_message_id < NEW.id
                      AND (NEW.author_id IS NULL OR user_id <> NEW.author_id);
                END;
                CREATE TRIGGER messages_uncount_unread AFTER DELETE ON messages BEGIN
                    UPDATE room_members SET unread_count = unread_count - 1
                    WHERE room_id = OLD.room_id AND last_read_message_id < OLD.id
                      AND (OLD.author_id IS NULL OR user_id <> OLD.author_id);
                END;
                CREATE TRIGGER messages_recount_unread AFTER UPDATE OF room_id, author_id ON messages BEGIN
                    UPDATE room_members SET unread_count = \(recount) WHERE room_id IN (OLD.room_id, NEW.room_id);
                END;
                CREATE TRIGGER room_members_recount_on_read AFTER UPDATE OF last_read_message_id ON room_members BEGIN
                    UPDATE room_members SET unread_count = \(recount) WHERE room_id = NEW.room_id AND user_id = NEW.user_id;
                END;
                CREATE TRIGGER room_members_count_on_join AFTER INSERT ON room_members BEGIN
                    UPDATE room_members SET unread_count = \(recount) WHERE room_id = NEW.room_id AND user_id = NEW.user_id;
                END;
                """)
        }
        registerLaterMigrations(&migrator)
        registerConversationMigrations(&migrator)
        return migrator
    }
}
