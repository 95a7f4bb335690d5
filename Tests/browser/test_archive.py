"""Archiving a channel in Korean at phone and desktop widths: after a confirmation the channel
is read-only with a notice where the composer was, listed under 보관됨 in the sidebar, and a
teammate's open page follows at once; bringing it back restores the composer."""

import pytest
from playwright.sync_api import expect

from conftest import korean_pair, unique_name, wait_until_live


@pytest.mark.parametrize("width", [390, 1280])
def test_archive_and_bring_back_a_channel(new_context, width):
    mina, bob, workspace, _ = korean_pair(new_context, width)
    name = unique_name("기록")
    mina.goto(f"/w/{workspace}/channels")
    mina.locator("#channel-name").fill(name)
    with mina.expect_navigation():
        mina.locator("#create-channel-form button[type=submit]").click()
    channel = mina.url.split("?")[0]
    bob.goto(f"/w/{workspace}/channels")
    with bob.expect_navigation():
        bob.locator("#channel-directory li", has_text=name).locator("button").click()
    bob.goto(channel)
    wait_until_live(bob)

    mina.goto(channel + "/settings")
    with mina.expect_navigation():
        mina.locator("#channel-archive-form button").click()
    expect(mina.locator("main h1")).to_contain_text(f"#{name} 채널을 보관할까요?")
    with mina.expect_navigation():
        mina.locator("main form button[type=submit]").first.click()
    expect(mina.locator("#archived-notice")).to_contain_text("보관된 채널입니다")
    expect(mina.locator("#composer")).to_have_count(0)
    expect(mina.locator("#sidebar-archived-heading")).to_have_text("보관됨")
    expect(mina.locator("#sidebar-archived a", has_text=name)).to_have_count(1)
    assert mina.evaluate("document.documentElement.scrollWidth") <= width

    # Bob's open page turns read-only by itself.
    expect(bob.locator("#archived-notice")).to_be_visible()
    expect(bob.locator("#composer")).to_have_count(0)
    assert bob.evaluate("document.documentElement.scrollWidth") <= width

    with mina.expect_navigation():
        mina.locator("#archived-notice button").click()
    expect(mina.locator("#composer")).to_be_visible()
    expect(bob.locator("#composer")).to_be_visible()
