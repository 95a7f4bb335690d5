"""Reactions, as two teammates use them in Korean at phone and desktop widths: the picker
(search by Korean and English names, recently used), toggling a reaction in place, each
teammate's tab updating live with their own reactions marked, who reacted on hover and focus,
and the page that does the same without JavaScript."""

import pytest
from playwright.sync_api import Page, expect

from conftest import (
    composer, create_workspace, korean_pair, messages_with, set_width, signup, unique_email, unique_name, wait_until_live,
)


def first_channel(page: Page, workspace: int) -> str:
    """The workspace's default channel (named in the creator's language)."""
    page.goto(f"/w/{workspace}")
    return page.locator("#home-channels a").first.get_attribute("href")


def posted_without_javascript(browser, server, width: int, text: str):
    """A Korean browser without JavaScript, signed up with a workspace, that posted `text` to
    its default channel by the plain form. Returns (context, page); close the context."""
    context = browser.new_context(base_url=server, locale="ko-KR", java_script_enabled=False,
                                  extra_http_headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    page = context.new_page()
    set_width(page, width)
    signup(page, unique_email("nojs"), "민아")
    workspace = create_workspace(page, unique_name("팀"))
    page.goto(first_channel(page, workspace))
    composer(page).fill(text)
    with page.expect_navigation():
        page.locator("#composer button[type=submit]").click()
    return context, page


def team(new_context, width: int):
    """민아 posted in the default channel; Bob has it open."""
    mina, bob, _, channel = korean_pair(new_context, width)
    composer(mina).fill("내일 회의는 3시입니다")
    composer(mina).press("Enter")
    expect(messages_with(mina, "내일 회의는 3시입니다")).to_have_count(1)
    bob.goto(channel)
    wait_until_live(bob)
    return mina, bob, channel


def open_actions(page: Page, message, width: int) -> None:
    """Shows a message's actions the way a person would: hover on a desktop, long press on a phone."""
    if width < 800:
        message.dispatch_event("contextmenu")
    message.hover()


@pytest.mark.parametrize("width", [390, 1280])
def test_react_from_the_picker_and_see_it_live_on_the_teammates_tab(new_context, width):
    mina, bob, _ = team(new_context, width)
    message = messages_with(bob, "내일 회의는 3시입니다")
    open_actions(bob, message, width)
    message.locator("a.message-react").click()

    picker = bob.locator("dialog.emoji-picker")
    expect(picker).to_be_visible()
    search = picker.locator("input.emoji-search")
    expect(search).to_be_focused()
    # Korean names find emoji: 좋아요 is 👍.
    search.fill("좋아요")
    expect(picker.locator(".emoji-section")).to_have_count(1)
    expect(picker.locator(".emoji-section-title")).to_have_text("이모지 검색")
    expect(picker.locator("button.emoji-choice").first).to_have_text("👍")
    search.press("Enter")
    expect(picker).to_be_hidden()

    chip = message.locator("form.reactions button.reaction")
    expect(chip).to_have_count(1)
    expect(chip).to_have_attribute("aria-pressed", "true")
    expect(chip.locator(".reaction-count")).to_have_text("1")

    # 민아's tab shows it live, not pressed (it is Bob's), with who reacted.
    theirs = messages_with(mina, "내일 회의는 3시입니다").locator("form.reactions button.reaction")
    expect(theirs).to_have_count(1)
    expect(theirs).to_have_attribute("aria-pressed", "false")
    expect(theirs).to_have_attribute("data-who", "Bob")

    # 민아 adds hers by pressing the chip: both tabs count two, each marks only their own.
    theirs.click()
    expect(theirs.locator(".reaction-count")).to_have_text("2")
    expect(theirs).to_have_attribute("aria-pressed", "true")
    expect(chip.locator(".reaction-count")).to_have_text("2")
    expect(chip).to_have_attribute("data-who", "Bob, 민아")

    # Bob takes his back.
    chip.click()
    expect(chip).to_have_attribute("aria-pressed", "false")
    expect(theirs.locator(".reaction-count")).to_have_text("1")
    expect(theirs).to_have_attribute("data-who", "민아")

    # The last one taken back: nothing left under the message on either tab.
    theirs.click()
    expect(messages_with(mina, "내일 회의는 3시입니다").locator("form.reactions")).to_have_count(0)
    expect(message.locator("form.reactions")).to_have_count(0)
    assert mina.locator("html").evaluate("() => window.__wsxSameDocument === true")


def test_picker_search_by_shortcode_recently_used_and_keyboard(new_context):
    mina, bob, _ = team(new_context, 1280)
    message = messages_with(bob, "내일 회의는 3시입니다")
    message.hover()
    link = message.locator("a.message-react")
    link.click()
    picker = bob.locator("dialog.emoji-picker")
    search = picker.locator("input.emoji-search")
    # An English shortcode works in a Korean UI too; the grid is reached with ↓ and chosen with Enter.
    search.fill(":tada:")
    expect(picker.locator("button.emoji-choice").first).to_have_text("🎉")
    search.press("ArrowDown")
    expect(picker.locator("button.emoji-choice").first).to_be_focused()
    bob.keyboard.press("Enter")
    expect(picker).to_be_hidden()
    expect(message.locator("button.reaction")).to_have_text("🎉 1")
    # Focus goes back to where the picker was opened from.
    expect(link).to_be_focused()

    # Opened again: the emoji just used leads the list, under "최근 사용".
    link.click()
    expect(picker.locator(".emoji-section-title").first).to_have_text("최근 사용")
    expect(picker.locator(".emoji-section").first.locator("button.emoji-choice").first).to_have_text("🎉")
    # Nothing found says so; Esc closes.
    search.fill("zzzzqqq")
    expect(picker.locator(".emoji-picker-status")).to_have_text("찾는 이모지가 없습니다.")
    bob.keyboard.press("Escape")
    expect(picker).to_be_hidden()


def test_who_reacted_shows_on_keyboard_focus(new_context):
    mina, bob, _ = team(new_context, 1280)
    message = messages_with(bob, "내일 회의는 3시입니다")
    message.hover()
    message.locator("a.message-react").click()
    bob.locator("dialog.emoji-picker input.emoji-search").fill("red heart")
    bob.locator("dialog.emoji-picker input.emoji-search").press("Enter")
    chip = message.locator("button.reaction")
    expect(chip).to_have_attribute("aria-label", "❤️ 1: Bob")
    chip.focus()
    bob.keyboard.press("Shift+Tab")
    bob.keyboard.press("Tab")
    tooltip = chip.evaluate("el => getComputedStyle(el, '::after').content")
    assert tooltip == '"Bob"', tooltip


@pytest.mark.parametrize("width", [390, 1280])
def test_without_javascript_the_react_link_opens_a_page_of_common_reactions(browser, server, width):
    context, page = posted_without_javascript(browser, server, width, "스크립트 없이")
    try:
        message = messages_with(page, "스크립트 없이")
        message.hover()
        with page.expect_navigation():
            message.locator("a.message-react").click()
        expect(page.locator("main h1")).to_have_text("반응")
        with page.expect_navigation():
            page.locator("#reaction-choices button", has_text="올린 엄지").click()
        # Back at the message, with the reaction pressed; pressing it takes it back.
        chip = messages_with(page, "스크립트 없이").locator("button.reaction")
        expect(chip).to_have_text("👍 1")
        expect(chip).to_have_attribute("aria-pressed", "true")
        with page.expect_navigation():
            chip.click()
        expect(messages_with(page, "스크립트 없이").locator("button.reaction")).to_have_count(0)
        # Any other emoji can be typed in; anything else is refused with a message.
        messages_with(page, "스크립트 없이").hover()
        with page.expect_navigation():
            messages_with(page, "스크립트 없이").locator("a.message-react").click()
        page.locator("#reaction-other").fill("안녕")
        with page.expect_navigation():
            page.locator("#reaction-other-form button").click()
        expect(page.locator("main .form-error")).to_have_text("이모지 하나를 골라 주세요.")
        page.locator("#reaction-other").fill("🦄")
        with page.expect_navigation():
            page.locator("#reaction-other-form button").click()
        expect(messages_with(page, "스크립트 없이").locator("button.reaction")).to_have_text("🦄 1")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()
