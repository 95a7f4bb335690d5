"""The composer and the keyboard: focus when a room opens, ↑ to edit one's last message in
place (Enter saves, Shift+Enter is a new line, Esc cancels, IME-safe), drafts kept per room
until sent and forgotten on sign-out."""

import pytest
from playwright.sync_api import Page, expect

from conftest import (
    composer, create_workspace, login, logout, messages_with, path_of, set_width, signup, submit, unique_email,
    unique_name, wait_until_live,
)


def open_room(page: Page) -> str:
    workspace = create_workspace(page, unique_name("팀"))
    page.goto(f"/w/{workspace}")
    channel = page.locator("#home-channels a").first.get_attribute("href")
    page.goto(channel)
    wait_until_live(page)
    return channel


def send(page: Page, text: str) -> None:
    count = page.locator("#message-list li.message").count()
    box = composer(page)
    box.fill(text)
    box.press("Enter")
    expect(page.locator("#message-list li.message")).to_have_count(count + 1)
    # Sent and answered (the live event may show the message before the answer clears the box).
    expect(box).to_have_value("")


def test_the_composer_has_the_cursor_when_a_room_opens(new_context):
    page = new_context("ko-KR").new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    signup(page, unique_email("focus"), "김민아")
    channel = open_room(page)
    expect(composer(page)).to_be_focused()
    send(page, "첫 메시지")
    message_id = page.locator("#message-list li.message").first.get_attribute("data-message")
    # Opened at a message, the page shows that message; the cursor does not jump away.
    page.goto(f"{channel}?around={message_id}#m-{message_id}")
    expect(composer(page)).not_to_be_focused()


@pytest.mark.parametrize("width", [390, 1280])
def test_up_arrow_edits_the_last_own_message_in_place(new_context, width):
    page = new_context("ko-KR").new_page()
    page.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
    signup(page, unique_email("edit"), "김민아")
    open_room(page)
    send(page, "**첫** 메시지")
    send(page, "두 번째")
    last = page.locator("#message-list li.message").last

    # ↑ in the empty composer: the last message's text as written, in place.
    composer(page).press("ArrowUp")
    box = last.locator(".edit-form textarea")
    expect(box).to_be_focused()
    expect(box).to_have_value("두 번째")
    expect(last.locator(".edit-hint")).to_have_text("Enter로 저장 · Shift+Enter로 줄바꿈 · Esc로 취소")

    # Esc cancels: nothing changed, back in the composer.
    box.press("End")
    box.type(" 바뀌지 않음")
    box.press("Escape")
    expect(last.locator(".edit-form")).to_have_count(0)
    expect(last.locator(".message-body")).to_have_text("두 번째")
    expect(composer(page)).to_be_focused()

    # Shift+Enter is a new line; an Enter that ends a Hangul syllable saves nothing; Enter saves.
    composer(page).press("ArrowUp")
    box = last.locator(".edit-form textarea")
    box.press("End")
    box.press("Shift+Enter")
    box.type("**고침**")
    box.evaluate("""(el) => el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', isComposing: true,
                                                                   bubbles: true, cancelable: true}))""")
    page.wait_for_timeout(500)
    expect(box).to_be_visible()
    box.press("Enter")
    expect(last.locator(".edit-form")).to_have_count(0)
    expect(last.locator(".message-body strong")).to_have_text("고침")
    assert last.locator(".message-body").inner_text() == "두 번째\n고침"
    expect(last.locator("[data-edited]")).to_have_count(1)

    # The first message's edit link opens its Markdown source, not the formatted text.
    first = page.locator("#message-list li.message").first
    first.hover()
    first.locator(".message-edit").click()
    expect(first.locator(".edit-form textarea")).to_have_value("**첫** 메시지")


def test_drafts_survive_a_reload_until_sent_and_are_forgotten_on_sign_out(new_context):
    page = new_context("ko-KR").new_page()
    email = unique_email("draft")
    signup(page, email, "김민아")
    channel = open_room(page)

    composer(page).fill("쓰다 만 초안")
    composer(page).dispatch_event("input")
    page.wait_for_timeout(400)
    page.reload()
    expect(composer(page)).to_have_value("쓰다 만 초안")
    composer(page).press("Enter")
    expect(messages_with(page, "쓰다 만 초안")).to_have_count(1)
    page.reload()
    expect(composer(page)).to_have_value("")

    composer(page).fill("다른 사람이 보면 안 되는 초안")
    composer(page).dispatch_event("input")
    page.wait_for_timeout(400)
    logout(page)
    login(page, email)
    page.goto(channel)
    expect(composer(page)).to_have_value("")
    # Nothing written before signing out is left (viewing the channel again notes it as recent).
    assert page.evaluate(
        "Object.keys(localStorage).filter((key) => /^wsx-(draft|unsent|push):/.test(key)).length") == 0


@pytest.mark.parametrize("width", [390, 1280])
def test_a_draft_survives_an_immediate_switch_and_sign_in_opens_the_last_room(new_context, width):
    page = new_context("ko-KR").new_page()
    set_width(page, width)
    email = unique_email("where")
    signup(page, email, "김민아")
    general = open_room(page)
    workspace = int(general.split("/")[2])
    page.goto(f"/w/{workspace}/channels")
    page.fill("#create-channel-form input[name=name]", unique_name("디자인"))
    submit(page, "#create-channel-form")
    other = path_of(page)
    assert other.startswith(f"/w/{workspace}/c/") and other != general, other

    # Typed and gone at once, by a link: nothing waits for a pause in typing.
    page.goto(general)
    wait_until_live(page)
    composer(page).press_sequentially("바로 옮겨도 남는 초안")
    # The last change without an input event yet (as an IME's unfinished syllable): the page
    # going away saves it.
    composer(page).evaluate("el => { el.value += ' 끝'; }")
    page.evaluate("href => { location.href = href; }", other)
    page.wait_for_url(f"**{other}")
    expect(composer(page)).to_have_value("")
    page.goto(general)
    expect(composer(page)).to_have_value("바로 옮겨도 남는 초안 끝")

    # Signing in again opens the room viewed last, not the list of workspaces.
    page.goto(other)
    wait_until_live(page)
    logout(page)
    login(page, email)
    assert page.url.endswith(other), page.url
    expect(page.locator("#composer")).to_be_visible()
    page.goto("/")
    assert page.url.endswith(other), page.url
