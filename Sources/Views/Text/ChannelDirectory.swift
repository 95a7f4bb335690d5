/// Which channels a message can link to by what follows a `#`: the workspace's public
/// channels by name (`#개발`, `#개발에서`, `#design-team`), found by `NameTrie`'s rules. A
/// private channel's name is never linked: its readers may not know it exists.
public struct ChannelDirectory: Sendable {
    /// Where a reference leads.
    public struct Channel: Sendable, Equatable {
        public let roomId: Int64
        public let href: String

        public init(roomId: Int64, href: String) {
            self.roomId = roomId
            self.href = href
        }
    }

    private var names = NameTrie<Channel>()

    public static let none = ChannelDirectory([:])

    /// The channels by name (names are unique in a workspace, whatever their case).
    public init(_ channels: [String: Channel]) {
        for (name, channel) in channels where !name.isEmpty {
            names.insert(name) { $0 ?? channel }
        }
    }

    /// The channel named by the characters from `start` (just after a `#`), and where its name ends.
    func channel(in chars: ArraySlice<Character>, after start: Int) -> (channel: Channel, end: Int)? {
        names.match(in: chars, at: start).map { ($0.target, $0.end) }
    }
}
