"""Presence and typing, as two teammates see each other in Korean at phone and desktop widths:
a dot that turns online when the teammate opens wsx, away when all their tabs are hidden,
online again when they come back and offline when they leave; and "Bob님이 입력 중…" while
the teammate types, gone when the message arrives."""

import pytest
from playwright.sync_api import Page, expect

from conftest import composer, korean_pair, messages_with, wait_until_live


def hide(page: Page, hidden: bool) -> None:
    """What the browser does when every tab of a window is hidden (minimised, another app)."""
    page.evaluate("""(hidden) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => hidden ? 'hidden' : 'visible' });
        document.dispatchEvent(new Event('visibilitychange'));
    }""", hidden)


@pytest.mark.parametrize("width", [390, 1280])
def test_a_teammates_dot_follows_them_online_away_and_offline(new_context, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    bob_id = bob.evaluate("document.querySelector('meta[name=viewer-id]').content")
    # Bob has no page open yet: offline on 민아's members page.
    bob.goto("about:blank")
    mina.goto(f"/w/{workspace}/members")
    wait_until_live(mina)
    dot = mina.locator(f'#member-table [data-presence="{bob_id}"]')
    expect(dot).to_have_attribute("data-state", "offline", timeout=15000)
    expect(dot).to_have_attribute("aria-label", "오프라인")

    bob.goto(channel)
    wait_until_live(bob)
    expect(dot).to_have_attribute("data-state", "online")
    expect(dot).to_have_attribute("aria-label", "온라인")

    hide(bob, True)
    expect(dot).to_have_attribute("data-state", "away")
    expect(dot).to_have_attribute("title", "자리 비움")
    hide(bob, False)
    expect(dot).to_have_attribute("data-state", "online")

    # His profile and the DM with him show the same.
    mina.goto(f"/users/{bob_id}")
    expect(mina.locator(f'main [data-presence="{bob_id}"]')).to_have_attribute("data-state", "online")
    mina.goto(f"/w/{workspace}/dm/{bob_id}")
    expect(mina.locator(f'.room-header [data-presence="{bob_id}"]')).to_have_attribute("data-state", "online")
    assert mina.evaluate("document.documentElement.scrollWidth") <= width

    # Bob closes wsx: offline once the grace for moving between pages has passed.
    bob.close()
    expect(mina.locator(f'.room-header [data-presence="{bob_id}"]')).to_have_attribute("data-state", "offline", timeout=15000)


@pytest.mark.parametrize("width", [390, 1280])
def test_typing_shows_in_the_room_until_the_message_arrives(new_context, width):
    mina, bob, _, channel = korean_pair(new_context, width)
    bob.goto(channel)
    wait_until_live(bob)
    indicator = mina.locator("#typing-indicator")
    expect(indicator).to_have_text("")
    composer(bob).press_sequentially("곧 보낼게요", delay=30)
    expect(indicator).to_have_text("Bob님이 입력 중…")
    composer(bob).press("Enter")
    expect(messages_with(mina, "곧 보낼게요")).to_have_count(1)
    expect(indicator).to_have_text("")
    # A signal left alone fades after six seconds.
    composer(bob).press_sequentially("하나 더", delay=30)
    expect(indicator).to_have_text("Bob님이 입력 중…")
    expect(indicator).to_have_text("", timeout=9000)
    assert mina.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [390, 1280])
def test_a_custom_status_shows_beside_the_name_and_changes_live(new_context, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    mina_id = mina.evaluate("document.querySelector('meta[name=viewer-id]').content")
    bob.goto(f"/w/{workspace}/members")
    wait_until_live(bob)
    status = bob.locator(f'#member-table [data-status="{mina_id}"]')
    expect(status).to_be_hidden()

    mina.goto("/profile")
    mina.locator("#status-emoji").fill("🌴")
    mina.locator("#status-text").fill("휴가 중, 월요일에 봬요")
    mina.locator("#status-duration").select_option(label="이번 주")
    with mina.expect_navigation():
        mina.locator("#status-form button[type=submit]:not([name])").click()
    expect(mina.locator("main .status-now .user-status")).to_have_text("🌴 휴가 중, 월요일에 봬요")
    assert mina.evaluate("document.documentElement.scrollWidth") <= width
    # Bob's open page shows it without a reload.
    expect(status).to_have_text("🌴 휴가 중, 월요일에 봬요")
    assert bob.evaluate("document.documentElement.scrollWidth") <= width

    # Not an emoji: said beside the field, in Korean.
    mina.locator("#status-emoji").fill("야자수")
    with mina.expect_navigation():
        mina.locator("#status-form button[type=submit]:not([name])").click()
    expect(mina.locator("#status-emoji-error")).to_have_text("이모지 하나를 골라 주세요.")

    mina.goto("/profile")
    with mina.expect_navigation():
        mina.locator("#status-form button[name=clear]").click()
    expect(status).to_have_text("")


def test_ten_idle_minutes_make_a_teammate_away(new_context):
    mina, bob, workspace, channel = korean_pair(new_context, 1280)
    bob_id = bob.evaluate("document.querySelector('meta[name=viewer-id]').content")
    bob.clock.install()
    bob.goto(channel)
    wait_until_live(bob)
    mina.goto(f"/w/{workspace}/members")
    dot = mina.locator(f'#member-table [data-presence="{bob_id}"]')
    expect(dot).to_have_attribute("data-state", "online")
    # Nine minutes without a touch: still here.
    bob.clock.fast_forward("09:00")
    mina.wait_for_timeout(1000)
    expect(dot).to_have_attribute("data-state", "online")
    bob.clock.fast_forward("01:30")
    expect(dot).to_have_attribute("data-state", "away")
    # The mouse moves on his page: back.
    bob.mouse.move(200, 200)
    bob.mouse.move(220, 240)
    expect(dot).to_have_attribute("data-state", "online")
