import ArgumentParser
import Foundation
import Views

/// `wsx-web seed`: fills a data folder with a workspace of generated people, channels and messages
/// (mixed Korean and English), for benchmarks and trying things out. Messages are written in bulk
/// with their search index, without real-time events.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed", abstract: "Generate a workspace with many messages (benchmarks).", shouldDisplay: false)

    @OptionGroup var storage: StorageOptions
    @Option(help: "Messages to write.") var messages = 100_000
    @Option(help: "Members of the workspace (member1@example.com …, password 'benchmark password').") var members = 20
    @Option(help: "Channels besides the default one.") var channels = 9
    @Option(help: "bcrypt cost of the generated accounts.") var bcryptCost = 4

    func run() async throws {
        try await storage.withDatabase { opened in try await seed(opened.database, secrets: opened.secrets) }
    }

    private func seed(_ database: AppDatabase, secrets: SecretKeeper) async throws {
        let accounts = AccountService(database: database, hasher: PasswordHasher(cost: UInt8(bcryptCost)), clock: .system,
                                      signupCoins: 10)
        var ids: [Int64] = []
        for index in 1...max(1, members) {
            let email = "member\(index)@example.com"
            if let existing = try await accounts.user(email: email) {
                ids.append(existing.id!)
                continue
            }
            let user = try await accounts.signUp(SignupInput(form: FormData(fields: [
                ("email", email), ("nickname", "멤버\(index)"), ("password", "benchmark password"),
                ("password_confirm", "benchmark password")])))
            ids.append(user.id!)
        }
        let workspaces = WorkspaceService(database: database, clock: .system, price: 10)
        let workspace = try await workspaces.create(ownerId: ids[0], name: "Benchmark \(Int(Date().timeIntervalSince1970))",
                                                    description: "generated", defaultChannelName: "일반")
        let access = try await workspaces.access(workspaceId: workspace.id!, userId: ids[0])
        // Every member is invited and accepts (generated people agree to everything).
        let invitations = Invitations(database: database, clock: .system, key: try ServerKey(keeper: secrets))
        for index in 2...max(2, members) where index <= members {
            let token = try await invitations.invite(access, email: "member\(index)@example.com").token
            _ = try await invitations.accept(token: token, userId: ids[index - 1])
        }
        let channelService = ChannelService(database: database, clock: .system)
        var rooms = [try database.query { tx in try workspace.defaultRoom(tx).id! }]
        for index in 1..<max(1, channels + 1) {
            let room = try await channelService.create(access, name: "채널 \(index)", description: "generated channel \(index)")
            try await channelService.join(try await channelService.channel(
                try await workspaces.access(workspaceId: workspace.id!, userId: ids[0]), id: room.id!))
            rooms.append(room.id!)
        }
        // Everyone in every channel, so searches see everything.
        let (allRooms, allIds) = (rooms, ids)
        try await database.write { tx in
            for room in allRooms {
                for user in allIds {
                    try tx.seed.addMember(roomId: room, userId: user, at: Date())
                }
            }
        }
        var generator = SeededGenerator(seed: 42)
        let batch = 10_000
        var written = 0
        let start = Date()
        while written < messages {
            let count = min(batch, messages - written)
            // The batch's rows are generated here, then written in one transaction.
            var rows: [(room: Int64, author: Int64, text: String, created: Date)] = []
            for offset in 0..<count {
                let text = TextGenerator.sentence(&generator)
                let room = rooms[Int(generator.next() % UInt64(rooms.count))]
                let author = ids[Int(generator.next() % UInt64(ids.count))]
                rows.append((room, author, text, start.addingTimeInterval(Double(written + offset - messages))))
            }
            let batchRows = rows
            try await database.write { tx in
                try tx.seed.insert(batchRows.map { row in
                    GeneratedMessage(roomId: row.room, authorId: row.author, body: row.text,
                                     html: MessageHTML.render(row.text, members: .none).html, createdAt: row.created)
                })
            }
            written += count
            FileHandle.standardError.write(Data("\r\(written) messages".utf8))
        }
        FileHandle.standardError.write(Data("\n".utf8))
        print("workspace \(workspace.id!): \(members) members (member1@example.com … / 'benchmark password'), \(rooms.count) channels \(rooms), \(messages) messages")
    }
}

/// A small deterministic random generator (SplitMix64), so seeded data is the same every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Chat-like sentences of Korean words with particles, and English words.
enum TextGenerator {
    static let nouns = ["회의", "내일", "오늘", "프로젝트", "일정", "보고서", "확인", "공지", "채널", "디자인", "개발", "서버", "배포",
                        "테스트", "문서", "검토", "점심", "회의실", "고객", "계약", "예산", "발표", "자료", "팀장님", "주간", "이슈",
                        "버그", "기능", "출시", "마감"]
    static let particles = ["", "를", "을", "이", "가", "은", "는", "에서", "에게", "으로", "하고", "도", "만"]
    static let verbs = ["합니다", "했어요", "할게요", "부탁드립니다", "확인해 주세요", "공유합니다", "괜찮을까요?", "감사합니다",
                        "진행 중입니다", "끝났어요"]
    static let english = ["report", "meeting", "deploy", "review", "server", "design", "lunch", "update", "release", "issue",
                          "deadline", "budget", "customer", "draft", "schedule"]

    static func sentence(_ generator: inout SeededGenerator) -> String {
        var words: [String] = []
        let length = 3 + Int(generator.next() % 10)
        for _ in 0..<length {
            switch generator.next() % 10 {
            case 0..<6: words.append(nouns.randomElement(using: &generator)! + particles.randomElement(using: &generator)!)
            case 6..<8: words.append(english.randomElement(using: &generator)!)
            default: words.append(verbs.randomElement(using: &generator)!)
            }
        }
        return words.joined(separator: " ")
    }
}
