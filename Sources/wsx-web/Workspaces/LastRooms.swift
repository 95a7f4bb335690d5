import Foundation
import Synchronization

/// Where each person was: the room they viewed last (`last_rooms`), where signing in and `/`
/// take them, as Slack and KakaoWork open where one left off. A view of the same room again
/// writes nothing (remembered here); a switch writes one row, which no cache of pages counts.
final class LastRooms: Sendable {
    private let database: AppDatabase
    private let known = Mutex<[Int64: Int64]>([:])

    init(database: AppDatabase) {
        self.database = database
    }

    /// Notes that `userId` viewed `roomId`. A write that fails (a full disk) costs only where
    /// the next sign-in opens, never the page being viewed.
    func viewed(roomId: Int64, userId: Int64) async {
        guard known.withLock({ $0[userId] }) != roomId else { return }
        do {
            try await database.write { tx in try tx.lastRooms.setViewed(roomId: roomId, userId: userId) }
            known.withLock { $0[userId] = roomId }
        } catch {}
    }

    /// Where `userId` starts: the last room they viewed while they may still read it, else the
    /// default channel of the workspace they joined first, else the list of workspaces (to
    /// create or join one).
    func start(userId: Int64) throws -> String {
        try database.query { tx in
            if let room = try tx.lastRooms.lastViewed(userId: userId) {
                return room.path(for: userId)
            }
            if let room = try tx.lastRooms.firstDefaultRoom(userId: userId) {
                return room.path(for: userId)
            }
            return Paths.workspaces()
        }
    }
}
