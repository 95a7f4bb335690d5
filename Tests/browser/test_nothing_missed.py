"""Nothing missed (issue 32, point 3), in Korean at 390 and 1280: a mention in a muted room still
badges (and the Mentions item counts it), plain messages there leave no number; a phone's menu
button says when something arrived outside the open room; read receipts in a group fall from 2 to
0, live, as the two others open it."""
import re

import pytest
from playwright.sync_api import Page, expect

from conftest import (add_member, composer, korean_pair, open_room_tools, set_width, signup, unique_email,
                      wait_until_live)

pytestmark = pytest.mark.timeout(240)


def send(page: Page, text: str) -> None:
    composer(page).fill(text)
    composer(page).press("Enter")
    expect(composer(page)).to_have_value("")


def viewer_id(page: Page) -> int:
    return int(page.locator("meta[name=viewer-id]").get_attribute("content"))


@pytest.mark.parametrize("width", [390, 1280])
def test_a_mention_in_a_muted_room_badges_and_the_menu_button_tells_of_a_dm(new_context, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    channel_id = channel.rsplit("/", 1)[1]
    bob.goto(channel)
    open_room_tools(bob)
    bob.select_option("#notify-level", "mute")
    row = bob.locator(f"#sidebar li:has(a[data-room-link='{channel_id}'])")
    expect(row).to_have_class(re.compile(r"\bmuted\b"))
    bob.goto(f"/w/{workspace}")
    wait_until_live(bob)

    # A plain message: counted on the link, but a muted room shows no number and is not bold.
    send(mina, "오늘 점심은 각자 드세요")
    expect(row.locator("a")).to_have_attribute("data-unread-count", "1")
    expect(row.locator(".badge")).to_be_hidden()
    expect(row).not_to_have_class(re.compile(r"\bunread\b"))
    assert not bob.title().startswith("(")

    # A mention: the number shows on the muted room, on Mentions, in the title, live.
    send(mina, "@Bob 회의록 확인 부탁드려요")
    expect(row.locator(".badge")).to_have_text("1")
    expect(bob.locator("#mentions-unread")).to_have_text("1")
    expect(bob).to_have_title(re.compile(r"^\(1\) "))
    if width < 800:
        menu = bob.locator("#menu-unread")
        expect(menu).to_be_visible()
        expect(menu.locator(".menu-badge-count")).to_have_text("1")

    # A DM arrives while Bob reads another room: on a phone, the menu button says so.
    bob_id = viewer_id(bob)
    mina.goto(f"/w/{workspace}/dm/{bob_id}")
    wait_until_live(mina)
    send(mina, "잠깐 통화 가능하세요?")
    dm_badge = bob.locator("#sidebar-dms .badge:not([hidden])")
    expect(dm_badge).to_have_text("1")
    if width < 800:
        expect(bob.locator("#menu-unread .menu-badge-count")).to_have_text("2")
        assert bob.locator("#menu-button").is_visible()

    # After a reload, the server draws the same.
    bob.reload()
    expect(row.locator(".badge")).to_have_text("1")
    expect(bob.locator("#mentions-unread")).to_have_text("1")
    if width < 800:
        expect(bob.locator("#menu-unread .menu-badge-count")).to_have_text("2")

    # Reading the room takes its badge away, and the Mentions count with it.
    bob.goto(channel)
    wait_until_live(bob)
    expect(bob.locator("#mentions-unread")).to_be_hidden()
    if width < 800:
        expect(bob.locator("#menu-unread .menu-badge-count")).to_have_text("1")


@pytest.mark.parametrize("width", [390, 1280])
def test_read_receipts_fall_from_two_to_none_as_the_others_open_the_group(new_context, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    carol = new_context("ko-KR").new_page()
    set_width(carol, width)
    carol_email = unique_email("carol")
    signup(carol, carol_email, "서연")
    add_member(mina, workspace, carol, carol_email)
    bob.goto(f"/w/{workspace}")
    people = [viewer_id(bob), viewer_id(carol)]

    # 민아 starts a group with both (the new-conversation form, posted by the page).
    group = mina.evaluate("""async ([action, people]) => {
        const body = new URLSearchParams(people.map((id) => ['member', String(id)]));
        body.append('_csrf', document.querySelector('meta[name="csrf-token"]').content);
        const response = await fetch(action, { method: 'POST', body });
        return new URL(response.url).pathname;
    }""", [f"/w/{workspace}/dm", people])
    assert re.fullmatch(rf"/w/{workspace}/g/\d+", group), group
    mina.goto(group)
    wait_until_live(mina)
    send(mina, "내일 회의 10시로 옮겨요")
    message = mina.locator("#message-list li.message", has_text="내일 회의 10시로 옮겨요")
    receipt = message.locator(".receipt")
    expect(receipt).to_have_text(re.compile(r"^2"))

    bob.goto(group)
    expect(bob.locator("#message-list li.message", has_text="내일 회의 10시로 옮겨요")).to_be_visible()
    expect(receipt).to_have_text(re.compile(r"^1"))
    # Bob sees the same count for 민아's message: only 서연 has not read it.
    expect(bob.locator("#message-list li.message", has_text="내일 회의 10시로 옮겨요").locator(".receipt")).to_have_text(re.compile(r"^1"))

    carol.goto(group)
    expect(carol.locator("#message-list li.message", has_text="내일 회의 10시로 옮겨요")).to_be_visible()
    expect(receipt).to_have_count(0)
    # 서연's answer is unread by the two others, on her screen, live; 민아, who has the group
    # open, reads it (Bob has gone elsewhere).
    bob.goto(f"/w/{workspace}")
    wait_until_live(carol)
    send(carol, "네 확인했습니다")
    expect(carol.locator("#message-list li.message", has_text="네 확인했습니다").locator(".receipt")).to_have_text(re.compile(r"^2"))
    expect(mina.locator("#message-list li.message", has_text="네 확인했습니다")).to_be_visible()
    expect(carol.locator("#message-list li.message", has_text="네 확인했습니다").locator(".receipt")).to_have_text(re.compile(r"^1"))


def reply_in_background(page: Page, workspace: int, root: str, text: str) -> None:
    """Answers in message `root`'s thread as another device of `page`'s browser would."""
    thread = page.context.request.get(f"/w/{workspace}/m/{root}/thread")
    token = re.search(r'<meta name="csrf-token" content="([^"]+)">', thread.text()).group(1)
    answer = page.context.request.post(f"/w/{workspace}/m/{root}/replies", form={"_csrf": token, "content": text},
                                       max_redirects=0)
    assert answer.status == 303, answer.status


def test_a_message_committed_while_the_page_is_read_is_counted_once(new_context):
    """A message and a thread reply committed while Bob's page was read, before their events
    reached the live streams: the page's counts hold them, and its stream replays them from its
    cursor. Each is counted once. (The page is loaded with the cursor it had before they were sent,
    which is what a page read in that moment carries.)"""
    # Bob's pages come from the server, not the service worker, so the test can rewrite one.
    mina, bob, workspace, channel = korean_pair(new_context, 1280, service_workers="block")
    channel_id = channel.rsplit("/", 1)[1]
    bob.goto(channel)
    send(bob, "이번 주 일정 공유합니다")
    root = bob.locator("#message-list li.message", has_text="이번 주 일정").get_attribute("data-message")
    bob.goto(f"/w/{workspace}")
    cursor = bob.locator("meta[name=last-event-id]").get_attribute("content")
    expect(bob.locator("#threads-unread")).to_be_hidden()

    send(mina, "방금 올린 글")
    reply_in_background(mina, workspace, root, "목요일은 제가 맡을게요")

    def with_the_older_cursor(route):
        response = route.fetch()
        html = re.sub(r'(<meta name="last-event-id" content=")\d+', rf"\g<1>{cursor}", response.text())
        route.fulfill(response=response, body=html)

    created = "window.__created = 0; document.addEventListener('wsx:live', (event) => {" \
              " if (event.detail.type === 'message.created') window.__created += 1; });"
    bob.add_init_script(created)
    bob.route(f"**/w/{workspace}", with_the_older_cursor, times=1)
    bob.goto(f"/w/{workspace}")
    wait_until_live(bob)
    # The channel's count (its badge shows mentions only: Bob's default for channels here).
    link = bob.locator(f"#sidebar a[data-room-link='{channel_id}']")
    threads = bob.locator("#threads-unread")
    # Both events replayed, and one more message sent live after them.
    bob.wait_for_function("() => window.__created >= 2")
    send(mina, "그다음 글")
    bob.wait_for_function("() => window.__created >= 3")
    expect(link).to_have_attribute("data-unread-count", "2")
    expect(threads).to_have_text("1")
    bob.reload()
    expect(link).to_have_attribute("data-unread-count", "2")
    expect(threads).to_have_text("1")
