/// Where a room's page is, for the links services make (a search hit, a mention, the room to
/// return to) as well as the routes.
extension Room {
    /// The page of this room as its member `userId` reaches it: a DM by the other person.
    func path(for userId: Int64) -> String {
        switch kind {
        case .channel: Paths.channel(workspaceId, id!)
        case .dm: Paths.directMessages(workspaceId, DirectRooms.partnerId(of: self, for: userId))
        case .group: Paths.group(workspaceId, id!)
        }
    }
}
