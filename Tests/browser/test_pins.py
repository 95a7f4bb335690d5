"""Pins and saved messages, as two teammates use them in Korean at phone and desktop widths:
pinning marks the message and counts it in the header on both tabs at once, the header's link
lists the room's pins, saving is the saver's alone (their other tab follows), the Saved view,
and the same without JavaScript."""

import pytest
from playwright.sync_api import Page, expect

from conftest import messages_with, open_room_tools, set_width, wait_until_live
from test_reactions import open_actions, posted_without_javascript, team


def no_sideways_scroll(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [390, 1280])
def test_pin_shows_on_both_tabs_and_in_the_header_list(new_context, width):
    mina, bob, channel = team(new_context, width)
    message = messages_with(bob, "내일 회의는 3시입니다")
    expect(bob.locator("#pins-link")).to_be_hidden()
    open_actions(bob, message, width)
    pin = message.locator("button.message-pin")
    expect(pin).to_have_text("고정")
    pin.click()
    expect(message.locator(".flag-pinned")).to_have_text("📌 고정됨")
    expect(pin).to_have_text("고정 해제")
    expect(pin).to_have_attribute("aria-pressed", "true")
    expect(bob.locator("#pins-link .pins-count")).to_have_text("고정 1개")

    # 민아's tab follows without a reload.
    theirs = messages_with(mina, "내일 회의는 3시입니다")
    expect(theirs.locator(".flag-pinned")).to_have_text("📌 고정됨")
    open_room_tools(mina)
    expect(mina.locator("#pins-link")).to_be_visible()
    expect(mina.locator("#pins-link .pins-count")).to_have_text("고정 1개")
    no_sideways_scroll(mina, width)

    # The header's link lists the room's pins, with the way back to the message.
    mina.locator("#pins-link").click()
    expect(mina.locator("main h1")).to_contain_text("고정된 메시지")
    items = mina.locator("#pin-list li")
    expect(items).to_have_count(1)
    expect(items.first.locator(".message-body")).to_have_text("내일 회의는 3시입니다")
    no_sideways_scroll(mina, width)
    items.first.locator(".collection-open a").click()
    expect(mina.locator("li.message.highlighted")).to_have_count(1)

    # Unpinning on one tab takes the mark and the count away on the other.
    open_actions(bob, message, width)
    pin.click()
    expect(message.locator(".flag-pinned")).to_have_count(0)
    wait_until_live(mina)
    expect(messages_with(mina, "내일 회의는 3시입니다").locator(".flag-pinned")).to_have_count(0)
    expect(mina.locator("#pins-link")).to_be_hidden()


@pytest.mark.parametrize("width", [390, 1280])
def test_saved_is_mine_and_follows_to_my_other_tab(new_context, width):
    mina, bob, channel = team(new_context, width)
    other_tab = bob.context.new_page()
    set_width(other_tab, width)
    other_tab.goto(channel)
    # A second tab follows the first one's event stream; its script has run once it drew the buttons.
    expect(messages_with(other_tab, "내일 회의는 3시입니다").locator("button.message-save")).to_have_count(1)

    message = messages_with(bob, "내일 회의는 3시입니다")
    open_actions(bob, message, width)
    message.locator("button.message-save").click()
    expect(message.locator(".flag-saved")).to_have_text("🔖 저장됨")
    expect(messages_with(other_tab, "내일 회의는 3시입니다").locator(".flag-saved")).to_have_text("🔖 저장됨")
    expect(messages_with(other_tab, "내일 회의는 3시입니다").locator("button.message-save")).to_have_text("저장 취소")
    # 민아 does not see Bob's saved mark.
    mina.reload()
    expect(messages_with(mina, "내일 회의는 3시입니다")).to_have_count(1)
    expect(messages_with(mina, "내일 회의는 3시입니다").locator(".flag-saved")).to_have_count(0)

    # The sidebar's Saved view lists it; removing it there empties the list.
    if width < 800:
        bob.locator("#menu-button").click()
    bob.locator("#sidebar-saved").click()
    expect(bob.locator("main h1")).to_have_text("저장한 메시지")
    expect(bob.locator("#saved-list li")).to_have_count(1)
    expect(bob.locator("#saved-list .collection-where")).to_contain_text("민아")
    no_sideways_scroll(bob, width)
    bob.locator("#saved-list .collection-remove button").click()
    expect(bob.locator("#saved-list li")).to_have_count(0)
    expect(bob.locator("#saved-list-empty")).to_be_visible()
    # The other tab hears it too.
    expect(messages_with(other_tab, "내일 회의는 3시입니다").locator(".flag-saved")).to_have_count(0)


@pytest.mark.parametrize("width", [390, 1280])
def test_without_javascript_pin_and_save_from_the_message_page(browser, server, width):
    context, page = posted_without_javascript(browser, server, width, "고정할 공지")
    try:
        message = messages_with(page, "고정할 공지")
        message.hover()
        with page.expect_navigation():
            message.locator("a.message-react").click()
        with page.expect_navigation():
            page.locator("button.message-pin").click()
        expect(page.locator("button.message-pin")).to_have_text("고정 해제")
        with page.expect_navigation():
            page.locator("button.message-save").click()
        expect(page.locator("button.message-save")).to_have_text("저장 취소")
        no_sideways_scroll(page, width)
        with page.expect_navigation():
            page.locator("main a", has_text="대화로 돌아가기").click()
        flags = messages_with(page, "고정할 공지").locator(".message-flags")
        expect(flags).to_have_text("📌 고정됨🔖 저장됨")
        expect(page.locator("#pins-link .pins-count")).to_have_text("고정 1개")
        no_sideways_scroll(page, width)
    finally:
        context.close()
