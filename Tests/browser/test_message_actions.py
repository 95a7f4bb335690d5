"""Message actions: the list is one Tab stop (a roving tabindex, ↑/↓ between messages), the
actions show on hover or focus on a desktop, and open from a long press on a phone."""

from playwright.sync_api import Page, expect

from conftest import (
    ACTION_TIMEOUT, add_member, composer, create_workspace, signup, unique_email, unique_name, wait_until_live,
)


def room_with_own_messages(page: Page, count: int) -> str:
    workspace = create_workspace(page, unique_name("팀"))
    page.goto(f"/w/{workspace}")
    channel = page.locator("#home-channels a").first.get_attribute("href")
    page.goto(channel)
    page.evaluate("""async ([action, count]) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        for (let i = 1; i <= count; i++) {
            const body = new URLSearchParams({_csrf: token, content: `메시지 ${i} https://example.com/${i}`});
            await fetch(action, {method: 'POST', body, headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
        }
    }""", [page.locator("#composer").get_attribute("action"), count])
    page.goto(channel)
    wait_until_live(page)
    return channel


def test_the_message_list_is_one_tab_stop_and_arrows_move_between_messages(new_context):
    page = new_context("ko-KR").new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    signup(page, unique_email("roving"), "김민아")
    room_with_own_messages(page, 30)
    messages = page.locator("#message-list li.message")
    expect(messages).to_have_count(30)

    # From the room's header, a few Tabs reach the composer, past thirty messages of links.
    page.locator("#notify-level").focus()
    presses = 0
    while not page.evaluate("document.activeElement?.id === 'composer-content'"):
        page.keyboard.press("Tab")
        presses += 1
        assert presses <= 12, f"still not in the composer after {presses} Tabs"
    # Back by Shift+Tab: through the newest message's own links to the message itself, the
    # list's one stop; its actions show while it has focus.
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.closest('li.message')?.id") == messages.last.get_attribute("id")
    expect(messages.last.locator(".message-actions")).to_be_visible()
    for _ in range(6):
        if page.evaluate("document.activeElement.matches('li.message')"):
            break
        page.keyboard.press("Shift+Tab")
    expect(messages.last).to_be_focused()

    # ↑ and ↓ move between messages; Tab goes into the focused one's own links.
    page.keyboard.press("ArrowUp")
    expect(messages.nth(28)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(messages.nth(27)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(messages.nth(28)).to_be_focused()
    page.keyboard.press("Home")
    expect(messages.first).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('li.message') === document.querySelector('#message-list li.message')")
    page.keyboard.press("End")  # inside a link: End is the link's, focus stays in that message
    # Every message but the active one is out of the Tab order.
    reachable = page.evaluate("""() => [...document.querySelectorAll('#message-list li.message')]
        .filter((m) => m.tabIndex === 0).length""")
    assert reachable == 1

    # A mouse shows a message's actions on hover.
    messages.nth(10).hover()
    expect(messages.nth(10).locator(".message-actions")).to_be_visible()


def test_on_a_phone_a_long_press_opens_a_messages_actions(browser, server):
    context = browser.new_context(base_url=server, locale="ko-KR", viewport={"width": 390, "height": 844},
                                  is_mobile=True, has_touch=True,
                                  extra_http_headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    context.set_default_timeout(ACTION_TIMEOUT)
    try:
        page = context.new_page()
        signup(page, unique_email("press"), "김민아")
        room_with_own_messages(page, 3)
        message = page.locator("#message-list li.message").nth(1)
        actions = message.locator(".message-actions")
        expect(actions).to_be_hidden()
        message.locator(".message-body").dispatch_event("contextmenu")
        expect(actions).to_be_visible()
        expect(actions.locator(".message-edit")).to_have_text("수정")
        # Only one open at a time; a tap elsewhere closes it.
        page.locator("#message-list li.message").nth(2).locator(".message-body").dispatch_event("contextmenu")
        expect(actions).to_be_hidden()
        page.locator(".room-header h1").tap()
        expect(page.locator("#message-list li.message .message-actions:visible")).to_have_count(0)
        # The edit action works from there.
        message.locator(".message-body").dispatch_event("contextmenu")
        actions.locator(".message-edit").tap()
        expect(message.locator(".edit-form textarea")).to_have_value("메시지 2 https://example.com/2")
    finally:
        context.close()


MARKUP = """id => {
    const message = document.getElementById('m-' + id);
    const clean = (element) => {
        if (!element) return null;
        const copy = element.cloneNode(true);
        for (const node of [copy, ...copy.querySelectorAll('*')]) node.removeAttribute('tabindex');
        return copy.outerHTML;
    };
    return {
        actions: clean(message.querySelector('.message-actions')),
        flags: clean(message.querySelector('.message-flags')),
        reactions: clean(message.querySelector('form.reactions')),
        separator: clean(document.querySelector('#message-list .day-separator')),
    };
}"""


def test_a_message_that_arrives_live_has_the_same_markup_as_a_loaded_page(new_context):
    """The controls, flags and reactions a script adds to a live message are the server's own:
    reloading shows byte for byte the same markup, for its author and for a teammate."""
    owner = new_context("ko-KR").new_page()
    signup(owner, unique_email("markup"), "김민아")
    channel = room_with_own_messages(owner, 1)
    workspace = channel.split("/")[2]
    mate = new_context("ko-KR").new_page()
    mate_email = unique_email("markup-mate")
    signup(mate, mate_email, "박서준")
    add_member(owner, int(workspace), mate, mate_email)
    owner.goto(channel)
    mate.goto(channel)
    wait_until_live(owner)
    wait_until_live(mate)

    box = composer(owner)
    box.fill("실시간으로 도착한 메시지")
    box.press("Enter")
    live = owner.locator("#message-list li.message", has_text="실시간으로 도착한 메시지")
    expect(live).to_have_count(1)
    expect(mate.locator("#message-list li.message", has_text="실시간으로 도착한 메시지")).to_have_count(1)
    message_id = live.get_attribute("data-message")
    # A pin and a reaction, made on the teammate's tab and shown live on both.
    theirs = mate.locator(f"#m-{message_id}")
    theirs.hover()
    theirs.locator(".message-pin").click()
    expect(live.locator(".flag-pinned")).to_be_visible()
    owner.evaluate("""async id => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        await fetch(`/w/${location.pathname.split('/')[2]}/m/${id}/reactions`, {method: 'POST',
            body: new URLSearchParams({_csrf: token, emoji: '👍'}), headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
    }""", message_id)
    expect(theirs.locator("form.reactions .reaction-count")).to_have_text("1")
    expect(live.locator("form.reactions .reaction-count")).to_have_text("1")

    for page in (owner, mate):
        arrived = page.evaluate(MARKUP, message_id)
        page.reload()
        wait_until_live(page)
        loaded = page.evaluate(MARKUP, message_id)
        assert arrived["actions"] and arrived == loaded, (arrived, loaded)
