import Foundation
import Testing
@testable import LinkPreviews

/// What a card shows of a page: Open Graph first, the page's own title and description else;
/// plain text only, image URLs absolute and http(s).
@Suite("Page metadata")
struct PageMetadataTests {
    let page = URL(string: "https://news.example.kr/articles/42?ref=x")!

    func read(_ html: String) -> PageMetadata {
        PageMetadata.read(html: Array(html.utf8), from: page)
    }

    @Test("Open Graph tags, Korean text and entities, a relative image made absolute")
    func openGraph() {
        let found = read("""
            <!doctype html><html lang="ko"><head>
            <meta charset="utf-8"><title>무시되는 제목</title>
            <meta property="og:title" content="신제품 출시 &amp; 사전 예약 &quot;오픈&quot;">
            <meta property='og:description' content='  첫 줄
                 둘째 줄 &#44608;&#xBBFC;아  '>
            <meta property=og:site_name content=뉴스>
            <META PROPERTY="og:image" CONTENT="/images/cover.jpg?w=1200&amp;h=630">
            </head><body><meta property="og:title" content="본문 속 가짜"></body></html>
            """)
        #expect(found.title == "신제품 출시 & 사전 예약 \"오픈\"")
        #expect(found.description == "첫 줄 둘째 줄 김민아")
        #expect(found.siteName == "뉴스")
        #expect(found.imageURL?.absoluteString == "https://news.example.kr/images/cover.jpg?w=1200&h=630")
    }

    @Test("without Open Graph: the <title> and the description meta")
    func fallbacks() {
        let found = read("<html><head><TITLE>회의록 &lt;최종&gt;</TITLE><meta name=\"description\" content=\"3분기 회의\"></head>")
        #expect(found.title == "회의록 <최종>")
        #expect(found.description == "3분기 회의")
        #expect(found.siteName == "")
        #expect(found.imageURL == nil)
    }

    @Test("scripts are skipped, other schemes are no image, long text is cut, a page with no title is no card")
    func safety() {
        let found = read("""
            <head><script>var s = '<meta property="og:title" content="from a script">';</script>
            <meta property="og:title" content="\(String(repeating: "가", count: 500))">
            <meta property="og:image" content="javascript:alert(1)"></head>
            """)
        #expect(found.title.count == 200)
        #expect(found.title.hasSuffix("…"))
        #expect(found.imageURL == nil)
        #expect(read("<p>no head at all</p>").isEmpty)
        #expect(read("<title>\u{0007}벨\u{202E}소리</title>").title == "벨소리")
    }

    @Test("broken markup ends the reading, it does not stop it", arguments: [
        "<head><meta property=\"og:title\" content=\"unterminated", "<<<<<<<<", "<title>no end", "&#xFFFFFFFF;&#0;&bogus;",
    ])
    func brokenMarkup(html: String) {
        _ = read(html)
        #expect(PageMetadata.decodeEntities("&#xFFFFFFFF;&#0;&bogus;&amp") == "&#xFFFFFFFF;&#0;&bogus;&amp")
    }
}
