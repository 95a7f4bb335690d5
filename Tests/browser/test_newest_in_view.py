"""The newest message in view: opening a room, receiving and sending keep the newest message
whole above the composer, at a phone's width and a desktop's, also once its picture loads; a
reader scrolled up into history is never pulled down, and a chip offers the new messages."""

import pathlib

import pytest
from playwright.sync_api import Page, expect

from conftest import ACTION_TIMEOUT, composer, korean_pair, messages_with, wait_until_live

PHOTO = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "photo.jpg"


def newest_is_above_composer(page: Page) -> None:
    """Waits until the newest message's bottom edge is at or above the composer's top edge, and
    inside the window (pictures loaded)."""
    page.wait_for_function("""() => {
        const last = [...document.querySelectorAll('#message-list li.message')].pop();
        const composer = document.getElementById('composer');
        if (!last || !composer) return false;
        for (const img of last.querySelectorAll('img')) if (!img.complete) return false;
        const bottom = last.getBoundingClientRect().bottom, top = composer.getBoundingClientRect().top;
        return bottom <= top + 1 && last.getBoundingClientRect().top >= 0 && top <= innerHeight;
    }""", timeout=ACTION_TIMEOUT)


def send(page: Page, text: str, files: list[pathlib.Path] = ()) -> None:
    if files:
        page.set_input_files("#composer-files", [str(f) for f in files])
    box = composer(page)
    box.fill(text)
    box.press("Enter")
    expect(messages_with(page, text)).to_have_count(1)
    expect(box).to_have_value("")


def scroll_top(page: Page) -> float:
    return page.evaluate("document.getElementById('message-list').scrollTop")


@pytest.mark.parametrize("width", [390, 1280])
def test_the_newest_message_stays_above_the_composer(new_context, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    bob.goto(channel)
    wait_until_live(bob)
    for i in range(14):
        send(mina, f"지난 이야기 {i} " + "회의 내용을 정리했습니다 " * 4)
    expect(messages_with(bob, "지난 이야기 13")).to_have_count(1)
    newest_is_above_composer(bob)
    # Opening the room (all read: his tab read them as they came): the newest message whole
    # above the composer.
    bob.wait_for_timeout(1000)
    bob.reload()
    wait_until_live(bob)
    newest_is_above_composer(bob)

    # Receiving, and sending one's own.
    send(mina, "받은 메시지입니다")
    expect(messages_with(bob, "받은 메시지입니다")).to_have_count(1)
    newest_is_above_composer(bob)
    send(bob, "보낸 메시지입니다")
    newest_is_above_composer(bob)

    # A picture: for its sender, and for a reader at the bottom, once it has loaded.
    send(mina, "사진 보냅니다", [PHOTO])
    newest_is_above_composer(mina)
    expect(messages_with(bob, "사진 보냅니다")).to_have_count(1)
    newest_is_above_composer(bob)
    picture = messages_with(bob, "사진 보냅니다").locator("img.thumbnail")
    box = picture.bounding_box()
    assert box and box["height"] > 100, box   # its box was there before the picture came
    # Opening the room again with the picture last (once his tab has told it was read).
    bob.wait_for_timeout(800)
    bob.reload()
    newest_is_above_composer(bob)

    # Reading history: nothing moves under the reader; a chip says there is more below.
    bob.evaluate("document.getElementById('message-list').scrollTop = 0")
    bob.wait_for_timeout(300)
    before = scroll_top(bob)
    send(mina, "읽는 중에 온 메시지")
    expect(messages_with(bob, "읽는 중에 온 메시지")).to_have_count(1)
    bob.wait_for_timeout(500)
    assert scroll_top(bob) == before
    chip = bob.locator("#jump-latest")
    expect(chip).to_be_visible()
    expect(chip).to_have_text("새 메시지 ↓")
    chip.click()
    newest_is_above_composer(bob)
    expect(chip).to_be_hidden()
    assert bob.evaluate("document.documentElement.scrollWidth") <= width
