"""Messaging as people see it in the browser: two users in a channel where what one types
appears in the other's page without reload, exactly once; unread badges on another tab going up
and clearing live; other tabs left alone when one tab navigates; Enter during a Korean IME
composition never sending; mention notifications; editing and deleting live; DMs; posting without
JavaScript; paging through history."""

import re
import uuid

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from conftest import (
    ACTION_TIMEOUT, add_member, composer, create_workspace, general_channel_id, mark_document, open_room_tools,
    messages_with, not_reloaded, path_of, signup, submit, unique_email, unique_name, unique_text,
    wait_until_live,
)

# ---------------------------------------------------------------------------------------------
# Helpers of this suite (the shared ones are in conftest.py)


def viewer_id(page: Page) -> int:
    return int(page.locator("meta[name=viewer-id]").get_attribute("content"))


def type_and_press_enter(page: Page, text: str) -> None:
    """Sends a message as a person does, and waits until it is sent (the box empties): an Enter
    while the previous message is still sending is ignored, as a double press should be."""
    box = composer(page)
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")


def post_via_fetch(page: Page, action: str, content: str) -> int:
    """Posts a message the way the composer's script does, from whatever page is open."""
    return page.evaluate("""async ([action, content]) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        const body = new URLSearchParams({_csrf: token, content});
        const response = await fetch(action, {
            method: 'POST', body, credentials: 'same-origin',
            headers: {'X-CSRF-Token': token, Accept: 'application/json'},
            signal: AbortSignal.timeout(10000),  // a hung request fails the test, never hangs it
        });
        return response.status;
    }""", [action, content])


def last_notification(page: Page):
    return page.evaluate("document.documentElement.dataset.lastNotification ?? null")


class Team:
    """A (owner) and B (an existing account, who accepted A's invitation) in one workspace, each in
    their own browser."""

    def __init__(self, new_context, prefix: str, *, a_context: BrowserContext | None = None,
                 b_context: BrowserContext | None = None):
        self.a_context = a_context or new_context("en-US")
        self.a = self.a_context.new_page()
        self.a_email = unique_email(f"{prefix}-a")
        signup(self.a, self.a_email, "Alice")
        self.a_id = viewer_id(self.a)

        self.b_context = b_context or new_context("en-US")
        self.b = self.b_context.new_page()
        self.b_email = unique_email(f"{prefix}-b")
        signup(self.b, self.b_email, "Bob")
        self.b_id = viewer_id(self.b)

        self.workspace_id = create_workspace(self.a, unique_name("Team"))
        add_member(self.a, self.workspace_id, self.b, self.b_email)
        self.general_id = general_channel_id(self.a, self.workspace_id)

    @property
    def general_path(self) -> str:
        return f"/w/{self.workspace_id}/c/{self.general_id}"


def notification_context(browser, server) -> BrowserContext:
    """Like conftest's new_context("en-US"), with notifications allowed."""
    context = browser.new_context(
        base_url=server,
        locale="en-US",
        extra_http_headers={"Accept-Language": "en-US,en;q=0.9"},
        permissions=["notifications"],
    )
    context.set_default_timeout(ACTION_TIMEOUT)
    # Every notification a page raises, by title, in order (window.__notifications).
    context.add_init_script("""(() => {
        const Real = window.Notification;
        if (!Real) return;
        window.__notifications = [];
        window.Notification = class extends Real {
            constructor(title, options) { super(title, options); window.__notifications.push(title); }
        };
    })()""")
    return context


# ---------------------------------------------------------------------------------------------
# 1. Two users, one channel: typed in one, shown in both, exactly once


def test_a_message_typed_in_one_browser_appears_once_in_both_without_reload(new_context):
    team = Team(new_context, "chat")
    a, b = team.a, team.b
    a.goto(team.general_path)
    b.goto(team.general_path)
    expect(a.locator("#no-messages")).to_be_visible()
    wait_until_live(a)
    wait_until_live(b)

    hello = unique_text("Hello from Alice")
    type_and_press_enter(a, hello)
    expect(messages_with(a, hello)).to_have_count(1)
    expect(messages_with(b, hello)).to_have_count(1)
    expect(composer(a)).to_have_value("")
    expect(messages_with(b, hello).locator(".message-author")).to_have_text("Alice")
    expect(messages_with(b, hello).locator(".message-body")).to_have_text(hello)
    expect(messages_with(b, hello).locator("time")).to_have_count(1)
    assert messages_with(b, hello).get_attribute("data-author") == str(team.a_id)
    expect(b.locator("#no-messages")).to_have_count(0)

    reply = unique_text("Hi Alice, Bob here")
    type_and_press_enter(b, reply)
    expect(messages_with(a, reply)).to_have_count(1)
    expect(messages_with(b, reply)).to_have_count(1)
    expect(messages_with(a, reply).locator(".message-author")).to_have_text("Bob")

    # Still once each a while later (a late echo of the live event must not add a copy), in order.
    a.wait_for_timeout(3000)
    for page in (a, b):
        expect(messages_with(page, hello)).to_have_count(1)
        expect(messages_with(page, reply)).to_have_count(1)
        expect(page.locator("#message-list li.message .message-body")).to_have_text([hello, reply])
        assert not_reloaded(page), "the page reloaded instead of updating live"

    # Only the author gets the edit/delete controls.
    expect(messages_with(a, hello).locator(".message-edit")).to_have_count(1)
    expect(messages_with(b, hello).locator(".message-edit")).to_have_count(0)
    expect(messages_with(b, reply).locator(".message-edit")).to_have_count(1)

    # What was shown live is what the server stored.
    b.reload()
    expect(b.locator("#message-list li.message .message-body")).to_have_text([hello, reply])


# ---------------------------------------------------------------------------------------------
# 2. Unread badge on another tab: up live, cleared live when the room is read elsewhere


def test_unread_badge_on_the_home_tab_goes_up_live_and_clears_when_the_channel_is_read(new_context):
    team = Team(new_context, "badge")
    a = team.a
    a.goto(team.general_path)
    home = team.b
    home.goto(f"/w/{team.workspace_id}")
    wait_until_live(a)
    wait_until_live(home)

    badges = home.locator(f"[data-unread='{team.general_id}']")
    expect(badges).to_have_count(2)  # the home page's list and the sidebar
    home_badge = home.locator(f"#home-channels [data-unread='{team.general_id}']")
    sidebar_badge = home.locator(f"#sidebar [data-unread='{team.general_id}']")
    expect(home_badge).to_be_hidden()
    expect(sidebar_badge).to_be_hidden()

    # Mentions count at the default level (a plain message makes the room bold, test_nothing_missed).
    type_and_press_enter(a, "@Bob " + unique_text("first"))
    expect(home_badge).to_be_visible()
    expect(home_badge).to_have_text("1")
    expect(sidebar_badge).to_have_text("1")
    type_and_press_enter(a, "@Bob " + unique_text("second"))
    expect(home_badge).to_have_text("2")
    expect(sidebar_badge).to_have_text("2")

    # Exact: a while later it has not counted anything twice.
    home.wait_for_timeout(1000)
    expect(home_badge).to_have_text("2")
    assert not_reloaded(home)

    # B opens the channel in another tab: the home tab's badges clear by themselves.
    channel_tab = team.b_context.new_page()
    channel_tab.goto(team.general_path)
    expect(channel_tab.locator("#message-list li.message")).to_have_count(2)
    # The "read up to here" line sits just before the first message B had not read.
    unread_line = channel_tab.locator("#message-list li.unread-line")
    expect(unread_line).to_have_count(1)
    expect(unread_line).to_have_text("Read up to here")
    first_id = channel_tab.locator("#message-list li.message").first.get_attribute("id")
    assert unread_line.evaluate("line => line.nextElementSibling.id") == first_id
    expect(home_badge).to_be_hidden()
    expect(sidebar_badge).to_be_hidden()
    assert not_reloaded(home)

    # A new message while B's channel tab is open: B is reading it there, so no badge at home.
    third = unique_text("third")
    type_and_press_enter(a, third)
    expect(messages_with(channel_tab, third)).to_have_count(1)
    home.wait_for_timeout(1500)
    expect(home_badge).to_be_hidden()
    # A freshly loaded page agrees (a new tab: see the tab-navigation test for why not a reload).
    fresh = team.b_context.new_page()
    fresh.goto(f"/w/{team.workspace_id}")
    expect(fresh.locator(f"#home-channels [data-unread='{team.general_id}']")).to_be_hidden()


def test_navigating_in_one_tab_leaves_a_draft_in_another_tab_alone(new_context):
    """B has the workspace home open (the tab that leads the live stream) and a channel with a
    half-typed message in another tab. Moving on in the first tab must not reload the second."""
    team = Team(new_context, "draft")
    a, home = team.a, team.b
    a.goto(team.general_path)
    home.goto(f"/w/{team.workspace_id}")
    wait_until_live(a)
    wait_until_live(home)
    channel_tab = team.b_context.new_page()
    channel_tab.goto(team.general_path)
    channel_tab.wait_for_timeout(500)
    mark_document(channel_tab)
    draft = "반쯤 쓴 메시지, not sent yet"
    composer(channel_tab).fill(draft)

    with home.expect_navigation():
        home.locator("#home-channels a", has_text="general").click()
    assert path_of(home) == team.general_path
    channel_tab.wait_for_timeout(3000)

    assert not_reloaded(channel_tab), "the other tab reloaded when this one navigated"
    expect(composer(channel_tab)).to_have_value(draft)
    # Both tabs still get new messages live.
    text = unique_text("Still live")
    type_and_press_enter(a, text)
    expect(messages_with(channel_tab, text)).to_have_count(1)
    expect(messages_with(home, text)).to_have_count(1)


# ---------------------------------------------------------------------------------------------
# 3. Korean IME: Enter that ends a composition never sends; Shift+Enter is a new line


def test_enter_during_a_korean_ime_composition_does_not_send(new_context):
    team = Team(new_context, "ime")
    a = team.a
    a.goto(team.general_path)
    wait_until_live(a)
    box = composer(a)

    box.focus()
    box.dispatch_event("compositionstart", {"data": ""})
    box.fill("안녕하세요")
    box.evaluate("""(el) => {
        el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', isComposing: true,
                                                       bubbles: true, cancelable: true}));
        el.dispatchEvent(new CompositionEvent('compositionend', {data: '요', bubbles: true}));
    }""")
    # Safari-style: the Enter that ends the syllable arrives right after compositionend.
    box.evaluate("""(el) => {
        el.dispatchEvent(new CompositionEvent('compositionstart', {data: '', bubbles: true}));
        el.dispatchEvent(new CompositionEvent('compositionend', {data: '요', bubbles: true}));
        el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', bubbles: true, cancelable: true}));
    }""")
    a.wait_for_timeout(1500)
    expect(a.locator("#message-list li.message")).to_have_count(0)
    expect(box).to_have_value("안녕하세요")

    # A plain Enter after the composition sends it, once.
    box.press("Enter")
    expect(messages_with(a, "안녕하세요")).to_have_count(1)
    expect(box).to_have_value("")

    # Shift+Enter is a new line, nothing sent.
    box.fill("첫 줄")
    box.press("End")
    box.press("Shift+Enter")
    box.press_sequentially("둘째 줄")
    expect(box).to_have_value("첫 줄\n둘째 줄")
    a.wait_for_timeout(1000)
    expect(a.locator("#message-list li.message")).to_have_count(1)

    box.press("Enter")
    expect(a.locator("#message-list li.message")).to_have_count(2)
    last = a.locator("#message-list li.message").last
    assert last.locator(".message-body").inner_text() == "첫 줄\n둘째 줄"  # the line break shown (a <br>)

    # The server stored exactly these two.
    a.reload()
    expect(a.locator("#message-list li.message .message-body")).to_have_text(["안녕하세요", "첫 줄\n둘째 줄"], use_inner_text=True)


# ---------------------------------------------------------------------------------------------
# 4. A mention raises a notification in the other user's browser


@pytest.mark.parametrize("where", ["workspace home", "another channel"])
def test_a_mention_notifies_the_person_mentioned(new_context, browser, server, where):
    b_context = notification_context(browser, server)
    try:
        team = Team(new_context, "mention", b_context=b_context)
        a, b = team.a, team.b
        if where == "workspace home":
            b.goto(f"/w/{team.workspace_id}")
        else:
            a.goto(f"/w/{team.workspace_id}/channels")
            a.fill("#create-channel-form input[name=name]", "random")
            submit(a, "#create-channel-form")
            random_id = int(re.search(r"/c/(\d+)", path_of(a)).group(1))
            b.goto(f"/w/{team.workspace_id}/channels")
            with b.expect_navigation():
                b.locator(f"#channel-directory li[data-channel='{random_id}'] button[type=submit]").click()
            assert path_of(b) == f"/w/{team.workspace_id}/c/{random_id}"
        assert b.evaluate("Notification.permission") == "granted"
        a.goto(team.general_path)
        wait_until_live(a)
        wait_until_live(b)
        assert b.evaluate("document.documentElement.dataset.liveRole") == "leader"

        # By default a plain channel message raises nothing; a mention does.
        type_and_press_enter(a, unique_text("plain"))
        type_and_press_enter(a, "@Bob hello")
        expect(b.locator("html")).to_have_attribute("data-last-notification", "Alice mentioned you")
        assert b.evaluate("window.__notifications") == ["Alice mentioned you"]

        # Opening the channel, B sees the mention highlighted as theirs.
        b.goto(team.general_path)
        mention = messages_with(b, "hello").locator(".mention")
        expect(mention).to_have_text("@Bob")
        expect(mention).to_have_class(re.compile(r"\bmention-me\b"))
        expect(mention).to_have_attribute("data-user", str(team.b_id))
        # ...and A sees it as a mention, not as their own.
        expect(messages_with(a, "hello").locator(".mention")).to_have_text("@Bob")
        expect(messages_with(a, "hello").locator(".mention-me")).to_have_count(0)
    finally:
        b_context.close()


def test_no_notification_for_own_messages_or_the_room_being_looked_at(new_context, browser, server):
    a_context = notification_context(browser, server)
    b_context = notification_context(browser, server)
    try:
        team = Team(new_context, "quiet", a_context=a_context, b_context=b_context)
        a, b = team.a, team.b
        a.goto(f"/w/{team.workspace_id}")
        b.goto(team.general_path)
        wait_until_live(a)
        wait_until_live(b)
        action = f"{team.general_path}/messages"

        # A posts from the workspace home (no tab of A's shows the channel): nothing for A; B is
        # looking at the channel: nothing for B, even when mentioned.
        plain = unique_text("Own message")
        assert post_via_fetch(a, action, plain) == 201
        expect(messages_with(b, plain)).to_have_count(1)
        assert post_via_fetch(a, action, "@Bob look here") == 201
        expect(messages_with(b, "look here")).to_have_count(1)
        expect(messages_with(b, "look here").locator(".mention-me")).to_have_text("@Bob")
        b.wait_for_timeout(1500)
        assert last_notification(a) is None
        assert last_notification(b) is None

        # Control: once B looks elsewhere, the same kind of message does notify B (never A).
        b.goto(f"/w/{team.workspace_id}")
        wait_until_live(b)
        assert post_via_fetch(a, action, "@Bob now elsewhere") == 201
        expect(b.locator("html")).to_have_attribute("data-last-notification", "Alice mentioned you")
        a.wait_for_timeout(1000)
        assert last_notification(a) is None
    finally:
        a_context.close()
        b_context.close()


# ---------------------------------------------------------------------------------------------
# 5. Editing and deleting one's own message, live


def test_editing_and_deleting_a_message_shows_live_in_the_other_browser(new_context):
    team = Team(new_context, "edit")
    a, b = team.a, team.b
    a.goto(team.general_path)
    b.goto(team.general_path)
    wait_until_live(a)
    wait_until_live(b)

    original = unique_text("Typo here")
    type_and_press_enter(a, original)
    expect(messages_with(b, original)).to_have_count(1)
    message_id = messages_with(a, original).get_attribute("id")
    assert re.fullmatch(r"m-\d+", message_id), message_id
    in_a = a.locator(f"#{message_id}")
    in_b = b.locator(f"#{message_id}")
    expect(in_b.locator(".edited")).to_have_count(0)

    # A edits inline.
    in_a.hover()  # the controls show on hover or focus
    in_a.locator(".message-edit").click()
    form = in_a.locator(".edit-form")
    expect(form).to_be_visible()
    expect(form.locator("textarea")).to_have_value(original)
    fixed = unique_text("Fixed text")
    form.locator("textarea").fill(fixed)
    form.locator("button[type=submit]").click()
    expect(in_a.locator(".edit-form")).to_have_count(0)
    expect(in_a.locator(".message-body")).to_have_text(fixed)
    expect(in_a.locator(".edited")).to_be_visible()

    # B sees the new text and the edited mark, without reload.
    expect(in_b.locator(".message-body")).to_have_text(fixed)
    expect(in_b.locator(".edited")).to_be_visible()
    expect(messages_with(b, original)).to_have_count(0)
    expect(b.locator("#message-list li.message")).to_have_count(1)
    assert not_reloaded(b) and not_reloaded(a)

    # A deletes it, confirming.
    dialogs = []

    def accept(dialog):
        dialogs.append(dialog.type)
        dialog.accept()

    a.once("dialog", accept)
    in_a.hover()
    in_a.locator(".message-delete").click()
    expect(in_a).to_have_count(0)
    assert dialogs == ["confirm"]
    expect(in_b).to_have_count(0)
    expect(b.locator("#message-list li.message")).to_have_count(0)
    assert not_reloaded(b) and not_reloaded(a)

    # Gone for good.
    b.reload()
    expect(b.locator("#message-list li.message")).to_have_count(0)


def test_dismissing_the_delete_confirmation_keeps_the_message(new_context):
    team = Team(new_context, "keep")
    a = team.a
    a.goto(team.general_path)
    wait_until_live(a)
    text = unique_text("Keep me")
    type_and_press_enter(a, text)
    expect(messages_with(a, text)).to_have_count(1)
    a.once("dialog", lambda dialog: dialog.dismiss())
    messages_with(a, text).hover()
    messages_with(a, text).locator(".message-delete").click()
    a.wait_for_timeout(1000)
    expect(messages_with(a, text)).to_have_count(1)
    a.reload()
    expect(messages_with(a, text)).to_have_count(1)


# ---------------------------------------------------------------------------------------------
# 6. A DM


def test_a_direct_message_from_the_member_list(new_context):
    team = Team(new_context, "dm")
    a, b = team.a, team.b
    dm_to_b = f"/w/{team.workspace_id}/dm/{team.b_id}"
    dm_to_a = f"/w/{team.workspace_id}/dm/{team.a_id}"
    b.goto(f"/w/{team.workspace_id}")
    expect(b.locator("#sidebar-dms a")).to_have_count(0)

    # A opens the DM from the member table.
    a.goto(f"/w/{team.workspace_id}/members")
    row = a.locator(f"#member-table tbody tr[data-member='{team.b_id}']")
    with a.expect_navigation():
        row.get_by_role("link", name="Message", exact=True).click()
    assert path_of(a) == dm_to_b
    expect(a.locator("main h1")).to_contain_text("Bob")
    expect(a.locator("#message-list li.message")).to_have_count(0)

    # The first message makes the room: the page comes back with it.
    first = "Look <b>bold</b> at https://example.com/docs?a=1&b=2 please"
    with a.expect_navigation():
        type_and_press_enter(a, first)
    assert path_of(a) == dm_to_b
    expect(a.locator("#message-list li.message")).to_have_count(1)
    expect(a.locator("#message-list li.message .message-body")).to_have_text(first)

    # B's pages list the DM (with one unread message) once loaded.
    b.goto(f"/w/{team.workspace_id}")
    dm_link = b.locator("#sidebar-dms a", has_text="Alice")
    expect(dm_link).to_have_count(1)
    expect(dm_link).to_have_attribute("href", dm_to_a)
    expect(b.locator("#home-dms li", has_text="Alice")).to_contain_text("Look <b>bold</b>")
    dm_room = dm_link.get_attribute("data-room-link")
    expect(b.locator(f"#sidebar [data-unread='{dm_room}']")).to_have_text("1")

    with b.expect_navigation():
        dm_link.click()
    assert path_of(b) == dm_to_a
    message = b.locator("#message-list li.message")
    expect(message).to_have_count(1)
    body = message.locator(".message-body")
    expect(body).to_have_text(first)
    expect(body.locator("b")).to_have_count(0)  # typed markup stays text
    link = body.locator("a")
    expect(link).to_have_count(1)
    expect(link).to_have_attribute("href", "https://example.com/docs?a=1&b=2")
    expect(link).to_have_text("https://example.com/docs?a=1&b=2")
    rel = link.get_attribute("rel").split()
    assert "noopener" in rel and "noreferrer" in rel and "nofollow" in rel, rel
    expect(message.locator(".message-author")).to_have_text("Alice")

    # Now that the room exists, the next messages go both ways live.
    wait_until_live(a)
    wait_until_live(b)
    answer = unique_text("Got it")
    type_and_press_enter(b, answer)
    expect(messages_with(a, answer)).to_have_count(1)
    expect(messages_with(b, answer)).to_have_count(1)
    assert not_reloaded(a) and not_reloaded(b)
    a.wait_for_timeout(1500)
    expect(messages_with(a, answer)).to_have_count(1)
    expect(messages_with(b, answer)).to_have_count(1)


# ---------------------------------------------------------------------------------------------
# 7. Without JavaScript


def test_posting_without_javascript_posts_the_form_and_shows_the_message(browser, server):
    context = browser.new_context(base_url=server, locale="en-US", java_script_enabled=False,
                                  extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
    context.set_default_timeout(ACTION_TIMEOUT)
    try:
        page = context.new_page()
        signup(page, unique_email("nojs"), "Plain")
        workspace_id = create_workspace(page, unique_name("No script"))
        channel_id = general_channel_id(page, workspace_id)
        page.goto(f"/w/{workspace_id}/c/{channel_id}")

        text = unique_text("Sent by a form")
        composer(page).fill(text)
        response = submit(page, "#composer")
        assert response is not None and response.status == 200, response and response.status
        assert path_of(page) == f"/w/{workspace_id}/c/{channel_id}" or re.fullmatch(
            rf"/w/{workspace_id}/c/{channel_id}#m-\d+", path_of(page)), page.url
        expect(messages_with(page, text)).to_have_count(1)
        expect(composer(page)).to_have_value("")
        expect(page.locator("#composer-error")).to_be_hidden()

        # Only whitespace: the page comes back with the error beside the composer, nothing stored.
        composer(page).fill("   \n  ")
        response = submit(page, "#composer")
        assert response is not None and response.status == 422, response and response.status
        error = page.locator("#composer #composer-error")
        expect(error).to_be_visible()
        expect(error).to_have_text("Write a message first.")
        expect(composer(page)).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#message-list li.message")).to_have_count(1)
        page.goto(f"/w/{workspace_id}/c/{channel_id}")
        expect(page.locator("#message-list li.message")).to_have_count(1)
    finally:
        context.close()


def test_a_blank_message_with_javascript_is_refused_beside_the_composer(new_context):
    team = Team(new_context, "blank")
    a = team.a
    a.goto(team.general_path)
    wait_until_live(a)
    composer(a).fill("   ")
    composer(a).press("Enter")
    a.wait_for_timeout(1000)
    expect(a.locator("#message-list li.message")).to_have_count(0)
    assert not_reloaded(a)
    # The person is told why, beside the composer (as without JavaScript).
    error = a.locator("#composer #composer-error")
    expect(error).to_be_visible()
    expect(error).to_have_text("Write a message first.")
    a.reload()
    expect(a.locator("#message-list li.message")).to_have_count(0)


# ---------------------------------------------------------------------------------------------
# 8. Paging


def test_paging_back_and_forth_through_sixty_messages(new_context):
    team = Team(new_context, "paging")
    a = team.a
    a.goto(team.general_path)
    statuses = a.evaluate("""async () => {
        const form = document.getElementById('composer');
        const token = document.querySelector('meta[name=csrf-token]').content;
        const statuses = [];
        for (let i = 1; i <= 60; i++) {
            const body = new URLSearchParams({_csrf: token, content: `Numbered message ${i}.`});
            const response = await fetch(form.action, {
                method: 'POST', body, credentials: 'same-origin',
                headers: {'X-CSRF-Token': token, Accept: 'application/json'},
                signal: AbortSignal.timeout(10000),
            });
            statuses.push(response.status);
        }
        return statuses;
    }""")
    assert statuses == [201] * 60, statuses

    def bodies(page: Page) -> list[str]:
        return page.locator("#message-list li.message .message-body").all_text_contents()

    a.reload()
    expect(a.locator("#message-list li.message")).to_have_count(50)
    assert bodies(a) == [f"Numbered message {i}." for i in range(11, 61)]
    older = a.locator("p.paging.older a")
    expect(older).to_have_text("Older messages")
    expect(a.locator("p.paging.newer a")).to_have_count(0)

    with a.expect_navigation():
        older.click()
    assert re.fullmatch(rf"{team.general_path}\?before=\d+", path_of(a)), a.url
    expect(a.locator("#message-list li.message")).to_have_count(10)
    assert bodies(a) == [f"Numbered message {i}." for i in range(1, 11)]
    expect(a.locator("p.paging.older a")).to_have_count(0)
    newer = a.locator("p.paging.newer a")
    expect(newer).to_have_text("Newer messages")

    with a.expect_navigation():
        newer.click()
    assert re.fullmatch(rf"{team.general_path}\?after=\d+", path_of(a)), a.url
    expect(a.locator("#message-list li.message")).to_have_count(50)
    assert bodies(a) == [f"Numbered message {i}." for i in range(11, 61)]
    expect(a.locator("p.paging.older a")).to_have_count(1)
    expect(a.locator("p.paging.newer a")).to_have_count(0)


def notifications_of(*pages: Page) -> list[str]:
    """The titles of the notifications the browser's tabs raised (one tab speaks for a browser)."""
    return [title for page in pages for title in page.evaluate("window.__notifications")]


def wait_for_notification(title: str, *pages: Page) -> None:
    for _ in range(50):
        if title in notifications_of(*pages):
            return
        pages[0].wait_for_timeout(100)
    raise AssertionError(f"no notification {title!r}; got {notifications_of(*pages)}")


@pytest.mark.parametrize("width", [390, 1280])
def test_notification_levels_decide_what_notifies_and_how_a_room_shows(new_context, browser, server, width):
    b_context = notification_context(browser, server)
    try:
        team = Team(new_context, "levels", b_context=b_context)
        a, b = team.a, team.b
        a.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        b.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
        other_tab = b_context.new_page()
        a.goto(team.general_path)
        b.goto(f"/w/{team.workspace_id}")
        other_tab.goto(f"/w/{team.workspace_id}")
        wait_until_live(a)
        wait_until_live(b)
        expect(other_tab.locator("html")).to_have_attribute("data-live-role", re.compile("leader|follower"))
        row = f"#sidebar li:has(a[data-room-link='{team.general_id}'])"

        # "All messages" for #general, from its menu: plain messages notify, titled by the room.
        b.goto(team.general_path)
        open_room_tools(b)
        expect(b.locator("#notify-level")).to_have_value("default")
        expect(b.locator("#notify-form .notify-save")).to_be_hidden()
        b.select_option("#notify-level", "all")
        expect(other_tab.locator(f"{row} a")).to_have_attribute("data-notify", "all")
        b.goto(f"/w/{team.workspace_id}")
        expect(b.locator("html")).to_have_attribute("data-live-role", re.compile("leader|follower"))
        type_and_press_enter(a, unique_text("plain"))
        wait_for_notification("#general", b, other_tab)

        # Muted: nothing notifies, not even a mention; the row is dimmed, its plain messages leave
        # no number, but a mention still counts (as in Slack). The other tab follows without a
        # reload.
        b.goto(team.general_path)
        open_room_tools(b)
        b.select_option("#notify-level", "mute")
        expect(other_tab.locator(row)).to_have_class(re.compile(r"\bmuted\b"))
        # From here b is the browser's only tab, holding its own stream (a follower tab's
        # catch-up after navigation is its own test, in test_live.py).
        other_tab.close()
        b.goto(f"/w/{team.workspace_id}")
        wait_until_live(b)
        expect(b.locator(row)).to_have_class(re.compile(r"\bmuted\b"))
        before = len(notifications_of(b))
        type_and_press_enter(a, "@Bob are you there")
        expect(composer(a)).to_have_value("")  # sent (a second Enter while sending is ignored)
        type_and_press_enter(a, unique_text("another"))
        expect(composer(a)).to_have_value("")
        badge = b.locator(f"{row} .badge")
        expect(badge).to_have_text("1")
        assert badge.get_attribute("hidden") is None  # shown (on a phone, in the closed drawer)
        expect(b.locator(row)).not_to_have_class(re.compile(r"\bunread\b"))
        assert b.title().startswith("(1) ")
        b.wait_for_timeout(1000)
        assert len(notifications_of(b)) == before

        # Without JavaScript the menu is a form with its own button.
        b.goto(team.general_path)
        open_room_tools(b)
        b.evaluate("document.querySelector('#notify-form .notify-save').hidden = false")
        b.select_option("#notify-level", "default")
        with b.expect_navigation():
            b.locator("#notify-form .notify-save").click()
        expect(b.locator(".flash")).to_have_text("Notification setting saved.")
        open_room_tools(b)
        expect(b.locator("#notify-level")).to_have_value("default")
        expect(b.locator(row)).not_to_have_class(re.compile(r"\bmuted\b"))
    finally:
        b_context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_a_message_that_cannot_be_sent_stays_and_is_sent_once_on_retry(new_context, width):
    team = Team(new_context, "offline")
    a = team.a
    a.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
    a.goto(team.general_path)
    wait_until_live(a)
    mark_document(a)
    box = composer(a)
    note = a.locator("#composer-unsent")

    # The server cannot be reached: nothing navigates away, the text stays, the note says so.
    a.context.set_offline(True)
    text = unique_text("보내지 못한 메시지")
    box.fill(text)
    box.press("Enter")
    expect(note).to_be_visible()
    expect(box).to_have_value(text)
    assert not_reloaded(a)
    a.context.set_offline(False)

    # It survives a reload, offered again with the same id.
    a.reload()
    expect(composer(a)).to_have_value(text)
    expect(note).to_be_visible()

    # The answer is lost after the server stored it: the retry finds that message, not a second.
    def lose_the_answer(route):
        route.fetch()
        route.abort()
    a.route(f"**{team.general_path}/messages", lose_the_answer, times=1)
    note.get_by_role("button", name="Retry").click()
    expect(note).to_be_visible()
    note.get_by_role("button", name="Retry").click()
    expect(messages_with(a, text)).to_have_count(1)
    expect(note).to_be_hidden()
    expect(composer(a)).to_have_value("")
    a.reload()
    expect(messages_with(a, text)).to_have_count(1)
    expect(note).to_be_hidden()

    # Discarding drops it for good.
    a.context.set_offline(True)
    dropped = unique_text("버릴 메시지")
    composer(a).fill(dropped)
    composer(a).press("Enter")
    expect(note).to_be_visible()
    a.context.set_offline(False)
    note.get_by_role("button", name="Discard").click()
    expect(composer(a)).to_have_value("")
    a.reload()
    expect(note).to_be_hidden()
    expect(composer(a)).to_have_value("")
    expect(messages_with(a, dropped)).to_have_count(0)
