"""Layout at phone, tablet and desktop widths: no page scrolls sideways."""

import re

import pytest
from playwright.sync_api import Page, expect

from conftest import add_member, create_workspace, open_room_tools, signup, unique_email, unique_name

WIDTHS = (390, 768, 1280)


def wider_than_window(page: Page) -> str | None:
    """What makes the page wider than the window (its width and the widest element), or None."""
    return page.evaluate("""() => {
        const width = document.documentElement.clientWidth;
        if (document.documentElement.scrollWidth <= width) return null;
        const culprits = [...document.querySelectorAll('body *')]
            .filter(element => element.getBoundingClientRect().right > width + 0.5)
            .map(element => `${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''}.${element.className}`);
        return `page ${document.documentElement.scrollWidth} px in a ${width} px window: ${culprits.slice(0, 5).join(', ')}`;
    }""")


@pytest.mark.parametrize("locale", ["ko-KR", "en-US"])
def test_no_main_page_scrolls_sideways_at_any_width(new_context, locale):
    owner = new_context(locale).new_page()
    mate = new_context(locale).new_page()
    owner_email, mate_email = unique_email("owner"), unique_email("mate")
    signup(owner, owner_email, "김민아")
    signup(mate, mate_email, "박지수")
    workspace = create_workspace(owner, unique_name("디자인팀"), "팀의 모든 대화를 한곳에서 나누는 워크스페이스입니다")
    add_member(owner, workspace, mate, mate_email)
    owner.goto(f"/w/{workspace}")
    channel = owner.locator("#home-channels a").first.get_attribute("href")
    owner.goto(channel)
    owner.locator("#composer textarea[name=content]").fill(
        "아주긴한국어단어가끊기지않고계속이어지는경우에도 https://example.com/" + "a" * 120 + " 확인 부탁드려요")
    owner.keyboard.press("Enter")
    expect(owner.locator("#message-list li.message")).to_have_count(1)
    owner.goto(f"/w/{workspace}/members")
    mate_profile = owner.locator("main a", has_text="박지수").first.get_attribute("href")
    mate_id = re.fullmatch(r"/users/(\d+)", mate_profile).group(1)

    pages = ["/workspaces", f"/w/{workspace}", channel, f"/w/{workspace}/dm/{mate_id}", f"/w/{workspace}/members",
             f"/w/{workspace}/channels", f"/w/{workspace}/search?q=%EB%8C%80%ED%99%94", "/store", "/profile",
             f"/w/{workspace}/settings", f"{channel}/settings", mate_profile]
    problems = []
    for width in WIDTHS:
        owner.set_viewport_size({"width": width, "height": 844})
        for path in pages:
            owner.goto(path)
            if problem := wider_than_window(owner):
                problems.append(f"{path} at {width}: {problem}")
    assert not problems, "\n".join(problems)


def test_sidebar_rows_carry_their_badge_at_the_right_and_unread_rooms_are_bold(new_context):
    owner = new_context("ko-KR").new_page()
    mate = new_context("ko-KR").new_page()
    mate_email = unique_email("mate")
    signup(owner, unique_email("owner"), "김민아")
    signup(mate, mate_email, "박지수")
    workspace = create_workspace(owner, unique_name("팀"))
    add_member(owner, workspace, mate, mate_email)
    mate.goto(f"/w/{workspace}")
    channel = mate.locator("#home-channels a").first.get_attribute("href")
    # Every message of the channel counts for the owner (at the default level, plain messages
    # make the room bold without a number).
    owner.goto(channel)
    open_room_tools(owner)
    owner.select_option("#notify-level", "all")
    expect(owner.locator(f"#sidebar-channels a[href='{channel}']")).to_have_attribute("data-notify", "all")
    owner.goto(f"/w/{workspace}")  # not reading the channel while the mate writes
    mate.goto(channel)
    mate.locator("#composer textarea[name=content]").fill("읽지 않은 메시지")
    mate.keyboard.press("Enter")
    expect(mate.locator("#message-list li.message")).to_have_count(1)
    mate.goto(f"/w/{workspace}/members")
    mate.locator("main a", has_text="DM").first.click()
    mate.locator("#composer textarea[name=content]").fill("DM 하나")
    mate.keyboard.press("Enter")
    expect(mate.locator("#message-list li.message")).to_have_count(1)

    for width in (390, 1280):
        owner.set_viewport_size({"width": width, "height": 844})
        owner.goto(f"/w/{workspace}")
        row = owner.locator(f"#sidebar-channels a[href='{channel}']")
        badge = row.locator(".badge")
        expect(badge).to_have_text("1")
        link_box, badge_box, name_box = row.bounding_box(), badge.bounding_box(), row.locator(".room-name").bounding_box()
        # Inside its own row, at its right end, on the name's line.
        assert link_box["y"] <= badge_box["y"] and badge_box["y"] + badge_box["height"] <= link_box["y"] + link_box["height"]
        assert link_box["x"] + link_box["width"] - (badge_box["x"] + badge_box["width"]) < 16
        assert abs((badge_box["y"] + badge_box["height"] / 2) - (name_box["y"] + name_box["height"] / 2)) < 6
        assert int(row.evaluate("a => getComputedStyle(a).fontWeight")) >= 700
        # A DM shows its person (the first syllable of their given name here), not "#".
        dm = owner.locator("#sidebar-dms a", has_text="박지수")
        expect(dm.locator(".avatar")).to_have_text("지")
        assert dm.evaluate("a => getComputedStyle(a, '::before').content") in ("none", "normal")

    # The tab: the workspace's unread count leads the title, and the icon has its dot; a new
    # message raises both live.
    expect(owner).to_have_title(re.compile(r"^\(2\) "))
    assert "favicon-unread" in owner.locator("link[rel=icon]").get_attribute("href")
    mate.locator("#composer textarea[name=content]").fill("DM 둘")
    mate.keyboard.press("Enter")
    expect(owner).to_have_title(re.compile(r"^\(3\) "))

    owner.goto(channel)
    owner.goto(f"/w/{workspace}")
    expect(owner).to_have_title(re.compile(r"^\(2\) "))
    row = owner.locator(f"#sidebar-channels a[href='{channel}']")
    expect(row.locator(".badge")).to_be_hidden()
    assert int(row.evaluate("a => getComputedStyle(a).fontWeight")) < 700


def on_screen(page: Page, selector: str) -> bool:
    """Whether the element is visible and inside the window."""
    return page.evaluate("""(selector) => {
        const element = document.querySelector(selector);
        if (!element || getComputedStyle(element).visibility === 'hidden') return false;
        const box = element.getBoundingClientRect();
        return box.width > 0 && box.right > 0 && box.left < window.innerWidth;
    }""", selector)


def wait_on_screen(page: Page, selector: str, shown: bool) -> None:
    """Waits out the drawer's slide until the element is (or is not) on screen."""
    for _ in range(40):
        if on_screen(page, selector) == shown:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{selector} {'never came' if shown else 'never left'} on screen")


def test_on_a_phone_the_sidebar_is_a_drawer_behind_the_menu_button(new_context, browser, server):
    page = new_context("ko-KR").new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    signup(page, unique_email("drawer"), "김민아")
    workspace = create_workspace(page, unique_name("디자인팀"))
    page.goto(f"/w/{workspace}")
    channel = page.locator("#home-channels a").first.get_attribute("href")
    page.goto(channel)

    # The room fills the screen: the composer is in the first screen, the sidebar is not.
    assert not on_screen(page, "#sidebar")
    composer_box = page.locator("#composer").bounding_box()
    assert composer_box["y"] + composer_box["height"] <= 844, composer_box
    menu = page.locator("#menu-button")
    expect(menu).to_be_visible()
    expect(menu).to_have_accessible_name("메뉴")

    # Open: the drawer shows, focus is on the room being viewed; Esc closes and gives focus back.
    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    wait_on_screen(page, "#sidebar", True)
    expect(page.locator("#sidebar a[aria-current=page]").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_focused()
    wait_on_screen(page, "#sidebar", False)

    # The scrim and the close button close it too; a link in it goes there, closed.
    menu.click()
    page.locator("#drawer-scrim").click(position={"x": 370, "y": 400})
    expect(menu).to_have_attribute("aria-expanded", "false")
    menu.click()
    page.locator("#drawer-close").click()
    expect(menu).to_be_focused()
    menu.click()
    with page.expect_navigation():
        page.locator("#sidebar a", has_text="새 워크스페이스").click()
    assert not on_screen(page, "#sidebar")

    # On a desktop there is no menu button: the sidebar is beside the page.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(channel)
    expect(menu).to_be_hidden()
    assert on_screen(page, "#sidebar")

    # Without JavaScript the button is a link to the drawer, and its close link closes it.
    plain = browser.new_context(base_url=server, locale="ko-KR", java_script_enabled=False,
                                viewport={"width": 390, "height": 844})
    try:
        cookies = page.context.cookies()
        plain.add_cookies(cookies)
        no_js = plain.new_page()
        no_js.goto(channel)
        assert not on_screen(no_js, "#sidebar")
        no_js.locator("#menu-button").click()
        wait_on_screen(no_js, "#sidebar", True)
        no_js.locator("#drawer-close").click()
        wait_on_screen(no_js, "#sidebar", False)
    finally:
        plain.close()
