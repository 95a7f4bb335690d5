"""Group conversations in Korean at phone and desktop widths: started from "새 대화 시작" by
ticking people (the search narrows the list), live in everyone's sidebar, grown by anyone in it
(the newcomer reads the history, the others' titles change at once), and left after a question.
Without JavaScript the picker is a plain list of checkboxes."""

import re

import pytest
from playwright.sync_api import expect

from conftest import (add_member, composer, korean_pair, messages_with, not_reloaded, open_room_tools, set_width, signup,
                      unique_email, wait_until_live)
from test_messaging import type_and_press_enter


def teammate(new_context, mina, workspace: int, width: int, nickname: str):
    """Another member of 민아's workspace, signed in on their own browser, on the workspace home."""
    page = new_context("ko-KR").new_page()
    set_width(page, width)
    email = unique_email("mate")
    signup(page, email, nickname)
    add_member(mina, workspace, page, email)
    page.goto(f"/w/{workspace}")
    return page


def open_sidebar(page, width: int) -> None:
    if width < 800:
        page.locator("#menu-button").click()


@pytest.mark.parametrize("width", [390, 1280])
def test_a_group_is_started_grown_and_left_live(new_context, width):
    mina, bob, workspace, _ = korean_pair(new_context, width)
    jisu = teammate(new_context, mina, workspace, width, "지수")
    bob.goto(f"/w/{workspace}")
    wait_until_live(bob)
    wait_until_live(jisu)

    # 민아 picks Bob (found by typing) and 지수.
    mina.goto(f"/w/{workspace}")
    open_sidebar(mina, width)
    with mina.expect_navigation():
        mina.locator("#sidebar-new-conversation").click()
    search = mina.locator("#conversation-filter")
    expect(search).to_be_visible()
    search.fill("bo")
    expect(mina.locator("[data-person-name='지수']")).to_be_hidden()
    mina.locator("[data-person-name='Bob'] input").check()
    search.fill("")
    mina.locator("[data-person-name='지수'] input").check()
    assert mina.evaluate("document.documentElement.scrollWidth") <= width
    with mina.expect_navigation():
        mina.locator("#conversation-form button[type=submit]").click()
    assert re.fullmatch(rf".*/w/{workspace}/g/\d+", mina.url), mina.url
    group = mina.url
    expect(mina.locator(".room-header h1")).to_have_text("Bob, 지수")
    expect(mina.locator("#group-members summary")).to_have_text("멤버 3명")
    wait_until_live(mina)
    type_and_press_enter(mina, "다음 주 회의 안건 정리했어요")

    # Bob's sidebar shows the group at once, named for him, with the message unread.
    open_sidebar(bob, width)
    link = bob.locator("#sidebar-dms a[data-group=yes]")
    expect(link).to_contain_text("민아, 지수")
    expect(link.locator("[data-unread]")).to_have_text("1")
    assert not_reloaded(bob)
    link.click()
    expect(messages_with(bob, "다음 주 회의 안건 정리했어요")).to_be_visible()
    wait_until_live(bob)

    # 지수 adds Dave; Dave reads the history, and Bob's open page names him at once.
    dave = teammate(new_context, mina, workspace, width, "Dave")
    jisu.goto(group)
    open_room_tools(jisu)
    jisu.locator("#group-members summary").click()
    jisu.locator("#group-add-member").select_option(label="Dave")
    with jisu.expect_navigation():
        jisu.locator("#group-add-form button[type=submit]").click()
    expect(bob.locator(".room-header h1")).to_have_text("Dave, 민아, 지수")
    expect(jisu.locator(".room-header h1")).to_have_text("Bob, Dave, 민아")
    wait_until_live(jisu)
    dave.goto(group)
    expect(messages_with(dave, "다음 주 회의 안건 정리했어요")).to_be_visible()
    assert dave.evaluate("document.documentElement.scrollWidth") <= width

    # Bob leaves, after the question; the group is gone from his sidebar, not from theirs.
    open_room_tools(bob)
    bob.locator("#group-members summary").click()
    expect(bob.locator("#group-members")).to_contain_text("Dave")
    assert bob.evaluate("document.documentElement.scrollWidth") <= width
    with bob.expect_navigation():
        bob.locator("#group-leave-form button[type=submit]").click()
    expect(bob.locator("main h1")).to_contain_text("나갈까요")
    with bob.expect_navigation():
        bob.locator("#confirm-form button[type=submit]").click()
    assert bob.url.endswith(f"/w/{workspace}")
    expect(bob.locator("#sidebar-dms a[data-group=yes]")).to_have_count(0)
    expect(jisu.locator(".room-header h1")).to_have_text("Dave, 민아")
    assert not_reloaded(jisu)


def test_without_javascript_the_picker_is_a_list_of_checkboxes(browser, server, new_context):
    mina, bob, workspace, _ = korean_pair(new_context, 390)
    jisu = teammate(new_context, mina, workspace, 390, "지수")
    context = browser.new_context(base_url=server, locale="ko-KR", java_script_enabled=False,
                                  extra_http_headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    try:
        page = context.new_page()
        set_width(page, 390)
        email = unique_email("nojs")
        signup(page, email, "하늘")
        add_member(mina, workspace, page, email)
        page.goto(f"/w/{workspace}/dm")
        expect(page.locator("#conversation-filter")).to_be_hidden()
        # Nobody ticked: the picker says so, and keeps its list.
        with page.expect_navigation():
            page.locator("#conversation-form button[type=submit]").click()
        expect(page.locator("#conversation-error")).to_have_text("대화할 사람을 한 명 이상 고르세요.")
        page.locator("[data-person-name='Bob'] input").check()
        page.locator("[data-person-name='지수'] input").check()
        with page.expect_navigation():
            page.locator("#conversation-form button[type=submit]").click()
        assert "/g/" in page.url
        composer(page).fill("자바스크립트 없이 보냅니다")
        with page.expect_navigation():
            page.locator("#composer button[type=submit]").click()
        expect(messages_with(page, "자바스크립트 없이 보냅니다")).to_be_visible()
        jisu.goto(page.url.split("#")[0])
        expect(messages_with(jisu, "자바스크립트 없이 보냅니다")).to_be_visible()
    finally:
        context.close()
