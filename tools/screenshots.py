#!/usr/bin/env python3
"""Writes docs/screenshots/: the main pages at 390 and 1280 px wide, in Korean and English,
from a server started on an empty data folder and filled through its own pages (two people,
a workspace, messages with a photo and a PDF, a DM); and, in Korean, a Slack export imported
into it while it runs (Tests/Fixtures/slack-export). Run by `make screenshots`:

    .venv/bin/python tools/screenshots.py --binary .build/debug/wsx-web --out docs/screenshots
"""

import argparse
import http.server
import json
import pathlib
import re
import subprocess
import tempfile
import threading
import urllib.request
import zipfile

from playwright.sync_api import Page, sync_playwright

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = REPO / "Tests" / "Fixtures"
PASSWORD = "password1"
API_KEY = "screenshots-key"
WIDTHS = (390, 1280)
NAMES = {
    "ko-KR": {"owner": "김민아", "mate": "박지수", "workspace": "디자인팀", "channel": "리뉴얼",
              "messages": ["오늘 회의는 오후 3시입니다. 안건은 새 홈 화면 시안이에요.",
                           "@김민아님 시안 확인했어요. **좋아요!**", "고마워요 👍 나머지는 #리뉴얼에서 이어가요.\n- 홈 화면: 확정\n- 설정 화면: `다음 주`"],
              "dm": "회의 자료 미리 공유드려요.", "search": "회의", "status": "외근 중, 4시 복귀",
              "third": "이서준", "group": "세 명이서 점심 메뉴 정해요 🍜",
              "replies": ["3시 회의실은 어디인가요?", "7층 큰 회의실이에요. **노트북** 챙겨 오세요!"],
              "link": "리뉴얼 시안 정리했어요: {0}/article",
              "article": ("홈 화면 리뉴얼 시안 v2", "새 홈 화면의 레이아웃, 색상, 글꼴을 정리한 문서입니다. 의견은 금요일까지 남겨 주세요.",
                          "디자인팀 위키")},
    "en-US": {"owner": "Mina Kim", "mate": "Jisoo Park", "workspace": "Design", "channel": "redesign",
              "messages": ["Today's meeting is at 3 pm: the new home screen drafts.",
                           "@Mina Kim looked at the drafts: **love it!**", "Thanks 👍 More in #redesign.\n- home screen: done\n- settings: `next week`"],
              "dm": "Sharing the meeting notes ahead of time.", "search": "meeting", "status": "Out until 4pm",
              "third": "Seojun Lee", "group": "Lunch plans for the three of us 🍜",
              "replies": ["Which room is the 3 pm meeting in?", "The big one on floor 7. Bring your **laptop**!"],
              "link": "Drafts are written up: {0}/article",
              "article": ("Home screen redesign, draft 2", "Layout, colours and type of the new home screen. Comments by Friday, please.",
                          "Design wiki")},
}


def serve_article(locale: str) -> str:
    """A page on loopback with an Open Graph card, for a link preview; returns its base URL."""
    title, description, site = NAMES[locale]["article"]
    page = (f'<html><head><meta charset="utf-8"><meta property="og:title" content="{title}">'
            f'<meta property="og:description" content="{description}"><meta property="og:site_name" content="{site}">'
            '<meta property="og:image" content="/cover.jpg"></head></html>').encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body, kind = (page, "text/html; charset=utf-8") if self.path == "/article" else \
                ((FIXTURES / "photo.jpg").read_bytes(), "image/jpeg")
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def start(binary: str) -> tuple[subprocess.Popen, str, str]:
    """Starts the server on an empty data folder; returns it, its base URL and the folder."""
    data = tempfile.mkdtemp(prefix="wsx-screenshots-")
    process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data, "--bcrypt-cost", "4", "--signup", "open",
                                "--workspace-price", "0", "--payments", "sandbox", "--link-preview-hosts", "127.0.0.1",
                                "--api-key", API_KEY],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        if match := re.search(r"listening on (http://\S+)", line):
            return process, match.group(1), data
    raise RuntimeError("the server did not start")


def app_sign_in(base: str, email: str, client: str) -> None:
    """Signs `email` in from a phone app (`/v1`), which the profile page then lists."""
    body = json.dumps({"email": email, "password": PASSWORD, "deviceToken": ""}).encode()
    request = urllib.request.Request(base + "/v1/users/login", data=body, method="POST", headers={
        "SesacKey": API_KEY, "Content-Type": "application/json", "User-Agent": client})
    with urllib.request.urlopen(request) as response:
        assert response.status == 200


def signup(page: Page, base: str, email: str, nickname: str) -> None:
    page.goto(base + "/signup")
    page.fill("input[name=email]", email)
    page.fill("input[name=nickname]", nickname)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password_confirm]", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")


def send(page: Page, text: str, files: list[pathlib.Path] = ()) -> None:
    if files:
        page.set_input_files("#composer-files", [str(file) for file in files])
    box = page.locator("#composer textarea[name=content]")
    box.fill(text)
    count = page.locator("#message-list li.message").count()
    box.press("Enter")
    page.locator("#message-list li.message").nth(count).wait_for()


def react(page: Page, base: str, workspace: str, message: str, emoji: str) -> None:
    """Reacts as the page's person would with the script: a POST with the page's CSRF token."""
    token = page.evaluate("document.querySelector('meta[name=csrf-token]').content")
    response = page.request.post(f"{base}/w/{workspace}/m/{message}/reactions", form={"_csrf": token, "emoji": emoji},
                                 headers={"Accept": "application/json"})
    assert response.ok, response.status


def mark(page: Page, base: str, workspace: str, message: str, action: str) -> None:
    """Pins or saves (`action`) a message as the page's person would with the script."""
    token = page.evaluate("document.querySelector('meta[name=csrf-token]').content")
    response = page.request.post(f"{base}/w/{workspace}/m/{message}/{action}", form={"_csrf": token},
                                 headers={"Accept": "application/json"})
    assert response.ok, response.status


def reply(page: Page, base: str, workspace: str, message: str, text: str) -> None:
    """Answers a message in its thread as the page's person would with the script."""
    token = page.evaluate("document.querySelector('meta[name=csrf-token]').content")
    response = page.request.post(f"{base}/w/{workspace}/m/{message}/replies", form={"_csrf": token, "content": text},
                                 headers={"Accept": "application/json"})
    assert response.ok, response.status


def invite(owner: Page, member: Page, base: str, workspace: str, email: str) -> None:
    """The owner invites `email` from the members page; `member` (signed in as it) joins."""
    owner.goto(f"{base}/w/{workspace}/members")
    owner.fill("#invite-form input[name=email]", email)
    with owner.expect_navigation():
        owner.click("#invite-form button[type=submit]")
    link = owner.locator("#invite-link").text_content()
    member.goto(base + re.sub(r"^https?://[^/]+", "", link))
    with member.expect_navigation():
        member.click("#accept-invite-form button[type=submit]")


def take(browser, base: str, locale: str, out: pathlib.Path) -> None:
    names = NAMES[locale]
    lang = locale[:2]
    owner = browser.new_context(locale=locale).new_page()
    mate = browser.new_context(locale=locale).new_page()
    signup(owner, base, f"owner-{lang}@example.com", names["owner"])
    signup(mate, base, f"mate-{lang}@example.com", names["mate"])
    owner.goto(base + "/workspaces")
    owner.fill("#create-workspace-form input[name=name]", names["workspace"])
    with owner.expect_navigation():
        owner.click("#create-workspace-form button[type=submit]")
    workspace = re.search(r"/w/(\d+)", owner.url).group(1)
    invite(owner, mate, base, workspace, f"mate-{lang}@example.com")
    third = browser.new_context(locale=locale).new_page()
    signup(third, base, f"third-{lang}@example.com", names["third"])
    invite(owner, third, base, workspace, f"third-{lang}@example.com")
    owner.goto(f"{base}/w/{workspace}/channels")
    owner.fill("#create-channel-form input[name=name]", names["channel"])
    with owner.expect_navigation():
        owner.click("#create-channel-form button[type=submit]")
    owner.goto(f"{base}/w/{workspace}")
    general = owner.locator("#home-channels a").first.get_attribute("href")
    owner.goto(base + general)
    send(owner, names["messages"][0], [FIXTURES / "photo.jpg", FIXTURES / "doc.pdf"])
    mate.goto(base + general)
    send(mate, names["messages"][1])
    send(owner, names["messages"][2])
    first = owner.locator("#message-list li.message").first.get_attribute("data-message")
    for page, emoji in ((mate, "👍"), (mate, "🎉"), (owner, "👍")):
        react(page, base, workspace, first, emoji)
    for action in ("pin", "save"):
        mark(owner, base, workspace, first, action)
    # A thread under the first message: the teammate asks, the owner answers.
    reply(mate, base, workspace, first, names["replies"][0])
    reply(owner, base, workspace, first, names["replies"][1])
    # The teammate's custom status, beside their name in the sidebar, the DM and the members page.
    mate.goto(f"{base}/profile")
    mate.fill("#status-emoji", "🌴")
    mate.fill("#status-text", names["status"])
    with mate.expect_navigation():
        mate.click("#status-form button[type=submit]:not([name])")
    mate_id = mate.evaluate("document.querySelector('meta[name=viewer-id]').content")
    owner_id = owner.evaluate("document.querySelector('meta[name=viewer-id]').content")
    mate.goto(f"{base}/w/{workspace}/dm/{owner_id}")
    send(mate, names["dm"])
    # A group of the three, started from the people picker.
    third_id = third.evaluate("document.querySelector('meta[name=viewer-id]').content")
    third.goto(f"{base}/w/{workspace}/dm")
    for person in (owner_id, mate_id):
        third.check(f"#conversation-form input[value='{person}']")
    with third.expect_navigation():
        third.click("#conversation-form button[type=submit]")
    group = third.url.replace(base, "")
    send(third, names["group"])
    # A link with its preview card, in the second channel.
    owner.goto(f"{base}/w/{workspace}")
    second = owner.locator("#home-channels a").nth(1).get_attribute("href")
    owner.goto(base + second)
    send(owner, names["link"].format(serve_article(locale)))
    owner.locator(".link-preview img").wait_for()
    # The owner's phone, signed in from the app: the profile page lists it.
    app_sign_in(base, f"owner-{lang}@example.com", "WorkSpaceX/1.0 (iPhone; iOS 17.5)")

    pages = {
        "workspaces": "/workspaces", "home": f"/w/{workspace}", "channel": general,
        "dm": f"/w/{workspace}/dm/{mate_id}", "members": f"/w/{workspace}/members",
        "channels": f"/w/{workspace}/channels", "search": f"/w/{workspace}/search?q={names['search']}",
        "profile": "/profile", "member": f"/users/{mate_id}", "store": "/store",
        "reactions": f"/w/{workspace}/m/{first}/reactions", "mentions": f"/w/{workspace}/mentions",
        "pins": f"{general}/pins", "saved": f"/w/{workspace}/saved",
        "group": group, "new-conversation": f"/w/{workspace}/dm?member={third_id}", "preview": second,
        "thread": f"/w/{workspace}/m/{first}/thread", "threads": f"/w/{workspace}/threads",
        # Where a message's Delete link leads without a script.
        "delete-message": f"/w/{workspace}/m/{first}/delete",
    }
    owner.goto(f"{base}/w/{workspace}")  # the DM arrives unread
    for name, path in pages.items():
        for width in WIDTHS:
            owner.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
            owner.goto(base + path)
            owner.wait_for_load_state("networkidle")
            owner.screenshot(path=str(out / f"{name}-{lang}-{width}.png"))
    # The group's members, opened from its header.
    for width in WIDTHS:
        owner.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        owner.goto(base + group)
        owner.wait_for_load_state("networkidle")
        # On a phone the room's details are behind its ⋯ button.
        if owner.locator("#room-tools-toggle").is_visible():
            owner.click("#room-tools-toggle")
        owner.click("#group-members summary")
        owner.screenshot(path=str(out / f"group-members-{lang}-{width}.png"))
    # A thread open in the room's side panel (the whole screen on a phone).
    for width in WIDTHS:
        owner.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        owner.goto(base + general)
        owner.wait_for_load_state("networkidle")
        owner.locator(f"#m-{first} .thread-summary").click()
        owner.frame_locator("#thread-panel iframe").locator("#thread-divider").wait_for()
        owner.wait_for_load_state("networkidle")
        owner.screenshot(path=str(out / f"thread-panel-{lang}-{width}.png"))
    # A message's actions, open (on a phone, by a long press).
    for width in WIDTHS:
        owner.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        owner.goto(base + general)
        owner.wait_for_load_state("networkidle")
        message = owner.locator("#message-list li.message").last
        if width < 800:
            message.dispatch_event("contextmenu")
        message.hover()
        message.locator(".message-delete").wait_for()
        owner.screenshot(path=str(out / f"actions-{lang}-{width}.png"))
    # The reaction picker, open over the channel.
    for width in WIDTHS:
        owner.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        owner.goto(base + general)
        owner.wait_for_load_state("networkidle")
        message = owner.locator(f"#m-{first}")
        if width < 800:
            message.dispatch_event("contextmenu")
        message.hover()
        message.locator("a.message-react").click()
        owner.locator("dialog.emoji-picker .emoji-section").nth(2).wait_for()
        owner.screenshot(path=str(out / f"picker-{lang}-{width}.png"))
    # The apps signed in to the account, on the profile page.
    for width in WIDTHS:
        owner.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        owner.goto(base + "/profile")
        owner.locator("#apps-card").scroll_into_view_if_needed()
        owner.screenshot(path=str(out / f"profile-apps-{lang}-{width}.png"))


def take_slack_import(browser, base: str, binary: str, data: str, out: pathlib.Path) -> None:
    """민아 (mina@example.com in the fixture export) signs up, then `wsx-web import slack` brings
    the export into the running server: its #general, the release checklist's thread in the
    side panel, and the page where 이지호 (who had no account) follows the invitation to choose
    a password. Korean only, in Korean time (the export's messages are from March 2024)."""
    owner = browser.new_context(locale="ko-KR", timezone_id="Asia/Seoul").new_page()
    signup(owner, base, "mina@example.com", "민아")
    with tempfile.TemporaryDirectory() as folder:
        archive = pathlib.Path(folder) / "slack-export.zip"
        export = FIXTURES / "slack-export"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as export_zip:
            for file in sorted(export.rglob("*")):
                if file.is_file():
                    export_zip.write(file, file.relative_to(export).as_posix())
        result = subprocess.run([binary, "import", "slack", str(archive), "--workspace", "하늘팀", "--owner", "mina@example.com",
                                 "--data-dir", data], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"the import failed:\n{result.stdout}{result.stderr}")
    workspace = re.search(r'into workspace (\d+) "', result.stdout).group(1)
    owner.goto(f"{base}/w/{workspace}")
    general = owner.locator("#home-channels a", has_text=re.compile(r"^general$")).get_attribute("href")
    owner.goto(base + general)
    first = owner.locator("#message-list li.message").first.get_attribute("data-message")
    root = owner.locator("#message-list li.message", has_text="Release checklist").get_attribute("data-message")
    owner.goto(f"{base}/w/{workspace}/members")
    link = owner.locator("#pending-invites li", has_text="jiho@example.com").locator("input[readonly]").input_value()
    invited = browser.new_context(locale="ko-KR", timezone_id="Asia/Seoul").new_page()
    for width in WIDTHS:
        size = {"width": width, "height": 844 if width < 800 else 800}
        owner.set_viewport_size(size)
        owner.goto(base + general)
        owner.wait_for_load_state("networkidle")
        # From the beginning of the history: the welcome, the checklist with its reactions and thread.
        owner.locator(f"#m-{first}").evaluate("""(message) => {
            // The room's scrolling part on a desktop; on a phone, the page itself.
            let list = message.parentElement;
            while (list && !(list.scrollHeight > list.clientHeight && /auto|scroll/.test(getComputedStyle(list).overflowY))) {
                list = list.parentElement;
            }
            (list || document.scrollingElement).scrollTop = 0;
        }""")
        owner.locator(f"#m-{root} .thread-summary").wait_for()
        owner.screenshot(path=str(out / f"slack-import-ko-{width}.png"))
        owner.locator(f"#m-{root} .thread-summary").click()
        owner.frame_locator("#thread-panel iframe").locator("#thread-divider").wait_for()
        owner.wait_for_load_state("networkidle")
        owner.mouse.move(1, 1)  # no message's actions shown on hover
        owner.screenshot(path=str(out / f"slack-thread-ko-{width}.png"))
        invited.set_viewport_size(size)
        invited.goto(base + re.sub(r"^https?://[^/]+", "", link))
        invited.wait_for_load_state("networkidle")
        invited.screenshot(path=str(out / f"invite-claim-ko-{width}.png"))


def take_administration(browser, base: str, binary: str, data: str, out: pathlib.Path) -> None:
    """Korean: the administrators' pages (accounts with one deactivated, workspaces, the security
    log), two-step sign-in being set up (its QR code) and its recovery codes, and the second
    step of signing in. pyotp stands in for the phone."""
    import pyotp

    admin = browser.new_context(locale="ko-KR", timezone_id="Asia/Seoul").new_page()
    email, gone = "admin@example.com", "leaver@example.com"
    signup(admin, base, email, "관리자")
    leaver = browser.new_context(locale="ko-KR", timezone_id="Asia/Seoul").new_page()
    signup(leaver, base, gone, "퇴사한사람")
    # The leaver's workspace, with the administrator in it to take it over.
    leaver.goto(base + "/workspaces")
    leaver.fill("#create-workspace-form input[name=name]", "마케팅팀")
    leaver.click("#create-workspace-form button[type=submit]")
    leaver.wait_for_url(re.compile(r"/w/\d+$"))
    invite(leaver, admin, base, leaver.url.rsplit("/", 1)[1], email)
    for command in (["user", "promote", "--email", email], ["user", "deactivate", "--email", gone]):
        subprocess.run([binary, *command, "--data-dir", data], check=True, capture_output=True)
    for name, path in {"admin": "/admin", "admin-workspaces": "/admin/workspaces", "admin-log": "/admin/log"}.items():
        for width in WIDTHS:
            admin.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
            admin.goto(base + path)
            admin.wait_for_load_state("networkidle")
            admin.screenshot(path=str(out / f"{name}-ko-{width}.png"), full_page=True)
    admin.goto(base + "/profile/2fa")
    admin.click("#two-step-start-form button[type=submit]")
    admin.wait_for_load_state("networkidle")
    for width in WIDTHS:
        admin.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        admin.reload()
        admin.screenshot(path=str(out / f"two-step-setup-ko-{width}.png"), full_page=True)
    secret = admin.locator("#two-step-secret").text_content().replace(" ", "")
    # The codes are the answer to the form (shown once): the page is sized first.
    admin.set_viewport_size({"width": WIDTHS[0], "height": 844})
    admin.reload()
    admin.fill("#enable-code", pyotp.TOTP(secret).now())
    admin.click("#two-step-enable-form button[type=submit]")
    admin.wait_for_load_state("networkidle")
    for width in WIDTHS:
        admin.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        admin.screenshot(path=str(out / f"two-step-codes-ko-{width}.png"), full_page=True)
    second = browser.new_context(locale="ko-KR", timezone_id="Asia/Seoul").new_page()
    second.goto(base + "/login")
    second.fill("input[name=email]", email)
    second.fill("input[name=password]", PASSWORD)
    second.click("main form button[type=submit]")
    second.wait_for_url(re.compile(r"/login/2fa"))
    for width in WIDTHS:
        second.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        second.reload()
        second.screenshot(path=str(out / f"two-step-login-ko-{width}.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(REPO / ".build/debug/wsx-web"))
    parser.add_argument("--out", default=str(REPO / "docs/screenshots"))
    arguments = parser.parse_args()
    out = pathlib.Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    process, base, data = start(arguments.binary)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
            for locale in NAMES:
                take(browser, base, locale, out)
            take_slack_import(browser, base, arguments.binary, data, out)
            take_administration(browser, base, arguments.binary, data, out)
            browser.close()
    finally:
        process.terminate()
        process.wait()
    print(f"wrote {len(list(out.glob('*.png')))} screenshots to {out}")


if __name__ == "__main__":
    main()
