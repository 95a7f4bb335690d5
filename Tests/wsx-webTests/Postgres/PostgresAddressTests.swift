import Testing
@testable import wsx_web

@Suite("PostgreSQL addresses (--database, WSX_DATABASE)", .timeLimit(.minutes(5)))
struct PostgresAddressTests {
    @Test("user, password, host, port and database; percent-escapes; 5432 and no TLS by default")
    func parts() throws {
        let full = try PostgresAddress("postgres://wsx:s%40cret%2Fpass@db.example.com:6432/team_chat")
        #expect(full == PostgresAddress(host: "db.example.com", port: 6432, user: "wsx", password: "s@cret/pass",
                                        database: "team_chat", tls: .disable))
        let bare = try PostgresAddress("postgresql://wsx@10.0.0.5/wsx")
        #expect(bare == PostgresAddress(host: "10.0.0.5", user: "wsx", database: "wsx"))
        let ipv6 = try PostgresAddress("postgres://wsx:pw@[fd00::7]:5433/wsx?sslmode=verify-full")
        #expect(ipv6 == PostgresAddress(host: "fd00::7", port: 5433, user: "wsx", password: "pw", database: "wsx", tls: .verifyFull))
        #expect(try PostgresAddress("postgres://u@h/d?sslmode=require").tls == .require)
        #expect(try PostgresAddress("postgres://u@h/d?sslmode=disable").tls == .disable)
        #expect(try PostgresAddress("postgres://u:p@h/%ED%8C%80").database == "팀")
    }

    @Test("the address as shown in logs and messages never carries the password")
    func shownWithoutPassword() throws {
        let address = try PostgresAddress("postgres://wsx:hunter2@db:5432/chat?sslmode=require")
        #expect(address.description == "postgres://wsx:***@db:5432/chat?sslmode=require")
        #expect(!"\(address)".contains("hunter2"))
        #expect(try PostgresAddress("postgres://wsx@[::1]/chat").description == "postgres://wsx@[::1]:5432/chat")
    }

    @Test("a broken address is refused with what to fix", arguments: [
        ("mysql://u@h/d", "starts with postgres://"),
        ("postgres://u@h", "names no database"),
        ("postgres://u@h/", "names no database"),
        ("postgres://h/d", "names no user"),
        ("postgres://:pw@h/d", "names no user"),
        ("postgres://u@/d", "names no host"),
        ("postgres://u@h:99999/d", "port is not a number"),
        ("postgres://u@h:abc/d", "port is not a number"),
        ("postgres://u@[::1/d", "no closing ]"),
        ("postgres://u@h/d?sslmode=allow", "sslmode allow is not one of"),
        ("postgres://u@h/d?application_name=x", "option wsx does not know"),
        ("postgres://u:p%zz@h/d", "broken %-escape"),
    ])
    func refused(text: String, says: String) {
        #expect {
            try PostgresAddress(text)
        } throws: { error in
            "\(error)".contains(says)
        }
    }
}
