import Logging
import PostgresNIO

/// The PostgreSQL schema, as numbered steps recorded in `schema_migrations`, and the code that
/// brings a database up to date: under an advisory lock (nodes starting together migrate one at a
/// time), each missing step in one transaction, on a database whose encoding is UTF8 only, and
/// never on a schema newer than this build knows.
enum PostgresSchema {
    /// The steps, oldest first. An identifier, once released, never changes.
    static let steps: [(identifier: String, statements: [String])] = [
        ("001-tables", tables),
        ("002-event-delivery", [
            // What the hubs of other nodes need beside an event: the room membership it changes
            // and the sessions it ends (SQLite's single process keeps both in memory).
            """
            CREATE TABLE event_delivery (
                event_id BIGINT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
                membership TEXT,
                closes_sessions TEXT
            )
            """,
        ]),
        ("003-node-secrets", [
            // The secrets a server makes for itself (SQLite: files in the data folder), shared by
            // every node.
            "CREATE TABLE node_secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL)",
        ]),
        ("004-event-payload-text", [
            // The payload as its writer wrote it: JSONB reordered and respaced it, so a replayed
            // event read differently from the same event delivered live.
            "ALTER TABLE events ALTER COLUMN payload TYPE TEXT USING payload::text",
        ]),
        ("005-node-presence", [
            // Who has a stream open on which node (SQLite's single process keeps it in memory):
            // never in the event log. A node's rows count while it was seen lately.
            "CREATE TABLE nodes (node_id TEXT PRIMARY KEY, seen_at TIMESTAMPTZ NOT NULL)",
            """
            CREATE TABLE node_presence (
                node_id TEXT NOT NULL,
                user_id BIGINT NOT NULL,
                state TEXT NOT NULL,
                PRIMARY KEY (node_id, user_id)
            )
            """,
            "CREATE INDEX node_presence_user ON node_presence (user_id)",
        ]),
        ("006-limiter-attempts", [
            // The sign-in, sign-up, reset and invitation limiters' attempts, counted across nodes
            // (SQLite's single process counts them in memory). `key` is the SHA-256 of the
            // limiter's key; a row not `counted` is an attempt reserved and still under way.
            """
            CREATE TABLE limiter_attempts (
                id BIGSERIAL PRIMARY KEY,
                key BYTEA NOT NULL,
                at TIMESTAMPTZ NOT NULL,
                counted BOOLEAN NOT NULL DEFAULT false
            )
            """,
            "CREATE INDEX limiter_attempts_key ON limiter_attempts (key, at)",
            "CREATE INDEX limiter_attempts_at ON limiter_attempts (at)",
        ]),
        ("007-unread-counts-locked-in-order", [
            // Two posts to one room updated its members' unread counts in whatever order each
            // scan met the rows, and deadlocked under concurrent posting (the bench's 16
            // posters): the rows are now locked in one order (by member) before they change.
            Self.unreadCounter("messages_count_unread", row: "NEW", by: "+ 1"),
            Self.unreadCounter("messages_uncount_unread", row: "OLD", by: "- 1"),
            Self.unreadCounter("messages_uncount_placeholder", row: "NEW", by: "- 1"),
        ]),
        // `/v1`'s opaque ids (SQLite's 033): 24 hexadecimal digits, from PostgreSQL's own random
        // source, given to every row there is and each one inserted.
        ("008-app-api", ["users", "workspaces", "rooms", "messages"].flatMap(Self.publicIds) + [
            """
            CREATE TABLE app_sessions (
                id BIGSERIAL PRIMARY KEY,
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                access_hash TEXT NOT NULL UNIQUE,
                refresh_hash TEXT NOT NULL UNIQUE,
                access_expires_at TIMESTAMPTZ NOT NULL,
                refresh_expires_at TIMESTAMPTZ NOT NULL,
                device_token TEXT,
                client TEXT,
                created_at TIMESTAMPTZ NOT NULL,
                used_at TIMESTAMPTZ NOT NULL
            )
            """,
            "CREATE INDEX app_sessions_by_user ON app_sessions (user_id)",
            "CREATE INDEX app_sessions_by_expiry ON app_sessions (refresh_expires_at)",
        ]),
        ("009-file-public-ids", Self.publicIds("files")),
        ("010-webhooks", [
            // Incoming webhooks (SQLite's 035).
            "ALTER TABLE users ADD COLUMN is_bot BOOLEAN NOT NULL DEFAULT false",
            """
            CREATE TABLE webhooks (
                id BIGSERIAL PRIMARY KEY,
                workspace_id BIGINT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                room_id BIGINT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                token_hash TEXT NOT NULL UNIQUE,
                bot_user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
                created_at TIMESTAMPTZ NOT NULL,
                last_used_at TIMESTAMPTZ
            )
            """,
            "CREATE INDEX webhooks_by_room ON webhooks (room_id)",
            "CREATE INDEX webhooks_by_bot ON webhooks (bot_user_id)",
        ]),
        ("011-social-logins", [
            // Kakao and Apple sign-ins (SQLite's 036).
            """
            CREATE TABLE social_logins (
                provider TEXT NOT NULL,
                subject TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (provider, subject)
            )
            """,
            "CREATE INDEX social_logins_by_user ON social_logins (user_id)",
        ]),
        ("012-app-passwords", [
            // App passwords (SQLite's 037).
            """
            CREATE TABLE app_passwords (
                id BIGSERIAL PRIMARY KEY,
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                password_hash TEXT NOT NULL UNIQUE,
                created_at TIMESTAMPTZ NOT NULL,
                last_used_at TIMESTAMPTZ
            )
            """,
            "CREATE INDEX app_passwords_by_user ON app_passwords (user_id)",
            "ALTER TABLE app_sessions ADD COLUMN app_password_id BIGINT REFERENCES app_passwords(id) ON DELETE CASCADE",
            "CREATE INDEX app_sessions_by_app_password ON app_sessions (app_password_id)",
        ]),
    ]

    /// The statements that give `table` opaque ids.
    private static func publicIds(_ table: String) -> [String] {
        [
            "ALTER TABLE \(table) ADD COLUMN public_id TEXT NOT NULL DEFAULT substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)",
            "CREATE UNIQUE INDEX \(table)_by_public_id ON \(table) (public_id)",
        ]
    }

    /// A trigger function that moves the unread count of every member of the message's room
    /// who had read up to before it (not its author) by `by`, locking their rows in member order.
    private static func unreadCounter(_ name: String, row: String, by change: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM 1 FROM room_members WHERE room_id = \(row).room_id ORDER BY user_id FOR UPDATE;
            UPDATE room_members SET unread_count = unread_count \(change)
            WHERE room_id = \(row).room_id AND last_read_message_id < \(row).id
              AND (\(row).author_id IS NULL OR user_id <> \(row).author_id);
            RETURN NULL;
        END
        $$
        """
    }

    /// What `migrate` refuses, in words an operator can act on.
    struct Refusal: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// The advisory lock every migration holds ("wsxschm" in ASCII).
    static let lockKey: Int64 = 0x77_73_78_73_63_68_6D

    /// Brings the database up to date; returns the identifiers of the steps it applied now.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let encoding = try await connection.query(
            "SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()", logger: logger)
            .collect().first?.decode(String.self) ?? "unknown"
        guard encoding == "UTF8" else {
            throw Refusal(description: "the database's encoding is \(encoding); wsx keeps Korean text and needs UTF8 "
                + "(createdb -E UTF8 -T template0 …)")
        }
        _ = try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger).collect()
        do {
            let applied = try await applySteps(connection, logger: logger)
            _ = try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger).collect()
            return applied
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger).collect()
            throw error
        }
    }

    /// The identifiers recorded as applied, oldest first (empty on a new database).
    static func applied(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let exists = try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)
            .collect().first?.decode(Bool.self) ?? false
        guard exists else { return [] }
        return try await connection.query("SELECT identifier FROM schema_migrations ORDER BY identifier", logger: logger)
            .collect().map { try $0.decode(String.self) }
    }

    private static func applySteps(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                identifier TEXT PRIMARY KEY,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """, on: connection, logger: logger)
        let done = Set(try await applied(connection, logger: logger))
        let known = Set(steps.map(\.identifier))
        if let newer = done.subtracting(known).sorted().last {
            throw Refusal(description: "the database's schema is newer than this wsx knows (step \(newer)); "
                + "run the wsx version that migrated it, or a newer one")
        }
        var appliedNow: [String] = []
        for step in steps where !done.contains(step.identifier) {
            try await execute("BEGIN", on: connection, logger: logger)
            do {
                for statement in step.statements { try await execute(statement, on: connection, logger: logger) }
                _ = try await connection.query("INSERT INTO schema_migrations (identifier) VALUES (\(step.identifier))", logger: logger)
                    .collect()
                try await execute("COMMIT", on: connection, logger: logger)
            } catch {
                try? await execute("ROLLBACK", on: connection, logger: logger)
                throw error
            }
            logger.info("applied PostgreSQL schema step", metadata: ["step": "\(step.identifier)"])
            appliedNow.append(step.identifier)
        }
        return appliedNow
    }

    private static func execute(_ sql: String, on connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
    }
}
