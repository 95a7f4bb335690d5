// Typed template lookups for the view models of the pages served most (channel, workspace
// home, the layout and sidebar): the renderer asks `value(forKey:)` for each name a template
// uses and gets a `TemplateValue` back, with no reflection and no dynamic casts (both dominated
// page rendering, measured with perf on the channel page). Other view models are read by
// reflection. A test checks every stored property here is answered with its own value.

extension Lang: TemplateRepresentable {
    public var templateValue: TemplateValue { .text(rawValue) }
}

extension Chrome: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "lang": lang.templateValue
        case "langCode": langCode.templateValue
        case "csrfToken": csrfToken.templateValue
        case "viewer": viewer.templateValue
        case "workspaces": workspaces.templateValue
        case "rooms": rooms.templateValue
        case "channels": channels.templateValue
        case "dms": dms.templateValue
        case "hasRooms": hasRooms.templateValue
        case "currentWorkspaceId": currentWorkspaceId.templateValue
        case "flash": flash.templateValue
        case "path": path.templateValue
        case "coinBalance": coinBalance.templateValue
        case "lastEventId": lastEventId.templateValue
        case "roomsCountedThrough": roomsCountedThrough.templateValue
        case "threadsCountedThrough": threadsCountedThrough.templateValue
        case "cssURL": cssURL.templateValue
        case "scriptURLs": scriptURLs.templateValue
        case "testPayments": testPayments.templateValue
        case "links": links.templateValue
        case "workspace": workspace.templateValue
        case "unreadTotal": unreadTotal.templateValue
        case "hasUnseen": hasUnseen.templateValue
        case "mentionsUnread": mentionsUnread.templateValue
        case "hasMentionsUnread": hasMentionsUnread.templateValue
        case "elsewhereCount": elsewhereCount.templateValue
        case "hasElsewhereCount": hasElsewhereCount.templateValue
        case "hasElsewhereUnseen": hasElsewhereUnseen.templateValue
        case "iconURL": iconURL.templateValue
        case "unreadIconURL": unreadIconURL.templateValue
        case "manifestURL": manifestURL.templateValue
        case "appleTouchIconURL": appleTouchIconURL.templateValue
        case "pushKeyURL": pushKeyURL.templateValue
        case "pushSubscriptionsURL": pushSubscriptionsURL.templateValue
        case "archived": archived.templateValue
        case "hasArchived": hasArchived.templateValue
        case "threadsUnread": threadsUnread.templateValue
        case "hasThreadsUnread": hasThreadsUnread.templateValue
        case "isEmbedded": isEmbedded.templateValue
        default: .missing
        }
    }
}

extension Viewer: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "id": id.templateValue
        case "nickname": nickname.templateValue
        case "notifyDefault": notifyDefault.templateValue
        case "isAdmin": isAdmin.templateValue
        default: .missing
        }
    }
}

extension SidebarWorkspace: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "id": id.templateValue
        case "name": name.templateValue
        case "url": url.templateValue
        case "isCurrent": isCurrent.templateValue
        default: .missing
        }
    }
}

extension SiteLinks: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "root": root.templateValue
        case "workspaces": workspaces.templateValue
        case "newWorkspace": newWorkspace.templateValue
        case "store": store.templateValue
        case "checkout": checkout.templateValue
        case "sandboxPay": sandboxPay.templateValue
        case "profile": profile.templateValue
        case "password": password.templateValue
        case "login": login.templateValue
        case "resetRequest": resetRequest.templateValue
        case "signup": signup.templateValue
        case "logout": logout.templateValue
        case "language": language.templateValue
        case "events": events.templateValue
        case "presence": presence.templateValue
        case "admin": admin.templateValue
        case "twoStep": twoStep.templateValue
        default: .missing
        }
    }
}

extension WorkspaceLinks: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "home": home.templateValue
        case "search": search.templateValue
        case "channels": channels.templateValue
        case "members": members.templateValue
        case "settings": settings.templateValue
        case "delete": delete.templateValue
        case "leave": leave.templateValue
        case "transfer": transfer.templateValue
        case "audit": audit.templateValue
        case "unread": unread.templateValue
        case "people": people.templateValue
        case "mentions": mentions.templateValue
        case "saved": saved.templateValue
        case "newConversation": newConversation.templateValue
        case "threads": threads.templateValue
        default: .missing
        }
    }
}

extension SidebarRoom: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "id": id.templateValue
        case "name": name.templateValue
        case "url": url.templateValue
        case "isCurrent": isCurrent.templateValue
        case "unread": unread.templateValue
        case "mentions": mentions.templateValue
        case "isDM": isDM.templateValue
        case "badgeCount": badgeCount.templateValue
        case "hasBadge": hasBadge.templateValue
        case "isBold": isBold.templateValue
        case "avatarURL": avatarURL.templateValue
        case "initial": initial.templateValue
        case "tone": tone.templateValue
        case "notify": notify.rawValue.templateValue
        case "hasOwnNotify": hasOwnNotify.templateValue
        case "isMuted": isMuted.templateValue
        case "personId": personId.templateValue
        case "status": status.templateValue
        case "isPrivate": isPrivate.templateValue
        case "isArchived": isArchived.templateValue
        case "isGroup": isGroup.templateValue
        default: .missing
        }
    }
}

extension RoomPage: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        // First: a thread's page asks for it in a dozen places, and a switch on text compares in order.
        case "thread": thread.templateValue
        case "threadURL": threadURL.templateValue
        case "workspaceId": workspaceId.templateValue
        case "roomId": roomId.templateValue
        case "isChannel": isChannel.templateValue
        case "title": title.templateValue
        case "description": description.templateValue
        case "memberCountText": memberCountText.templateValue
        case "settingsURL": settingsURL.templateValue
        case "isMember": isMember.templateValue
        case "joinURL": joinURL.templateValue
        case "messagesHtml": messagesHtml.templateValue
        case "isEmpty": isEmpty.templateValue
        case "olderURL": olderURL.templateValue
        case "newerURL": newerURL.templateValue
        case "isLatest": isLatest.templateValue
        case "composerAction": composerAction.templateValue
        case "readURL": readURL.templateValue
        case "markReadUpTo": markReadUpTo.templateValue
        case "content": content.templateValue
        case "contentError": contentError.templateValue
        case "canModerate": canModerate.templateValue
        case "maxFiles": maxFiles.templateValue
        case "maxFileBytes": maxFileBytes.templateValue
        case "attachHint": attachHint.templateValue
        case "messageTemplatesHtml": messageTemplatesHtml.templateValue
        case "receiptsJSON": receiptsJSON.templateValue
        case "acceptTypes": acceptTypes.templateValue
        case "tooLargeText": tooLargeText.templateValue
        case "tooManyText": tooManyText.templateValue
        case "coverURL": coverURL.templateValue
        case "editMessageURL": editMessageURL.templateValue
        case "deleteMessageURL": deleteMessageURL.templateValue
        case "reactMessageURL": reactMessageURL.templateValue
        case "confirmMentions": confirmMentions.templateValue
        case "emojiTableURL": emojiTableURL.templateValue
        case "markURLs": markURLs.templateValue
        case "pinsURL": pinsURL.templateValue
        case "hasPins": hasPins.templateValue
        case "pinsCountText": pinsCountText.templateValue
        case "messageIdSlot": messageIdSlot.templateValue
        case "notifyURL": notifyURL.templateValue
        case "notifyChoices": notifyChoices.templateValue
        case "personId": personId.templateValue
        case "typingURL": typingURL.templateValue
        case "personStatus": personStatus.templateValue
        case "isPrivate": isPrivate.templateValue
        case "isArchived": isArchived.templateValue
        case "unarchiveURL": unarchiveURL.templateValue
        case "isGroup": isGroup.templateValue
        case "groupMembers": groupMembers.templateValue
        case "addMemberURL": addMemberURL.templateValue
        case "addCandidates": addCandidates.templateValue
        case "hasAddCandidates": hasAddCandidates.templateValue
        case "leaveURL": leaveURL.templateValue
        case "previewRemoveURL": previewRemoveURL.templateValue
        default: .missing
        }
    }
}

extension MessageView: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "id": id.templateValue
        case "authorId": authorId.templateValue
        case "author": author.templateValue
        case "initial": initial.templateValue
        case "tone": tone.templateValue
        case "timestamp": timestamp.templateValue
        case "timeText": timeText.templateValue
        case "isEdited": isEdited.templateValue
        case "bodyHtml": bodyHtml.templateValue
        case "actionsHtml": actionsHtml.templateValue
        case "link": link.templateValue
        case "images": images.templateValue
        case "hasImageGrid": hasImageGrid.templateValue
        case "documents": documents.templateValue
        case "hasBody": hasBody.templateValue
        case "avatarURL": avatarURL.templateValue
        case "authorURL": authorURL.templateValue
        case "isDeleted": isDeleted.templateValue
        case "deletedTexts": deletedTexts.templateValue
        case "deactivatedTexts": deactivatedTexts.templateValue
        case "botTexts": botTexts.templateValue
        case "threadURL": threadURL.templateValue
        case "replyTexts": replyTexts.templateValue
        default: .missing
        }
    }
}

extension AttachmentView: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "url": url.templateValue
        case "thumbnailURL": thumbnailURL.templateValue
        case "name": name.templateValue
        case "sizeText": sizeText.templateValue
        case "isImage": isImage.templateValue
        case "kindLabel": kindLabel.templateValue
        case "width": width.templateValue
        case "height": height.templateValue
        case "downloadURL": downloadURL.templateValue
        case "openTexts": openTexts.templateValue
        case "downloadTexts": downloadTexts.templateValue
        case "isVideo": (player == .video).templateValue
        case "isAudio": (player == .audio).templateValue
        default: .missing
        }
    }
}

extension MessageActions: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "canEdit": canEdit.templateValue
        case "canDelete": canDelete.templateValue
        case "editing": editing.templateValue
        case "body": body.templateValue
        case "cancelURL": cancelURL.templateValue
        case "editURL": editURL.templateValue
        case "saveURL": saveURL.templateValue
        case "deleteURL": deleteURL.templateValue
        case "reactURL": reactURL.templateValue
        case "threadURL": threadURL.templateValue
        case "withMarks": withMarks.templateValue
        default: .missing
        }
    }
}

extension WorkspaceHomePage: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "id": id.templateValue
        case "name": name.templateValue
        case "description": description.templateValue
        case "isOwner": isOwner.templateValue
        case "channels": channels.templateValue
        case "dms": dms.templateValue
        case "hasDMs": hasDMs.templateValue
        case "coverURL": coverURL.templateValue
        default: .missing
        }
    }
}

extension RoomLink: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "id": id.templateValue
        case "name": name.templateValue
        case "url": url.templateValue
        case "description": description.templateValue
        case "memberCount": memberCount.templateValue
        case "joined": joined.templateValue
        case "isDefault": isDefault.templateValue
        case "unread": unread.templateValue
        case "mentions": mentions.templateValue
        case "notify": notify.rawValue.templateValue
        case "isDirect": isDirect.templateValue
        case "badgeCount": badgeCount.templateValue
        case "hasBadge": hasBadge.templateValue
        case "isBold": isBold.templateValue
        case "lastSnippet": lastSnippet.templateValue
        case "lastTimestamp": lastTimestamp.templateValue
        case "lastTimeText": lastTimeText.templateValue
        case "avatarURL": avatarURL.templateValue
        case "initial": initial.templateValue
        case "tone": tone.templateValue
        case "isMuted": isMuted.templateValue
        case "isGroup": isGroup.templateValue
        case "personId": personId.templateValue
        case "status": status.templateValue
        case "isPrivate": isPrivate.templateValue
        default: .missing
        }
    }
}

extension NotifyChoice: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "value": value.templateValue
        case "label": label.templateValue
        case "isSelected": isSelected.templateValue
        default: .missing
        }
    }
}

extension LocalText: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "lang": lang.templateValue
        case "text": text.templateValue
        default: .missing
        }
    }
}

extension MessageMarkURLs: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "pin": pin.templateValue
        case "unpin": unpin.templateValue
        case "save": save.templateValue
        case "unsave": unsave.templateValue
        default: .missing
        }
    }
}

extension PersonOption: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "id": id.templateValue
        case "nickname": nickname.templateValue
        case "url": url.templateValue
        default: .missing
        }
    }
}
