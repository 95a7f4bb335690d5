"""Private channels in Korean at phone and desktop widths: created from the channel browser
with a lock, invisible to a teammate until a member adds them, then in their sidebar at once."""

import pytest
from playwright.sync_api import expect

from conftest import korean_pair, unique_name, wait_until_live


@pytest.mark.parametrize("width", [390, 1280])
def test_a_private_channel_is_found_only_by_the_people_in_it(new_context, width):
    mina, bob, workspace, _ = korean_pair(new_context, width)
    name = unique_name("인사")
    mina.goto(f"/w/{workspace}/channels")
    mina.locator("#channel-name").fill(name)
    mina.locator("#channel-visibility input[value=private]").check()
    with mina.expect_navigation():
        mina.locator("#create-channel-form button[type=submit]").click()
    channel = mina.url
    expect(mina.locator(".room-header .room-sigil")).to_have_attribute("aria-label", "비공개")
    assert mina.evaluate("document.documentElement.scrollWidth") <= width

    # Bob does not find it, and its address is a plain 404 to him.
    bob.goto(f"/w/{workspace}/channels")
    expect(bob.locator("#channel-directory")).not_to_contain_text(name)
    assert bob.request.get(channel).status == 404
    bob.goto(f"/w/{workspace}")
    wait_until_live(bob)

    # 민아 adds him from the channel's settings; his sidebar shows it with a lock, live.
    mina.goto(channel + "/settings")
    mina.locator("#channel-add-member").select_option(label="Bob")
    with mina.expect_navigation():
        mina.locator("#channel-add-member-form button[type=submit]").click()
    expect(mina.locator("#channel-members")).to_contain_text("Bob")
    if width < 800:
        bob.locator("#menu-button").click()
    link = bob.locator("#sidebar-channels a[data-private]", has_text=name)
    expect(link).to_be_visible()
    link.click()
    expect(bob.locator(".room-header h1")).to_contain_text(name)
    assert bob.evaluate("document.documentElement.scrollWidth") <= width
