// Typed template lookups for the thread view models a room's page renders (see
// ViewModelLookups.swift for why).

extension ThreadSummaryView: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "rootId": rootId.templateValue
        case "url": url.templateValue
        case "countTexts": countTexts.templateValue
        case "lastTexts": lastTexts.templateValue
        case "lastTimestamp": lastTimestamp.templateValue
        case "lastTimeText": lastTimeText.templateValue
        case "repliers": repliers.templateValue
        default: .missing
        }
    }
}

extension ThreadReplierView: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "nickname": nickname.templateValue
        case "initial": initial.templateValue
        case "tone": tone.templateValue
        case "avatarURL": avatarURL.templateValue
        default: .missing
        }
    }
}

extension ThreadHeader: TemplateContext {
    public func value(forKey key: String) -> TemplateValue {
        switch key {
        case "rootId": rootId.templateValue
        case "backURL": backURL.templateValue
        case "roomLabel": roomLabel.templateValue
        case "alsoLabel": alsoLabel.templateValue
        case "replyCountText": replyCountText.templateValue
        case "followURL": followURL.templateValue
        case "isFollowing": isFollowing.templateValue
        case "isPanel": isPanel.templateValue
        default: .missing
        }
    }
}
