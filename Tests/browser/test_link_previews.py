"""Link previews in Korean at phone and desktop widths: a message with a link gets the page's
card (title, description, site, picture) a moment after it is sent, on the author's tab and the
teammate's, without a reload; the author takes it off and it goes from both."""

import http.server
import pathlib
import threading

import pytest
from playwright.sync_api import expect

from conftest import korean_pair, messages_with, not_reloaded, wait_until_live
from test_messaging import type_and_press_enter

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "Fixtures"
ARTICLE = """<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>무시되는 제목</title>
<meta property="og:title" content="3분기 워크숍 안내: 일정과 장소">
<meta property="og:description" content="10월 17일 금요일, 본사 5층 대회의실에서 진행합니다. 발표 자료는 전날까지 공유해 주세요.">
<meta property="og:site_name" content="사내 위키">
<meta property="og:image" content="/cover.jpg">
</head><body>본문</body></html>"""


class _Site(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the standard library's name)
        if self.path == "/article":
            body, kind = ARTICLE.encode(), "text/html; charset=utf-8"
        elif self.path == "/cover.jpg":
            body, kind = (FIXTURES / "photo.jpg").read_bytes(), "image/jpeg"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    """A page server on loopback (the wsx server under test lists 127.0.0.1 for previews)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("width", [390, 1280])
def test_a_link_gets_its_card_live_and_its_author_removes_it(new_context, site, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    bob.goto(channel)
    wait_until_live(bob)

    type_and_press_enter(mina, f"워크숍 공지 올렸어요 {site}/article 확인 부탁드려요")
    for page in (mina, bob):
        message = messages_with(page, "워크숍 공지 올렸어요")
        card = message.locator(".link-preview")
        expect(card).to_be_visible(timeout=30_000)
        expect(card.locator(".link-preview-title")).to_have_text("3분기 워크숍 안내: 일정과 장소")
        expect(card.locator(".link-preview-site")).to_have_text("사내 위키")
        expect(card.locator(".link-preview-description")).to_contain_text("본사 5층 대회의실")
        # The picture is served from wsx itself, never from the page's site.
        src = card.locator("img").get_attribute("src")
        assert src.startswith("/files/") and src.endswith("/thumb"), src
        expect(card.locator("img")).to_have_js_property("complete", True)
        assert card.locator("img").evaluate("img => img.naturalWidth") > 0
        assert not_reloaded(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Only the author is offered to take it off.
    expect(messages_with(bob, "워크숍 공지 올렸어요").locator(".link-preview-remove")).to_have_count(0)
    remove = messages_with(mina, "워크숍 공지 올렸어요").locator(".link-preview-remove button")
    expect(remove).to_have_text("미리보기 삭제")
    with mina.expect_navigation():
        remove.click()
    expect(messages_with(mina, "워크숍 공지 올렸어요").locator(".link-preview")).to_have_count(0)
    expect(messages_with(bob, "워크숍 공지 올렸어요").locator(".link-preview")).to_have_count(0)
    assert not_reloaded(bob)
