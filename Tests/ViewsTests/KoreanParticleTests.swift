import Testing
@testable import Views

/// Korean particles follow the word: "디자인팀을", "Ops를", "서울로", never "을(를)".
@Suite("Korean particles")
struct KoreanParticleTests {
    @Test("the form is chosen by the word's last sound", arguments: [
        ("디자인팀", "을", "을"), ("회의", "을", "를"), ("회의", "를", "를"), ("일반", "이", "이"), ("마케팅 2", "은", "는"),
        ("서울", "으로", "로"), ("부산", "로", "으로"), ("부산", "으로", "으로"), ("제주", "으로", "로"), ("3층", "과", "과"),
        ("Design", "을", "을"), ("Ops", "을", "를"), ("Mail", "으로", "로"), ("팀 7", "으로", "로"), ("팀 6", "을", "을"),
        ("「공지」", "을", "를"), ("「공지사항」", "을", "을"), ("🎉", "을", "를"), ("민아", "이에요", "예요"),
    ])
    func particle(word: String, asked: String, expected: String) {
        #expect(KoreanParticle.form(of: Substring(asked), after: word) == expected)
    }

    @Test("texts ask for a particle with {0:을}; an unknown one is left as written")
    func inTexts() {
        #expect(Lang.ko.strings.format("confirm_delete_channel", "공지") == "채널 「공지」를 삭제할까요?")
        #expect(Lang.ko.strings.format("confirm_delete_channel", "일반") == "채널 「일반」을 삭제할까요?")
        #expect(Lang.ko.strings.format("confirm_delete_workspace", "Ops") == "워크스페이스 「Ops」를 삭제할까요?")
        #expect(!Lang.ko.strings.table.values.contains { $0.contains("을(를)") || $0.contains("이(가)") || $0.contains("당신") })
    }
}

/// English counts agree with their noun: "1 member", "2 members", never "1 messages".
@Suite("English plurals")
struct EnglishPluralTests {
    @Test("a count of one takes the singular, every other count the plural")
    func countsAgree() {
        let strings = Lang.en.strings
        #expect(strings.format("channel_members_count", 1) == "1 member")
        #expect(strings.format("channel_members_count", 2) == "2 members")
        #expect(strings.format("channel_members_count", 0) == "0 members")
        #expect(strings.format("confirm_lost_messages", 1) == "1 message and its files will be deleted.")
        #expect(strings.format("confirm_delete_channel_consequence", 1, 7) == "1 member loses this channel and 7 messages will be deleted.")
        #expect(strings.format("store_result_paid_body", 1) == "1 coin was added to your balance.")
        #expect(Lang.ko.strings.format("channel_members_count", 1) == "멤버 1명")
    }

    @Test("no English text counts with a bare plural after a placeholder")
    func noBarePlurals() {
        let bare = /\{\d\} (members|messages|channels|coins|files|minutes)\b/
        #expect(Lang.en.strings.table.filter { $0.value.contains(bare) }.map(\.key).isEmpty)
    }
}
