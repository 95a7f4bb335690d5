"""History: scrolling up loads older messages in place, a button jumps back to the latest,
posting from an older page ends on the latest, and ?around= opens at a message, lit up."""

import re

import pytest
from playwright.sync_api import Page, expect

from conftest import composer, create_workspace, signup, unique_email, unique_name, wait_until_live


def room_with_messages(page: Page, count: int) -> str:
    """A channel with `count` messages, "메시지 1" … posted through the page's own form action."""
    workspace = create_workspace(page, unique_name("기록"))
    page.goto(f"/w/{workspace}")
    channel = page.locator("#home-channels a").first.get_attribute("href")
    page.goto(channel)
    page.evaluate("""async ([action, count]) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        for (let i = 1; i <= count; i++) {
            const body = new URLSearchParams({_csrf: token, content: `메시지 ${i}`});
            await fetch(action, {method: 'POST', body, headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
        }
    }""", [page.locator("#composer").get_attribute("action"), count])
    page.goto(channel)
    wait_until_live(page)
    return channel


def bodies(page: Page) -> list[str]:
    return page.locator("#message-list li.message .message-body").all_inner_texts()


TO_TOP = "document.getElementById('message-list').scrollTop = 0; window.scrollTo(0, 0)"


@pytest.mark.parametrize("width", [390, 1280])
def test_scrolling_up_loads_older_messages_in_place_and_a_button_jumps_back(new_context, width):
    page = new_context("ko-KR").new_page()
    page.set_viewport_size({"width": width, "height": 844})
    signup(page, unique_email("history"), "김민아")
    room_with_messages(page, 120)
    shown = bodies(page)
    assert shown[-1] == "메시지 120" and len(shown) < 120
    jump = page.locator(".jump-latest")
    expect(jump).to_be_hidden()

    # Up to the top: the older page comes in above, and the message that was at the top stays put.
    first = page.locator("#message-list li.message").first
    first_text = first.locator(".message-body").inner_text()
    page.evaluate(TO_TOP)
    expect(page.locator("#message-list li.message")).not_to_have_count(len(shown))
    anchor = page.locator("#message-list li.message", has_text=first_text).first
    box = anchor.bounding_box()
    # Still near the top of the screen, where it was (had the view stayed at scrollTop 0, the
    # fifty messages above would have pushed it thousands of pixels down).
    assert 0 < box["y"] < 400, f"the view moved: the message that was at the top is now at {box['y']}"
    expect(jump).to_be_visible()
    expect(jump).to_have_text("최신 메시지로 이동")

    # Every message comes in the end, in order, once; the "older" link is gone.
    for _ in range(5):
        page.evaluate(TO_TOP)
        page.wait_for_timeout(300)
    expect(page.locator("#message-list li.message")).to_have_count(120)
    assert bodies(page) == [f"메시지 {i}" for i in range(1, 121)]
    expect(page.locator(".paging.older")).to_have_count(0)

    jump.click()
    expect(page.locator("#message-list li.message").last).to_be_in_viewport()
    expect(jump).to_be_hidden()


def test_posting_from_an_older_page_ends_on_the_latest_and_links_open_at_their_message(new_context):
    page = new_context("ko-KR").new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    signup(page, unique_email("older"), "김민아")
    channel = room_with_messages(page, 80)
    older = page.locator(".paging.older a").get_attribute("href")
    page.goto(older)
    expect(page.locator("section.room")).to_have_attribute("data-latest", "no")
    expect(page.locator(".jump-latest")).to_be_visible()

    composer(page).fill("옛 페이지에서 보낸 메시지")
    with page.expect_navigation():
        composer(page).press("Enter")
    expect(page.locator("section.room")).to_have_attribute("data-latest", "yes")
    expect(page.locator("#message-list li.message").last.locator(".message-body")).to_have_text("옛 페이지에서 보낸 메시지")
    expect(page.locator("#message-list li.message").last).to_be_in_viewport()

    # A message's link (?around=) opens with it in the middle, lit up.
    target = page.locator("#message-list li.message", has_text="메시지 40").first
    message_id = target.get_attribute("data-message")
    page.goto(f"{channel}?around={message_id}#m-{message_id}")
    message = page.locator(f"#m-{message_id}")
    expect(message).to_have_class(re.compile(r"\bhighlighted\b"))
    box = message.bounding_box()
    frame = page.locator("#message-list").bounding_box()
    middle = frame["y"] + frame["height"] / 2
    assert abs(box["y"] + box["height"] / 2 - middle) < 120, (box, frame)
