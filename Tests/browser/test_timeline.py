"""A timeline that reads like Slack's, on a desktop and a phone: a run of one author's messages
shows one avatar and name (the time on hover), avatars without a photo get their own colour and
letters; the ↑-edit box stays above the composer; on a phone Enter is a new line and the send
button sends, a long press opens the actions under the message (covering nothing); a file
dropped anywhere on the room attaches to the message being written."""

import pytest
from playwright.sync_api import Page, expect

from conftest import (
    add_member, composer, create_workspace, messages_with, signup, unique_email, unique_name, wait_until_live,
)


def phone_or_desktop(new_context, width: int) -> Page:
    if width < 800:
        page = new_context("ko-KR", has_touch=True, is_mobile=True, viewport={"width": width, "height": 844}).new_page()
    else:
        page = new_context("ko-KR").new_page()
        page.set_viewport_size({"width": width, "height": 800})
    return page


def pair(new_context, width: int) -> tuple[Page, Page, str]:
    mina = phone_or_desktop(new_context, width)
    signup(mina, unique_email("timeline"), "김민아")
    workspace = create_workspace(mina, unique_name("팀"))
    bob = phone_or_desktop(new_context, width)
    email = unique_email("timeline-mate")
    signup(bob, email, "박서준")
    add_member(mina, workspace, bob, email)
    mina.goto(f"/w/{workspace}")
    channel = mina.locator("#home-channels a").first.get_attribute("href")
    for page in (mina, bob):
        page.goto(channel)
        wait_until_live(page)
    return mina, bob, channel


def post(page: Page, text: str) -> None:
    """Sends `text` from the composer, with the send button (a phone's way, and a desktop's)."""
    composer(page).fill(text)
    page.locator("#composer button[type=submit]").click()
    expect(messages_with(page, text)).to_have_count(1)
    expect(composer(page)).to_have_value("")


@pytest.mark.parametrize("width", [390, 1280])
def test_a_run_of_one_authors_messages_is_grouped_with_one_coloured_avatar(new_context, width):
    mina, bob, channel = pair(new_context, width)
    for text in ("회의 자료 올렸어요", "3쪽부터 보시면 됩니다", "질문은 스레드로"):
        post(mina, text)
    post(bob, "확인했습니다")
    for page in (bob, mina):
        for reloaded in (False, True):
            if reloaded:
                page.reload()
                wait_until_live(page)
            messages = page.locator("#message-list li.message")
            expect(messages).to_have_count(4)
            classes = [messages.nth(i).get_attribute("class") for i in range(4)]
            assert classes == ["message", "message message-continued", "message message-continued", "message"], classes
            # One avatar for the run, in 민아's colour with her given name; Bob's another colour.
            expect(messages.nth(0).locator("span.avatar")).to_have_text("민아")
            expect(messages.nth(1).locator("span.avatar")).to_be_hidden()
            expect(messages.nth(1).locator(".message-author")).to_have_text("김민아")   # for screen readers
            colours = [messages.nth(i).locator("span.avatar").evaluate("a => getComputedStyle(a).backgroundColor") for i in (0, 3)]
            assert colours[0] != colours[1] and "255, 255, 255" not in colours[0], colours
    if width >= 800:
        # The grouped line's time shows on hover.
        second = bob.locator("#message-list li.message").nth(1)
        time = second.locator(".message-time")
        assert time.evaluate("t => getComputedStyle(t).opacity") == "0"
        second.hover()
        expect(time).to_have_css("opacity", "1")
    assert bob.evaluate("document.documentElement.scrollWidth") <= width


def test_the_up_arrow_edit_box_stays_above_the_composer(new_context):
    mina, _, _ = pair(new_context, 1280)
    for i in range(12):
        post(mina, f"긴 이야기 {i} " + "내용을 적습니다 " * 6)
    box = composer(mina)
    box.click()
    box.press("ArrowUp")
    form = mina.locator("#message-list .edit-form")
    expect(form).to_be_visible()
    save = form.locator("button[type=submit]")
    expect(save).to_be_visible()
    assert save.bounding_box()["y"] + save.bounding_box()["height"] <= mina.locator("#composer").bounding_box()["y"] + 1


def test_on_a_phone_enter_is_a_new_line_and_the_long_press_actions_cover_nothing(new_context):
    mina, bob, _ = pair(new_context, 390)
    box = composer(mina)
    expect(box).to_have_attribute("placeholder", "메시지 입력 (보내기 버튼으로 전송)")
    box.click()
    box.type("첫째 줄")
    box.press("Enter")
    box.type("둘째 줄")
    expect(box).to_have_value("첫째 줄\n둘째 줄")
    expect(mina.locator("#message-list li.message")).to_have_count(0)
    mina.locator("#composer button[type=submit]").click()
    sent = messages_with(mina, "둘째 줄")
    expect(sent).to_have_count(1)
    expect(sent.locator(".message-body br")).to_have_count(1)   # the two lines, as typed

    # A long press on Bob's phone opens the actions under the message, not over its words.
    theirs = messages_with(bob, "둘째 줄")
    expect(theirs).to_have_count(1)
    theirs.locator(".message-body").dispatch_event("contextmenu")
    actions = theirs.locator(".message-actions")
    expect(actions).to_be_visible()
    body = theirs.locator(".message-body").bounding_box()
    assert actions.bounding_box()["y"] >= body["y"] + body["height"] - 1, (actions.bounding_box(), body)
    assert bob.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_file_dropped_anywhere_on_the_room_attaches_to_the_message(new_context):
    mina, _, channel = pair(new_context, 1280)
    mina.evaluate("""() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(['회의록 내용'], '회의록.txt', {type: 'text/plain'}));
        const target = document.getElementById('message-list');
        for (const type of ['dragenter', 'dragover', 'drop']) {
            target.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: transfer}));
        }
    }""")
    expect(mina.locator("#file-chips li")).to_have_count(1)
    expect(mina.locator("#file-chips")).to_contain_text("회의록.txt")
    assert mina.url.endswith(channel)
    # Dropped outside the room (the sidebar) it does nothing: the page stays.
    prevented = mina.evaluate("""() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(['x'], 'x.txt', {type: 'text/plain'}));
        const event = new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: transfer});
        document.getElementById('sidebar').dispatchEvent(event);
        return event.defaultPrevented;
    }""")
    assert prevented
    expect(mina.locator("#file-chips li")).to_have_count(1)
