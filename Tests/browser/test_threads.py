"""Threads, as two teammates use them in Korean at phone and desktop widths: answering a message
in the side panel (the whole screen on a phone), the line under the root that every open tab
redraws, the Threads badge and view of the person who follows it, a reply also sent to the
channel, a deleted root that stays as a placeholder, and the thread as a page of its own
without JavaScript."""

import re

import pytest
from playwright.sync_api import Page, expect

from conftest import add_member, composer, messages_with, set_width, signup, unique_email, unique_text, wait_until_live
from test_reactions import open_actions, posted_without_javascript, team


def no_sideways_scroll(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def open_thread_from_actions(page: Page, text: str, width: int):
    """Opens the message's thread from its actions; returns the panel's frame."""
    message = messages_with(page, text)
    open_actions(page, message, width)
    message.locator("a.message-reply").click()
    expect(page.locator("#thread-panel")).to_be_visible()
    frame = page.frame_locator("#thread-panel iframe")
    expect(frame.locator("#thread-divider")).to_be_visible()
    return frame


def reply_in(frame, text: str, also: bool = False, shown: str | None = None) -> None:
    box = frame.locator("#composer textarea[name=content]")
    expect(box).to_have_attribute("placeholder", "답글 쓰기…")
    if also:
        frame.locator("#also-channel").check()
    box.fill(text)
    box.press("Enter")
    expect(frame.locator("#message-list li.message", has_text=shown or text)).to_have_count(1)


@pytest.mark.parametrize("width", [390, 1280])
def test_reply_in_the_panel_and_see_the_thread_line_live(new_context, width):
    mina, bob, channel = team(new_context, width)
    frame = open_thread_from_actions(bob, "내일 회의는 3시입니다", width)
    # The panel shows the root, then the replies, and its composer.
    expect(frame.locator("#message-list li.message").first).to_contain_text("내일 회의는 3시입니다")
    expect(frame.locator("#no-messages")).to_have_text("아직 답글이 없습니다. 첫 답글을 남겨 보세요.")
    reply_in(frame, "제가 **자료**를 준비할게요", shown="를 준비할게요")
    expect(frame.locator("#message-list strong", has_text="자료")).to_have_count(1)
    expect(frame.locator("#thread-divider")).to_have_text("답글 1개")
    no_sideways_scroll(bob, width)
    if width >= 1100:
        # Beside the room: the room's messages stay in view.
        expect(messages_with(bob, "내일 회의는 3시입니다")).to_be_in_viewport()
    bob.locator("#thread-panel .thread-panel-close").click()
    expect(bob.locator("#thread-panel")).to_be_hidden()
    line = messages_with(bob, "내일 회의는 3시입니다").locator(".thread-summary")
    expect(line.locator(".thread-count .local-text[lang=ko]")).to_have_text("답글 1개")

    # 민아's tab: the line appears under her message without a reload, the reply stays out of
    # the room, and her Threads badge counts the reply she has not read.
    theirs = messages_with(mina, "내일 회의는 3시입니다").locator(".thread-summary")
    expect(theirs.locator(".thread-count .local-text[lang=ko]")).to_have_text("답글 1개")
    expect(theirs.locator(".thread-last")).to_contain_text("마지막 답글")
    expect(theirs.locator(".thread-repliers .avatar")).to_have_count(1)
    expect(messages_with(mina, "자료")).to_have_count(0)
    badge = mina.locator("#threads-unread")
    expect(badge).to_have_text("1")
    no_sideways_scroll(mina, width)

    # Opening the thread from the line reads it: the badge goes.
    theirs.click()
    frame = mina.frame_locator("#thread-panel iframe")
    expect(frame.locator("#message-list li.message", has_text="자료")).to_have_count(1)
    expect(badge).to_be_hidden()
    # Esc in the panel closes it.
    frame.locator("#composer textarea[name=content]").press("Escape")
    expect(mina.locator("#thread-panel")).to_be_hidden()


@pytest.mark.parametrize("width", [390, 1280])
def test_a_reply_also_sent_to_the_channel_and_the_threads_view(new_context, width):
    mina, bob, channel = team(new_context, width)
    frame = open_thread_from_actions(bob, "내일 회의는 3시입니다", width)
    reply_in(frame, "모두 확인해 주세요", also=True)
    # In 민아's room too, marked as a thread reply that leads to its thread.
    shown = messages_with(mina, "모두 확인해 주세요")
    expect(shown).to_have_count(1)
    expect(shown.locator("a.reply-context .local-text[lang=ko]")).to_have_text("스레드 답글")

    # 민아's Threads view lists the thread with its new reply; opening it reads it.
    mina.goto(re.sub(r"/c/\d+$", "/threads", channel))
    expect(mina.locator("main h1")).to_have_text("스레드")
    item = mina.locator("#thread-list li")
    expect(item).to_have_count(1)
    expect(item).to_have_class(re.compile("collection-unread"))
    expect(item.locator(".collection-detail")).to_have_text("답글 1개 · 새 답글 1개")
    no_sideways_scroll(mina, width)
    with mina.expect_navigation():
        item.locator(".collection-open a").click()
    expect(mina.locator("section.room[data-thread-root]")).to_have_count(1)
    expect(mina.locator("#thread-follow .hint")).to_contain_text("팔로우하고 있습니다")
    no_sideways_scroll(mina, width)
    mina.go_back()
    mina.reload()
    expect(mina.locator("#thread-list li")).not_to_have_class(re.compile("collection-unread"))


@pytest.mark.parametrize("width", [390, 1280])
def test_a_deleted_root_stays_as_a_placeholder_with_its_replies(new_context, width):
    mina, bob, channel = team(new_context, width)
    frame = open_thread_from_actions(bob, "내일 회의는 3시입니다", width)
    reply_in(frame, "답글은 남아요")
    bob.locator("#thread-panel .thread-panel-close").click()

    message = messages_with(mina, "내일 회의는 3시입니다")
    expect(message.locator(".thread-summary")).to_have_count(1)
    mina.once("dialog", lambda dialog: dialog.accept())
    open_actions(mina, message, width)
    message.locator(".message-delete").click()
    # Bob's tab: the text gives way to the placeholder, the thread line stays.
    placeholder = bob.locator("#message-list li.message-deleted")
    expect(placeholder).to_contain_text("삭제된 메시지입니다.")
    expect(placeholder.locator(".thread-summary .thread-count .local-text[lang=ko]")).to_have_text("답글 1개")
    expect(messages_with(bob, "내일 회의는 3시입니다")).to_have_count(0)
    placeholder.locator(".thread-summary").click()
    frame = bob.frame_locator("#thread-panel iframe")
    expect(frame.locator("#message-list li.message", has_text="답글은 남아요")).to_have_count(1)
    expect(frame.locator("#message-list li.message-deleted")).to_have_count(1)


@pytest.mark.parametrize("width", [390, 1280])
def test_without_javascript_a_thread_is_a_page(browser, server, width):
    context, page = posted_without_javascript(browser, server, width, "스레드로 답할 글")
    try:
        message = messages_with(page, "스레드로 답할 글")
        message.hover()
        with page.expect_navigation():
            message.locator("a.message-reply").click()
        expect(page.locator("main h1")).to_have_text("스레드")
        expect(page.locator("#thread-divider")).to_have_text("답글 0개")
        composer(page).fill("폼으로 보낸 답글")
        with page.expect_navigation():
            page.locator("#composer button[type=submit]").click()
        expect(page.locator("#message-list li.message", has_text="폼으로 보낸 답글")).to_have_count(1)
        expect(page.locator("#thread-divider")).to_have_text("답글 1개")
        no_sideways_scroll(page, width)
        with page.expect_navigation():
            page.locator("#thread-back").click()
        line = messages_with(page, "스레드로 답할 글").locator(".thread-summary")
        expect(line.locator(".thread-count .local-text[lang=ko]")).to_have_text("답글 1개")
        expect(messages_with(page, "폼으로 보낸 답글")).to_have_count(0)
        no_sideways_scroll(page, width)
    finally:
        context.close()


def test_a_reply_notifies_the_threads_followers_by_their_level(new_context, browser, server):
    """Alice's message gets replies while she is on the workspace's home: with her default level
    (mentions and DMs) a plain reply says nothing and one naming her does; at "all", every reply
    of a thread she follows does. Carol, at "all" in the channel but not in the thread, hears
    only the reply that was also sent to the channel."""
    from test_messaging import Team, notification_context, post_via_fetch

    a_context = notification_context(browser, server)
    c_context = notification_context(browser, server)
    try:
        team = Team(new_context, "thread-notify", a_context=a_context)
        a, b = team.a, team.b
        c = c_context.new_page()
        c_email = unique_email("thread-notify-c")
        signup(c, c_email, "Carol")
        add_member(a, team.workspace_id, c, c_email)
        a.goto(team.general_path)
        root_text = unique_text("Root")
        composer(a).fill(root_text)
        composer(a).press("Enter")
        root = messages_with(a, root_text).get_attribute("data-message")
        c.goto(team.general_path)
        c.evaluate("""async (action) => {
            const token = document.querySelector('meta[name=csrf-token]').content;
            await fetch(action, {method: 'POST', credentials: 'same-origin',
                                 headers: {'X-CSRF-Token': token, Accept: 'application/json'},
                                 body: new URLSearchParams({_csrf: token, level: 'all'})});
        }""", f"{team.general_path}/notify")
        c.goto(f"/w/{team.workspace_id}")
        a.goto(f"/w/{team.workspace_id}")
        b.goto(team.general_path)
        wait_until_live(a)
        wait_until_live(b)
        wait_until_live(c)
        replies = f"/w/{team.workspace_id}/m/{root}/replies"

        assert post_via_fetch(b, replies, unique_text("plain reply")) == 201
        assert post_via_fetch(b, replies, "@Alice see this") == 201
        expect(a.locator("html")).to_have_attribute("data-last-notification", "Bob mentioned you")
        assert a.evaluate("window.__notifications") == ["Bob mentioned you"]

        a.evaluate("""async (action) => {
            const token = document.querySelector('meta[name=csrf-token]').content;
            await fetch(action, {method: 'POST', credentials: 'same-origin',
                                 headers: {'X-CSRF-Token': token, Accept: 'application/json'},
                                 body: new URLSearchParams({_csrf: token, level: 'all'})});
        }""", f"{team.general_path}/notify")
        assert post_via_fetch(b, replies, unique_text("another reply")) == 201
        a.wait_for_function("window.__notifications.length === 2")
        assert a.evaluate("window.__notifications") == ["Bob mentioned you", "#general"]
        # Carol does not follow the thread: nothing, until a reply is also sent to the channel.
        assert c.evaluate("window.__notifications") == []
        b.evaluate("""async (action) => {
            const token = document.querySelector('meta[name=csrf-token]').content;
            await fetch(action, {method: 'POST', credentials: 'same-origin',
                                 headers: {'X-CSRF-Token': token, Accept: 'application/json'},
                                 body: new URLSearchParams({_csrf: token, content: 'for everyone', also_channel: '1'})});
        }""", replies)
        c.wait_for_function("window.__notifications.length === 1")
        assert c.evaluate("window.__notifications") == ["#general"]
    finally:
        a_context.close()
        c_context.close()
