"""Accessibility: axe-core (bundled by axe-playwright-python) finds no serious or critical
violation on the main pages, in Korean and in English, at phone and desktop widths."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from conftest import REPO, add_member, create_workspace, signup, unique_email, unique_name, open_room_tools

AXE = Axe()
FIXTURES = REPO / "Tests" / "Fixtures"


def serious_violations(page: Page) -> list[str]:
    """Each serious or critical violation: its rule, and the first elements it names."""
    results = AXE.run(page)
    problems = []
    for violation in results.response["violations"]:
        if violation["impact"] not in ("serious", "critical"):
            continue
        targets = [", ".join(node["target"]) for node in violation["nodes"][:3]]
        problems.append(f"{violation['id']} ({violation['impact']}): {violation['help']} — {targets}")
    return problems


@pytest.mark.parametrize("locale", ["ko-KR", "en-US"])
def test_main_pages_have_no_serious_accessibility_violations(new_context, locale):
    owner = new_context(locale).new_page()
    mate = new_context(locale).new_page()
    signup(owner, unique_email("owner"), "김민아")
    mate_email = unique_email("mate")
    signup(mate, mate_email, "박지수")
    workspace = create_workspace(owner, unique_name("디자인팀"), "팀의 모든 대화")
    add_member(owner, workspace, mate, mate_email)
    owner.goto(f"/w/{workspace}")
    channel = owner.locator("#home-channels a").first.get_attribute("href")
    owner.goto(channel)
    owner.set_input_files("#composer-files", [str(FIXTURES / "photo.jpg"), str(FIXTURES / "doc.pdf")])
    owner.locator("#composer textarea[name=content]").fill("@박지수 회의 자료입니다")
    owner.locator("#composer textarea[name=content]").press("Enter")
    expect(owner.locator("#message-list li.message")).to_have_count(1)
    # A reaction under it, so the channel page shows one.
    message_id = owner.locator("#message-list li.message").first.get_attribute("data-message")
    owner.evaluate("""async (url) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        await fetch(url, {method: 'POST', body: new URLSearchParams({_csrf: token, emoji: '👍'}),
                          headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
    }""", f"/w/{workspace}/m/{message_id}/reactions")
    # Pinned and saved, so the channel shows both marks and the Pins and Saved views list it.
    for action in ("pin", "save"):
        owner.evaluate("""async (url) => {
            const token = document.querySelector('meta[name=csrf-token]').content;
            await fetch(url, {method: 'POST', body: new URLSearchParams({_csrf: token}),
                              headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
        }""", f"/w/{workspace}/m/{message_id}/{action}")
    # A reply in its thread, so the channel shows the thread's line and the Threads view lists it.
    owner.evaluate("""async (url) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        await fetch(url, {method: 'POST', body: new URLSearchParams({_csrf: token, content: '스레드 답글입니다'}),
                          headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
    }""", f"/w/{workspace}/m/{message_id}/replies")
    # A group of the three, started from the people picker.
    third = new_context(locale).new_page()
    third_email = unique_email("third")
    signup(third, third_email, "이서준")
    add_member(owner, workspace, third, third_email)
    owner.goto(f"/w/{workspace}/dm")
    for checkbox in owner.locator("#conversation-form input[name=member]").all():
        checkbox.check()
    with owner.expect_navigation():
        owner.locator("#conversation-form button[type=submit]").click()
    group = re.sub(r"^https?://[^/]+", "", owner.url)
    # Muted rooms: the channel (selected on its own page) and the group; a mention in the muted
    # channel still badges it on the pages visited before it.
    for path in (channel, group):
        owner.goto(path)
        open_room_tools(owner)
        owner.select_option("#notify-level", "mute")
        expect(owner.locator(f"#sidebar li.muted a[href='{path}']")).to_have_count(1)
    mate.goto(channel)
    mate.evaluate("""async (url) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        await fetch(url, {method: 'POST', body: new URLSearchParams({_csrf: token, content: '@김민아 확인 부탁드려요'}),
                          headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
    }""", f"{channel}/messages")
    owner.goto(f"/w/{workspace}/members")
    mate_profile = owner.locator("main a", has_text="박지수").first.get_attribute("href")
    mate_id = re.fullmatch(r"/users/(\d+)", mate_profile).group(1)

    pages = ["/workspaces", f"/w/{workspace}", channel, f"/w/{workspace}/dm/{mate_id}", f"/w/{workspace}/members",
             f"/w/{workspace}/channels", f"/w/{workspace}/search?q=%ED%9A%8C%EC%9D%98", "/store", "/profile",
             f"/w/{workspace}/settings", f"{channel}/settings", mate_profile, f"/w/{workspace}/mentions",
             f"/w/{workspace}/m/{message_id}/reactions", f"{channel}/pins", f"/w/{workspace}/saved",
             f"/w/{workspace}/dm", group, f"/w/{workspace}/m/{message_id}/thread",
             f"/w/{workspace}/m/{message_id}/thread?panel=1", f"/w/{workspace}/threads"]
    problems = []
    for width in (390, 1280):
        owner.set_viewport_size({"width": width, "height": 844})
        for path in pages:
            owner.goto(path)
            problems += [f"{path} at {width}: {problem}" for problem in serious_violations(owner)]
    signed_out = new_context(locale).new_page()
    for path in ("/login", "/signup", "/reset"):
        signed_out.goto(path)
        problems += [f"{path} (signed out): {problem}" for problem in serious_violations(signed_out)]
    assert not problems, "\n".join(problems)
