"""Getting around in the browser, in Korean, on a desktop (1280×800) and a phone (390×844): the
lightbox (a thumbnail opens its image over the page; ←/→ and the buttons go through every image of
the room, live ones too; Esc, the close button or a click beside the picture closes it and focus
goes back to the thumbnail; the picture fits the screen; without JavaScript the thumbnail is just
a link to the image), the quick switcher (Ctrl+K; channels, DMs and members found by name or by
their initial consonants, ㅇㅂ → 일반, ㄱㅁㅇ → 김민아; Enter goes there) with its matcher checked on
its own, and the composer's @ picker (filters as one types, Korean IME included; Enter or Tab
puts `@nickname ` in the text without sending; Esc closes).

Set WSX_SHOTS_DIR to a folder to keep screenshots of the lightbox and the switcher."""

import os
import pathlib
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from conftest import (
    PASSWORD, add_member, composer, create_workspace, login, messages_with, not_reloaded, path_of,
    signup, unique_email, unique_name, unique_text, wait_until_live,
)

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "Fixtures"
PHOTO = FIXTURES / "photo.jpg"  # shown 400 wide, 600 high (EXIF rotation)
PNG = FIXTURES / "image.png"  # 64 x 48
LARGE = FIXTURES / "shallow.png"  # 2000 x 2000

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SHOTS = os.environ.get("WSX_SHOTS_DIR")

# Korean texts of the page (Sources/Views/Strings/Strings+ko.swift).
KO_LIGHTBOX = "이미지 보기"
KO_CLOSE = "닫기"
KO_PREVIOUS = "이전 이미지"
KO_NEXT = "다음 이미지"
KO_DOWNLOAD = "다운로드"
KO_SWITCHER_PLACEHOLDER = "채널, DM, 멤버 찾기"
KO_SWITCHER_EMPTY = "찾는 항목이 없습니다"
KO_GENERAL = "일반"  # the default channel of a workspace made in Korean


# ---------------------------------------------------------------------------------------------
# Helpers of this suite (the shared ones are in conftest.py)


def shot(page: Page, name: str) -> None:
    if SHOTS:
        pathlib.Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(pathlib.Path(SHOTS) / f"{name}.png"))


def korean_page(new_context, viewport=DESKTOP) -> Page:
    page = new_context("ko-KR").new_page()
    page.set_viewport_size(viewport)
    return page


def viewer_id(page: Page) -> int:
    return int(page.locator("meta[name=viewer-id]").get_attribute("content"))


def general_channel_path(page: Page, workspace_id: int) -> str:
    """The path of the default channel (일반 in a Korean workspace), from the sidebar."""
    page.goto(f"/w/{workspace_id}")
    link = page.locator("#sidebar-channels a[data-room-link]", has_text=KO_GENERAL)
    expect(link).to_have_count(1)
    href = link.get_attribute("href") or ""
    assert re.fullmatch(rf"/w/{workspace_id}/c/\d+", href), href
    return href


def own_korean_channel(page: Page, nickname: str = "이서준") -> tuple[int, str]:
    """Signs up `nickname` in `page`, makes a workspace; returns its id and the path of 일반."""
    signup(page, unique_email("nav"), nickname)
    workspace_id = create_workspace(page, unique_name("길찾기"))
    return workspace_id, general_channel_path(page, workspace_id)


class KoreanTeam:
    """이서준 (owner) with 김민아 and 박지수, who accepted his invitation; each in their own
    Korean browser."""

    def __init__(self, new_context, viewport=DESKTOP):
        self.owner = korean_page(new_context, viewport)
        self.workspace_id, self.general_path = own_korean_channel(self.owner)
        self.ids = {"이서준": viewer_id(self.owner)}
        self.pages = {"이서준": self.owner}
        for nickname in ("김민아", "박지수"):
            member = korean_page(new_context, viewport)
            email = unique_email("nav-member")
            signup(member, email, nickname)
            self.ids[nickname] = viewer_id(member)
            add_member(self.owner, self.workspace_id, member, email)
            self.pages[nickname] = member

    def dm_path(self, nickname: str) -> str:
        return f"/w/{self.workspace_id}/dm/{self.ids[nickname]}"


def send_files(page: Page, files: list[pathlib.Path], text: str) -> Locator:
    """Sends a message with `files` from the composer (shown live, no reload); returns it."""
    page.set_input_files("#composer-files", [str(f) for f in files])
    composer(page).fill(text)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/messages")) as posted:
        page.locator("#composer button[type=submit]").click()
    assert posted.value.status == 201, posted.value.status
    message = messages_with(page, text)
    expect(message.locator("a.attachment-image")).to_have_count(len(files))
    return message


def lightbox(page: Page) -> Locator:
    return page.locator("dialog.lightbox")


def lightbox_image(page: Page) -> Locator:
    return lightbox(page).locator("img.lightbox-image")


def expect_showing(page: Page, link: Locator, name: str, count: str) -> None:
    """The lightbox is open on the image `link` points to, named `name`, `count` (like 2 / 3)."""
    box = lightbox(page)
    expect(box).to_be_visible()
    expect(lightbox_image(page)).to_have_attribute("src", link.get_attribute("href"))
    expect(lightbox_image(page)).to_have_attribute("alt", name)
    expect(box.locator(".lightbox-name")).to_have_text(name)
    expect(box.locator(".lightbox-count")).to_have_text(count)
    download = box.get_by_role("link", name=KO_DOWNLOAD)
    expect(download).to_have_attribute("href", link.get_attribute("href"))
    expect(download).to_have_attribute("download", name)


def loaded_box(image: Locator) -> dict:
    """Waits until the lightbox picture has loaded; returns where it is on screen."""
    expect(image).to_have_js_property("complete", True)
    assert image.evaluate("img => img.naturalWidth") > 0, "the full image did not load"
    page = image.page
    page.wait_for_function("""() => {
        const img = document.querySelector('dialog.lightbox img.lightbox-image');
        const r = img.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
    }""")
    box = image.bounding_box()
    assert box, "the picture is not shown"
    return box


def assert_inside_viewport(page: Page, box: dict) -> None:
    size = page.viewport_size
    assert box["x"] >= -0.5 and box["y"] >= -0.5, box
    assert box["x"] + box["width"] <= size["width"] + 0.5, (box, size)
    assert box["y"] + box["height"] <= size["height"] + 0.5, (box, size)


def switcher(page: Page) -> Locator:
    return page.locator("dialog.switcher")


def switcher_input(page: Page) -> Locator:
    return switcher(page).get_by_role("combobox")


def switcher_options(page: Page) -> Locator:
    return switcher(page).get_by_role("option")


def open_switcher(page: Page) -> None:
    page.keyboard.press("Control+K")
    expect(switcher(page)).to_be_visible()
    expect(switcher_input(page)).to_be_focused()


def picker(page: Page) -> Locator:
    return page.locator("#composer [role=listbox].mention-picker")


def picker_options(page: Page) -> Locator:
    return picker(page).get_by_role("option")


def names(options: Locator) -> Locator:
    """The names shown in `options` (without the avatar's initial or the channel's #)."""
    return options.locator(".switcher-name")


def active_option_text(control: Locator) -> str:
    """The text of the option the combobox `control` points at with aria-activedescendant."""
    return control.evaluate("""el => {
        const id = el.getAttribute('aria-activedescendant');
        const option = id && document.getElementById(id);
        return option && option.getAttribute('aria-selected') === 'true'
            ? option.querySelector('.switcher-name').textContent : null;
    }""")


# ---------------------------------------------------------------------------------------------
# 1. The lightbox


def test_lightbox_steps_through_the_images_of_two_messages_and_gives_focus_back(new_context):
    page = korean_page(new_context)
    _, channel = own_korean_channel(page)
    page.goto(channel)
    wait_until_live(page)

    # Two messages, shown live (added to the list after the page loaded).
    first_text, second_text = unique_text("사진 한 장"), unique_text("그림 두 장")
    first = send_files(page, [PHOTO], first_text)
    second = send_files(page, [PNG, LARGE], second_text)
    assert not_reloaded(page)
    links = page.locator("#message-list a.attachment-image")
    expect(links).to_have_count(3)
    photo, png, large = links.nth(0), links.nth(1), links.nth(2)
    expect(first.locator("a.attachment-image")).to_have_attribute("href", photo.get_attribute("href"))
    expect(second.locator("a.attachment-image").first).to_have_attribute("href", png.get_attribute("href"))

    # A live thumbnail opens the lightbox, not a new tab.
    pages_before = len(page.context.pages)
    png.click()
    expect_showing(page, png, "image.png", "2 / 3")
    assert len(page.context.pages) == pages_before, "the image opened in a new tab"
    expect(lightbox(page)).to_have_attribute("aria-label", KO_LIGHTBOX)
    assert page.evaluate("document.querySelector('dialog.lightbox').matches(':modal')"), "not a modal dialog"
    page.keyboard.press("Escape")
    expect(lightbox(page)).to_be_hidden()
    expect(png).to_be_focused()

    # The same after a reload, on the server's own rendering of the list.
    page.reload()
    links = page.locator("#message-list a.attachment-image")
    photo, png, large = links.nth(0), links.nth(1), links.nth(2)
    photo.click()
    expect_showing(page, photo, "photo.jpg", "1 / 3")
    loaded_box(lightbox_image(page))
    previous = lightbox(page).get_by_role("button", name=KO_PREVIOUS)
    following = lightbox(page).get_by_role("button", name=KO_NEXT)
    expect(previous).to_be_disabled()

    page.keyboard.press("ArrowRight")
    expect_showing(page, png, "image.png", "2 / 3")
    page.keyboard.press("ArrowRight")  # across into the second message's second image
    expect_showing(page, large, "shallow.png", "3 / 3")
    expect(following).to_be_disabled()
    page.keyboard.press("ArrowRight")  # the last one stays
    expect_showing(page, large, "shallow.png", "3 / 3")
    page.keyboard.press("ArrowLeft")
    expect_showing(page, png, "image.png", "2 / 3")
    previous.click()
    expect_showing(page, photo, "photo.jpg", "1 / 3")
    following.click()
    expect_showing(page, png, "image.png", "2 / 3")

    previous.click()
    loaded_box(lightbox_image(page))
    shot(page, "lightbox-1280")
    following.click()

    # Focus stays inside the dialog while it is open (Tab goes round its controls).
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate("document.querySelector('dialog.lightbox').contains(document.activeElement)"), \
            "focus left the open lightbox"

    # Esc closes; focus is back on the thumbnail that opened it.
    page.keyboard.press("Escape")
    expect(lightbox(page)).to_be_hidden()
    expect(photo).to_be_focused()

    # From the keyboard: Enter on a focused thumbnail opens it; the close button closes it.
    large.focus()
    page.keyboard.press("Enter")
    expect_showing(page, large, "shallow.png", "3 / 3")
    box = loaded_box(lightbox_image(page))
    assert_inside_viewport(page, box)
    # A picture larger than the screen is scaled down to fill its height, square as it is.
    assert box["height"] > DESKTOP["height"] * 0.7 and abs(box["width"] - box["height"]) < 2, box
    lightbox(page).get_by_role("button", name=KO_CLOSE).click()
    expect(lightbox(page)).to_be_hidden()
    expect(large).to_be_focused()

    # A click on the dark area beside the picture closes it too; one on the picture does not.
    png.click()
    expect_showing(page, png, "image.png", "2 / 3")
    lightbox_image(page).click()
    expect(lightbox(page)).to_be_visible()
    page.keyboard.press("ArrowRight")  # the keys still work after a click on the picture
    expect_showing(page, large, "shallow.png", "3 / 3")
    page.mouse.click(DESKTOP["width"] / 2, 30)
    expect(lightbox(page)).to_be_hidden()
    expect(png).to_be_focused()

    # Ctrl+click leaves the link to the browser (a new tab with the image).
    with page.context.expect_page() as opened:
        photo.click(modifiers=["Control"])
    expect(lightbox(page)).to_be_hidden()
    opened.value.wait_for_load_state()
    assert path_of(opened.value) == photo.get_attribute("href")

    # The Download link downloads the image itself.
    photo.click()
    with page.expect_download() as info:
        lightbox(page).get_by_role("link", name=KO_DOWNLOAD).click()
    download = info.value
    assert download.failure() is None, download.failure()
    assert pathlib.Path(download.path()).read_bytes() == page.request.get(photo.get_attribute("href")).body()


def test_an_image_that_arrives_from_someone_else_opens_in_the_lightbox(new_context):
    team = KoreanTeam(new_context)
    owner, member = team.owner, team.pages["김민아"]
    owner.goto(team.general_path)
    wait_until_live(owner)
    member.goto(team.general_path)
    text = unique_text("방금 찍은 사진")
    send_files(member, [PHOTO], text)

    message = messages_with(owner, text)
    expect(message.locator("a.attachment-image")).to_have_count(1)
    assert not_reloaded(owner)
    link = message.locator("a.attachment-image")
    link.click()
    expect_showing(owner, link, "photo.jpg", "")
    expect(lightbox(owner).get_by_role("button", name=KO_NEXT)).to_be_hidden()
    page_box = loaded_box(lightbox_image(owner))
    assert_inside_viewport(owner, page_box)


def test_on_a_phone_the_picture_fits_the_screen(new_context):
    page = korean_page(new_context, PHONE)
    _, channel = own_korean_channel(page)
    page.goto(channel)
    wait_until_live(page)
    send_files(page, [LARGE, PHOTO], unique_text("큰 그림"))
    links = page.locator("#message-list a.attachment-image")

    for index, (name, natural) in enumerate([("shallow.png", (2000, 2000)), ("photo.jpg", (400, 600))]):
        if index == 0:
            links.nth(0).click()
        else:
            page.keyboard.press("ArrowRight")
        expect_showing(page, links.nth(index), name, f"{index + 1} / 2")
        image = lightbox_image(page)
        box = loaded_box(image)
        assert_inside_viewport(page, box)
        # Scaled down to the screen's width, the shape kept.
        assert box["width"] >= PHONE["width"] - 2, box
        shown, expected = box["height"] / box["width"], natural[1] / natural[0]
        assert abs(shown - expected) / expected < 0.02, (box, natural)
        # The caption and the buttons are on screen as well.
        for control in (lightbox(page).locator(".lightbox-name"), lightbox(page).get_by_role("link", name=KO_DOWNLOAD),
                        lightbox(page).get_by_role("button", name=KO_CLOSE)):
            assert_inside_viewport(page, control.bounding_box())
        if index == 1:
            shot(page, "lightbox-390")
    close = lightbox(page).get_by_role("button", name=KO_CLOSE)
    close.click()
    expect(lightbox(page)).to_be_hidden()
    expect(links.nth(0)).to_be_focused()


def test_without_javascript_a_thumbnail_is_a_link_to_its_image(new_context, browser, server):
    page = korean_page(new_context)
    email = unique_email("nav-nojs")
    signup(page, email, "이서준")
    workspace_id = create_workspace(page, unique_name("길찾기"))
    channel = general_channel_path(page, workspace_id)
    page.goto(channel)
    wait_until_live(page)
    send_files(page, [PNG], unique_text("스크립트 없이"))

    context = browser.new_context(base_url=server, locale="ko-KR", java_script_enabled=False,
                                  extra_http_headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    try:
        plain = context.new_page()
        login(plain, email, PASSWORD)
        plain.goto(channel)
        link = plain.locator("#message-list a.attachment-image")
        expect(link).to_have_count(1)
        href = link.get_attribute("href")
        assert re.fullmatch(r"/files/\d+/image\.png", href or ""), href
        expect(link.locator("img.thumbnail")).to_have_attribute("alt", "image.png")
        with context.expect_page() as opened:
            link.click()
        image_page = opened.value
        image_page.wait_for_load_state()
        assert path_of(image_page) == href
        expect(plain.locator("dialog")).to_have_count(0)
        response = context.request.get(href)
        assert response.status == 200 and response.headers["content-type"].startswith("image/png"), response.headers
    finally:
        context.close()


# ---------------------------------------------------------------------------------------------
# 2. The quick switcher


MATCH_CASES = [
    # query, names, what is listed (best first)
    ("ㅇㅂ", ["개발", "일반", "공지"], ["일반"]),
    ("ㄱㅁㅇ", ["박지수", "김민아", "이서준"], ["김민아"]),
    ("ㄱ민", ["박지수", "김민아", "김민수"], ["김민아", "김민수"]),
    ("민ㅇ", ["김민아", "민아름"], ["민아름", "김민아"]),  # the start of a name first
    ("bo", ["Alice", "Bob", "Jimbo"], ["Bob", "Jimbo"]),
    ("BO", ["jimbo", "bob"], ["bob", "jimbo"]),
    ("김미", ["김민아", "김미나", "박지수"], ["김민아", "김미나"]),  # a syllable still being typed
    ("김민", ["김미나"], ["김미나"]),  # the IME shows 김민 on the way to 김미나
    ("일반", ["일반", "일반 공지", "공지 일반"], ["일반", "일반 공지", "공지 일반"]),
    ("zzz", ["일반", "Bob", "김민아"], []),
    ("ㄴ", ["일반", "Bob"], []),  # ㄴ is no initial in either
    ("", ["b", "a"], ["b", "a"]),
]


@pytest.mark.parametrize("query,names,expected", MATCH_CASES)
def test_the_switcher_matches_by_substring_and_initial_consonants(page, query, names, expected):
    page.goto("/login")
    found = page.evaluate("([q, names]) => window.wsxSwitcher.filter(names, q)", [query, names])
    assert found == expected


def test_ctrl_k_finds_a_channel_by_its_initials_and_a_member_to_write_to(new_context):
    team = KoreanTeam(new_context)
    page = team.owner
    # A second channel, so that ㅇㅂ has something to leave out.
    page.goto(f"/w/{team.workspace_id}/channels")
    page.fill("#create-channel-form input[name=name]", "개발")
    with page.expect_navigation():
        page.locator("#create-channel-form button[type=submit]").click()
    page.goto(f"/w/{team.workspace_id}")

    open_switcher(page)
    box = switcher_input(page)
    expect(box).to_have_attribute("placeholder", KO_SWITCHER_PLACEHOLDER)
    expect(switcher(page)).to_have_accessible_name("바로 가기")
    # Everything before anything is typed: both channels and the three members.
    expect(switcher_options(page)).to_have_count(5)
    shot(page, "switcher-1280-all")

    page.keyboard.type("ㅇㅂ")
    expect(switcher_options(page)).to_have_count(1)
    expect(names(switcher_options(page).first)).to_have_text(KO_GENERAL)
    assert active_option_text(box) == KO_GENERAL
    shot(page, "switcher-1280")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(re.escape(team.general_path) + "$"))
    expect(page.locator(".room-header h1")).to_contain_text(KO_GENERAL)

    # A member with no DM yet: Enter opens the DM with her.
    open_switcher(page)
    page.keyboard.type("ㄱㅁㅇ")
    expect(switcher_options(page)).to_have_count(1)
    expect(names(switcher_options(page).first)).to_have_text("김민아")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(re.escape(team.dm_path("김민아")) + "$"))
    expect(page.locator(".room-header h1")).to_contain_text("김민아")

    # Nothing matches: the list says so.
    open_switcher(page)
    page.keyboard.type("없는이름")
    expect(switcher_options(page)).to_have_count(0)
    expect(switcher(page).get_by_text(KO_SWITCHER_EMPTY)).to_be_visible()
    # Esc closes it, and focus goes back where it was.
    page.keyboard.press("Escape")
    expect(switcher(page)).to_be_hidden()
    composer(page).click()
    open_switcher(page)
    page.keyboard.press("Escape")
    expect(switcher(page)).to_be_hidden()
    expect(composer(page)).to_be_focused()

    # Arrows move through the list; the mouse works too.
    open_switcher(page)
    page.keyboard.type("ㄱ")  # 개발, 김민아
    expect(switcher_options(page)).to_have_count(2)
    first_text = active_option_text(box)
    page.keyboard.press("ArrowDown")
    second_text = active_option_text(box)
    assert {first_text, second_text} == {"개발", "김민아"}, (first_text, second_text)
    page.keyboard.press("ArrowDown")  # round to the first
    assert active_option_text(box) == first_text
    page.keyboard.press("ArrowUp")
    assert active_option_text(box) == second_text
    switcher_options(page).filter(has_text="개발").click()
    page.wait_for_url(re.compile(rf"/w/{team.workspace_id}/c/\d+$"))
    expect(page.locator(".room-header h1")).to_contain_text("개발")

    # Ctrl+K again closes it.
    open_switcher(page)
    page.keyboard.press("Control+K")
    expect(switcher(page)).to_be_hidden()

    # A Korean keyboard in Hangul mode reports ㅏ for the K key: Ctrl+K still opens it.
    page.evaluate("""() => document.dispatchEvent(new KeyboardEvent('keydown', {
        key: 'ㅏ', code: 'KeyK', ctrlKey: true, bubbles: true, cancelable: true}))""")
    expect(switcher(page)).to_be_visible()


def test_the_switcher_works_on_a_phone_in_dark_mode_from_its_button(new_context):
    team = KoreanTeam(new_context, PHONE)
    page = team.owner
    page.emulate_media(color_scheme="dark")
    page.goto(team.general_path)
    # On a phone the sidebar is a drawer: the switcher's button is in it.
    page.locator("#menu-button").click()
    button = page.locator("#sidebar .switcher-button")
    expect(button).to_be_visible()
    expect(button).to_contain_text("바로 가기")
    button.click()
    expect(switcher(page)).to_be_visible()
    expect(switcher_input(page)).to_be_focused()
    dialog_box = switcher(page).bounding_box()
    assert_inside_viewport(page, dialog_box)
    page.keyboard.type("ㅂㅈ")
    expect(switcher_options(page)).to_have_count(1)
    expect(names(switcher_options(page).first)).to_have_text("박지수")
    shot(page, "switcher-390")
    switcher_options(page).first.click()
    page.wait_for_url(re.compile(re.escape(team.dm_path("박지수")) + "$"))


def test_ctrl_k_does_nothing_outside_a_workspace(new_context):
    page = korean_page(new_context)
    signup(page, unique_email("nav-out"), "이서준")
    page.goto("/workspaces")
    page.keyboard.press("Control+K")
    page.wait_for_timeout(300)
    expect(switcher(page)).to_have_count(0)


# ---------------------------------------------------------------------------------------------
# 3. The @ picker


def test_the_at_picker_inserts_a_mention_without_sending(new_context):
    team = KoreanTeam(new_context)
    page = team.owner
    page.goto(team.general_path)
    wait_until_live(page)
    box = composer(page)
    box.click()

    # An @ at the start opens the list of members.
    page.keyboard.type("@")
    expect(picker(page)).to_be_visible()
    expect(picker_options(page)).to_have_count(3)
    expect(box).to_have_attribute("aria-expanded", "true")
    expect(picker(page)).to_have_accessible_name("멘션할 멤버")
    assert active_option_text(box) is not None
    shot(page, "picker-1280")
    # It is above the composer.
    assert picker(page).bounding_box()["y"] + picker(page).bounding_box()["height"] <= \
        page.locator("#composer").bounding_box()["y"] + 1

    # What follows the @ filters: initials and syllables.
    page.keyboard.type("ㅂ")
    expect(picker_options(page)).to_have_count(1)
    expect(names(picker_options(page).first)).to_have_text("박지수")
    page.keyboard.press("Enter")
    expect(box).to_have_value("@박지수 ")
    expect(picker(page)).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    page.wait_for_timeout(1000)
    expect(page.locator("#message-list li.message")).to_have_count(0)

    # After a space, mixed 초성 and syllable; Tab picks the one the arrows chose.
    page.keyboard.type("안녕하세요 @ㄱ")
    expect(picker_options(page)).to_have_count(1)
    page.keyboard.press("Backspace")
    expect(picker_options(page)).to_have_count(3)
    page.keyboard.type("민")  # 김민아 by its syllable
    expect(picker_options(page)).to_have_count(1)
    page.keyboard.press("Backspace")
    page.keyboard.type("ㅣ")  # @ㅣ matches nobody: the list goes away
    expect(picker(page)).to_be_hidden()
    page.keyboard.press("Backspace")
    expect(picker_options(page)).to_have_count(3)
    first, second = names(picker_options(page)).nth(0).text_content(), names(picker_options(page)).nth(1).text_content()
    assert active_option_text(box) == first
    page.keyboard.press("ArrowDown")
    assert active_option_text(box) == second
    page.keyboard.press("Tab")
    expect(box).to_have_value(f"@박지수 안녕하세요 @{second} ")
    expect(box).to_be_focused()

    # Esc closes it and leaves the text; Enter then sends as usual.
    page.keyboard.type("그리고 @ㄱㅁ")
    expect(picker(page)).to_be_visible()
    page.keyboard.press("Escape")
    expect(picker(page)).to_be_hidden()
    expect(box).to_have_value(f"@박지수 안녕하세요 @{second} 그리고 @ㄱㅁ")
    page.keyboard.type("ㅇ")  # the same @: stays closed
    page.wait_for_timeout(300)
    expect(picker(page)).to_be_hidden()
    page.keyboard.press("Enter")
    sent = messages_with(page, "안녕하세요")
    expect(sent).to_have_count(1)
    expect(sent.locator(".mention")).to_have_text([re.compile("박지수"), re.compile(second)])
    expect(box).to_have_value("")

    # An @ inside a word (an address) opens nothing; a click on an option picks it.
    page.keyboard.type("mail@")
    page.wait_for_timeout(300)
    expect(picker(page)).to_be_hidden()
    page.keyboard.type(" @")
    expect(picker_options(page)).to_have_count(3)
    picker_options(page).filter(has_text="김민아").click()
    expect(box).to_have_value("mail@ @김민아 ")
    expect(box).to_be_focused()
    expect(page.locator("#message-list li.message")).to_have_count(1)


def test_the_at_picker_follows_a_korean_ime_and_ignores_the_enter_that_ends_a_syllable(new_context):
    team = KoreanTeam(new_context)
    page = team.owner
    page.goto(team.general_path)
    wait_until_live(page)
    box = composer(page)
    box.click()
    page.keyboard.type("@")
    expect(picker_options(page)).to_have_count(3)

    # The IME composes 김 (ㄱ, 기, 김): the list filters while the syllable is being composed.
    cdp = page.context.new_cdp_session(page)
    for partial in ("ㄱ", "기", "김"):
        cdp.send("Input.imeSetComposition", {"text": partial, "selectionStart": len(partial), "selectionEnd": len(partial)})
    expect(box).to_have_value("@김")
    expect(picker_options(page)).to_have_count(1)
    expect(names(picker_options(page).first)).to_have_text("김민아")
    assert box.evaluate("el => el.matches(':focus')")

    # The Enter of an unfinished composition picks nothing and sends nothing.
    box.evaluate("""el => el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', keyCode: 229,
                                                                   isComposing: true, bubbles: true, cancelable: true}))""")
    expect(box).to_have_value("@김")
    expect(picker(page)).to_be_visible()
    # Ending the syllable, then an Enter right after it (Safari's order) does not pick either.
    cdp.send("Input.insertText", {"text": "김"})
    expect(box).to_have_value("@김")
    box.evaluate("""el => {
        el.dispatchEvent(new CompositionEvent('compositionstart', {data: '', bubbles: true}));
        el.dispatchEvent(new CompositionEvent('compositionend', {data: '김', bubbles: true}));
        el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', bubbles: true, cancelable: true}));
    }""")
    expect(box).to_have_value("@김")
    expect(picker(page)).to_be_visible()
    page.wait_for_timeout(500)
    expect(page.locator("#message-list li.message")).to_have_count(0)

    # The next Enter picks.
    page.keyboard.press("Enter")
    expect(box).to_have_value("@김민아 ")
    expect(picker(page)).to_be_hidden()
    page.wait_for_timeout(500)
    expect(page.locator("#message-list li.message")).to_have_count(0)
