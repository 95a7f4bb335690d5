"""`#채널` in a message links the workspace's public channel: it arrives live on a teammate's
tab as a link, keeps its "#" with the name on a phone, and following it opens the channel."""

import pytest
from playwright.sync_api import expect

from conftest import composer, korean_pair, messages_with, wait_until_live


@pytest.mark.parametrize("width", [390, 1280])
def test_a_channel_reference_arrives_live_as_a_link_that_opens_the_channel(new_context, width):
    mina, bob, workspace, general = korean_pair(new_context, width)
    mina.goto(f"/w/{workspace}/channels")
    mina.locator("#channel-name").fill("개발")
    with mina.expect_navigation():
        mina.locator("#create-channel-form button[type=submit]").click()
    dev = mina.url.split("?")[0]
    mina.goto(general)
    wait_until_live(mina)
    bob.goto(general)
    wait_until_live(bob)

    box = composer(mina)
    box.fill("배포 일정은 #개발에서 이어서 이야기해요")
    box.press("Enter")
    expect(box).to_have_value("")
    link = messages_with(bob, "이어서 이야기해요").locator("a.channel-ref")
    expect(link).to_have_text("#개발")
    assert bob.evaluate("window.__wsxSameDocument === true")
    assert bob.evaluate("document.documentElement.scrollWidth") <= width
    # The "#" and the name are one piece: both on the link's first line box.
    tops = link.evaluate("a => Array.from(a.getClientRects()).map(r => Math.round(r.top))")
    assert len(set(tops)) == 1, tops

    link.click()
    expect(bob).to_have_url(dev)
    expect(bob.locator("main h1")).to_contain_text("개발")
