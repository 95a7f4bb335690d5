import Mustache

// Template lookups without reflection: swift-mustache asks `child(named:)` for each name a
// template uses; answering from a switch avoids `Mirror`, which dominated page rendering
// (measured with perf on the channel page). Generated from the stored properties; a test
// checks every stored property is reachable.

extension Chrome: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "lang": lang
        case "langCode": langCode
        case "csrfToken": csrfToken
        case "viewer": viewer
        case "workspaces": workspaces
        case "rooms": rooms
        case "channels": channels
        case "dms": dms
        case "hasRooms": hasRooms
        case "currentWorkspaceId": currentWorkspaceId
        case "flash": flash
        case "path": path
        case "coinBalance": coinBalance
        case "lastEventId": lastEventId
        case "cssURL": cssURL
        case "scriptURLs": scriptURLs
        default: nil
        }
    }
}

extension Viewer: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "nickname": nickname
        default: nil
        }
    }
}

extension SidebarWorkspace: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "isCurrent": isCurrent
        default: nil
        }
    }
}

extension SidebarRoom: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "url": url
        case "isCurrent": isCurrent
        case "unread": unread
        case "isDM": isDM
        case "hasUnread": hasUnread
        default: nil
        }
    }
}

extension RoomPage: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "workspaceId": workspaceId
        case "roomId": roomId
        case "isChannel": isChannel
        case "title": title
        case "description": description
        case "memberCountText": memberCountText
        case "settingsURL": settingsURL
        case "isMember": isMember
        case "joinURL": joinURL
        case "messagesHtml": messagesHtml
        case "isEmpty": isEmpty
        case "olderURL": olderURL
        case "newerURL": newerURL
        case "isLatest": isLatest
        case "composerAction": composerAction
        case "readURL": readURL
        case "content": content
        case "contentError": contentError
        case "canModerate": canModerate
        case "maxFiles": maxFiles
        case "maxFileBytes": maxFileBytes
        case "attachHint": attachHint
        case "tooLargeText": tooLargeText
        case "tooManyText": tooManyText
        case "coverURL": coverURL
        default: nil
        }
    }
}

extension MessageView: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "authorId": authorId
        case "author": author
        case "initial": initial
        case "timestamp": timestamp
        case "timeText": timeText
        case "isEdited": isEdited
        case "bodyHtml": bodyHtml
        case "actionsHtml": actionsHtml
        case "images": images
        case "documents": documents
        case "hasBody": hasBody
        case "avatarURL": avatarURL
        default: nil
        }
    }
}

extension AttachmentView: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "url": url
        case "thumbnailURL": thumbnailURL
        case "name": name
        case "sizeText": sizeText
        case "isImage": isImage
        case "kindLabel": kindLabel
        case "width": width
        case "height": height
        default: nil
        }
    }
}

extension MessageActions: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "messageId": messageId
        case "workspaceId": workspaceId
        case "canEdit": canEdit
        case "canDelete": canDelete
        case "editing": editing
        case "body": body
        case "cancelURL": cancelURL
        case "editURL": editURL
        default: nil
        }
    }
}

extension WorkspaceHomePage: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "description": description
        case "isOwner": isOwner
        case "channels": channels
        case "dms": dms
        case "hasDMs": hasDMs
        case "coverURL": coverURL
        default: nil
        }
    }
}

extension RoomLink: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "url": url
        case "description": description
        case "memberCount": memberCount
        case "joined": joined
        case "isDefault": isDefault
        case "unread": unread
        case "hasUnread": hasUnread
        case "lastSnippet": lastSnippet
        case "lastTimestamp": lastTimestamp
        case "lastTimeText": lastTimeText
        default: nil
        }
    }
}
extension PageContext: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "t": t
        case "chrome": chrome
        case "page": page
        default: nil
        }
    }
}

extension LayoutContext: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "t": t
        case "chrome": chrome
        case "title": title
        case "contentHtml": contentHtml
        default: nil
        }
    }
}

extension NeutralContext: MustacheParent {
    func child(named key: String) -> Any? {
        key == "page" ? page : nil
    }
}
