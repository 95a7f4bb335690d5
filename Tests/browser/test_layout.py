"""Layout at phone, tablet and desktop widths: no page scrolls sideways."""

import re

import pytest
from playwright.sync_api import Page, expect

from conftest import add_member, create_workspace, signup, unique_email, unique_name

WIDTHS = (390, 768, 1280)


def wider_than_window(page: Page) -> str | None:
    """What makes the page wider than the window (its width and the widest element), or None."""
    return page.evaluate("""() => {
        const width = document.documentElement.clientWidth;
        if (document.documentElement.scrollWidth <= width) return null;
        const culprits = [...document.querySelectorAll('body *')]
            .filter(element => element.getBoundingClientRect().right > width + 0.5)
            .map(element => `${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''}.${element.className}`);
        return `page ${document.documentElement.scrollWidth} px in a ${width} px window: ${culprits.slice(0, 5).join(', ')}`;
    }""")


@pytest.mark.parametrize("locale", ["ko-KR", "en-US"])
def test_no_main_page_scrolls_sideways_at_any_width(new_context, locale):
    owner = new_context(locale).new_page()
    mate = new_context(locale).new_page()
    owner_email, mate_email = unique_email("owner"), unique_email("mate")
    signup(owner, owner_email, "김민아")
    signup(mate, mate_email, "박지수")
    workspace = create_workspace(owner, unique_name("디자인팀"), "팀의 모든 대화를 한곳에서 나누는 워크스페이스입니다")
    add_member(owner, workspace, mate, mate_email)
    owner.goto(f"/w/{workspace}")
    channel = owner.locator("#home-channels a").first.get_attribute("href")
    owner.goto(channel)
    owner.locator("#composer textarea[name=content]").fill(
        "아주긴한국어단어가끊기지않고계속이어지는경우에도 https://example.com/" + "a" * 120 + " 확인 부탁드려요")
    owner.keyboard.press("Enter")
    expect(owner.locator("#message-list li.message")).to_have_count(1)
    owner.goto(f"/w/{workspace}/members")
    mate_profile = owner.locator("main a", has_text="박지수").first.get_attribute("href")
    mate_id = re.fullmatch(r"/users/(\d+)", mate_profile).group(1)

    pages = ["/workspaces", f"/w/{workspace}", channel, f"/w/{workspace}/dm/{mate_id}", f"/w/{workspace}/members",
             f"/w/{workspace}/channels", f"/w/{workspace}/search?q=%EB%8C%80%ED%99%94", "/store", "/profile",
             f"/w/{workspace}/settings", f"{channel}/settings", mate_profile]
    problems = []
    for width in WIDTHS:
        owner.set_viewport_size({"width": width, "height": 844})
        for path in pages:
            owner.goto(path)
            if problem := wider_than_window(owner):
                problems.append(f"{path} at {width}: {problem}")
    assert not problems, "\n".join(problems)
