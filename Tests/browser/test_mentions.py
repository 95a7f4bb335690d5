"""Mentions as Korean teams write them: `@Bob님 확인 부탁드려요` mentions Bob, highlighted on his
tab; the Mentions view lists it and takes new ones live; @channel in a large room asks first."""

import json

import pytest
from playwright.sync_api import Page, expect

from conftest import (
    add_member, composer, korean_pair, messages_with, set_width, signup, unique_email, wait_until_live,
)


def send(page: Page, text: str) -> None:
    box = composer(page)
    box.fill(text)
    box.press("Enter")
    expect(messages_with(page, text.split()[-1])).to_have_count(1)
    expect(box).to_have_value("")


@pytest.mark.parametrize("width", [390, 1280])
def test_a_korean_mention_is_highlighted_and_listed_live_in_mentions(new_context, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    bob.goto(channel)
    wait_until_live(bob)
    send(mina, "@Bob님 확인 부탁드려요")
    mention = messages_with(bob, "확인 부탁드려요").locator(".mention")
    expect(mention).to_have_text("@Bob")
    expect(mention).to_have_class("mention mention-me")
    # 민아's own tab shows the mention, not highlighted for her.
    expect(messages_with(mina, "확인 부탁드려요").locator(".mention")).to_have_class("mention")

    # Bob opens Mentions from the sidebar (the drawer on a phone).
    if width < 800:
        bob.locator("#menu-button").click()
    bob.locator("#sidebar-mentions").click()
    expect(bob.locator("main h1")).to_have_text("멘션")
    items = bob.locator("#mention-list li")
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("확인 부탁드려요")
    expect(items.first.locator(".collection-where")).to_contain_text("민아")
    wait_until_live(bob)

    # A new mention arrives while the view is open: it leads the list, without a reload.
    send(mina, "@Bob 내일 10시 어때요")
    expect(items).to_have_count(2)
    expect(items.first).to_contain_text("내일 10시 어때요")
    assert bob.evaluate("window.__wsxSameDocument === true")
    assert bob.evaluate("document.documentElement.scrollWidth") <= width

    # The link goes to the message in its room.
    items.nth(1).locator(".collection-open a").click()
    expect(bob.locator("li.message:target")).to_contain_text("확인 부탁드려요")


def test_channel_in_a_large_room_asks_before_sending(new_context):
    mina, _, _, channel = korean_pair(new_context, 1280)
    asked = []

    # The server asks (409 with the question) when the room is large; this room is small, so
    # the first answer is the one the server gives a large room, as its API documents it.
    def large_room(route):
        if route.request.method == "POST" and not asked:
            asked.append(route.request.post_data_buffer)
            route.fulfill(status=409, content_type="application/json",
                          body=json.dumps({"confirm": "이 대화방의 60명 모두에게 알림이 갑니다. 보낼까요?"}))
        else:
            route.continue_()

    mina.route(f"**{channel}/messages", large_room)
    questions = []
    mina.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept()))
    with mina.expect_request(lambda request: request.method == "POST" and "confirm_mentions" in (request.post_data or "")) as sent:
        composer(mina).fill("@channel 전체 공지")
        composer(mina).press("Enter")
    assert questions == ["이 대화방의 60명 모두에게 알림이 갑니다. 보낼까요?"]
    assert "confirm_mentions" not in asked[0].decode("utf-8", "replace")
    assert 'name="confirm_mentions"' in sent.value.post_data and "yes" in sent.value.post_data
    expect(messages_with(mina, "전체 공지").locator(".mention")).to_have_text("@channel")
    expect(composer(mina)).to_have_value("")

    # Said no: nothing is sent and the text stays.
    asked.clear()
    mina.once("dialog", lambda dialog: dialog.dismiss())
    composer(mina).fill("@here 다시 공지")
    composer(mina).press("Enter")
    expect(composer(mina)).to_have_value("@here 다시 공지")
    expect(messages_with(mina, "다시 공지")).to_have_count(0)


def join_as(new_context, workspace: int, owner: Page, nickname: str, width: int) -> Page:
    member = new_context("ko-KR").new_page()
    set_width(member, width)
    email = unique_email("given")
    signup(member, email, nickname)
    add_member(owner, workspace, member, email)
    return member


@pytest.mark.parametrize("width", [390, 1280])
def test_a_given_name_with_nim_mentions_its_one_holder_and_the_picker_keeps_nim_attached(new_context, width):
    mina, bob, workspace, channel = korean_pair(new_context, width)
    minji = join_as(new_context, workspace, mina, "김민지", width)
    minji.goto(channel)
    wait_until_live(minji)
    mina.goto(channel)
    wait_until_live(mina)

    # 민아 writes to 김민지 by her given name, as Koreans do: it is a mention, highlighted for her.
    send(mina, "@민지님 회의록 확인 부탁드려요")
    mention = messages_with(minji, "회의록 확인 부탁드려요").locator(".mention")
    expect(mention).to_have_text("@민지")
    expect(mention).to_have_class("mention mention-me")

    # The picker finds her by the given name and inserts her whole nickname; a 님 typed right
    # after joins it instead of standing apart.
    box = composer(mina)
    box.click()
    mina.keyboard.type("@민지")
    option = mina.locator(".mention-picker [role=option]")
    expect(option).to_have_count(1)
    mina.keyboard.press("Enter")
    expect(box).to_have_value("@김민지 ")
    mina.keyboard.type("님 오늘 회의 있어요")
    expect(box).to_have_value("@김민지님 오늘 회의 있어요")
    # A word that is not a particle keeps its space.
    box.fill("")
    mina.keyboard.type("@민지")
    mina.keyboard.press("Enter")
    mina.keyboard.type("오늘 봐요")
    expect(box).to_have_value("@김민지 오늘 봐요")
    box.fill("")

    # 이민지 joins: 민지 is now two people, so it stays text, and the picker offers both.
    join_as(new_context, workspace, mina, "이민지", width)
    mina.goto(channel)
    wait_until_live(mina)
    send(mina, "@민지님 두 분 중 누구?")
    expect(messages_with(minji, "두 분 중 누구").locator(".mention")).to_have_count(0)
    mina.keyboard.type("@민지")
    expect(option).to_have_count(2)
    expect(option.nth(0)).to_contain_text("민지")
    expect(option.nth(1)).to_contain_text("민지")
    assert mina.evaluate("document.documentElement.scrollWidth") <= width
