"""Files in the browser, as people see them: attaching an image and a PDF with a Korean name to a
message (progress bar while it uploads, the message once with a thumbnail that is the right way up
and a file card), opening the original and downloading the PDF under its own name; another member
seeing it live; drag-and-drop and paste; refusals (an HTML file named .jpg, a file over the limit,
too many files) beside the composer; the plain form without JavaScript; a profile photo shown on
the profile and beside the person's messages."""

import pytest
import base64
import pathlib
import re
import shutil
import uuid

from playwright.sync_api import Locator, Page, expect

from conftest import (
    ACTION_TIMEOUT, add_member, korean_pair, composer, create_workspace, general_channel_id, messages_with,
    not_reloaded, path_of, signup, submit, unique_email, unique_name, unique_text, wait_until_live,
)

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "Fixtures"
PHOTO = FIXTURES / "photo.jpg"  # 600x400 stored, EXIF Orientation=6 (+ GPS): shown 400 wide, 600 high
PDF = FIXTURES / "doc.pdf"
PNG = FIXTURES / "image.png"
GIF = FIXTURES / "anim.gif"
EVIL = FIXTURES / "evil.jpg"  # HTML named .jpg
KOREAN_PDF_NAME = "회의록.pdf"
ALLOWED_TYPES = "JPEG, PNG, GIF, WebP, PDF, ZIP, HWP, HWPX, DOCX, XLSX, PPTX, ODF, TXT, CSV, MP4, MOV, WebM, MP3, M4A"
OFFICE = FIXTURES / "files"  # made by tools/make_file_fixtures.py

# ---------------------------------------------------------------------------------------------
# Helpers of this suite (the shared ones are in conftest.py)


def own_channel(page: Page, prefix: str) -> str:
    """Signs up a new person in `page`, makes their workspace; returns the path of its #general."""
    signup(page, unique_email(prefix), "Alice")
    workspace_id = create_workspace(page, unique_name("Files"))
    return f"/w/{workspace_id}/c/{general_channel_id(page, workspace_id)}"


def send_button(page: Page) -> Locator:
    return page.locator("#composer button[type=submit]")


def korean_pdf(tmp_path: pathlib.Path) -> pathlib.Path:
    """doc.pdf, copied under a Korean name."""
    path = tmp_path / KOREAN_PDF_NAME
    shutil.copyfile(PDF, path)
    return path


def watch_progress(page: Page) -> None:
    """Records, from now on, whether #upload-progress was ever shown and the highest value it
    showed while visible (a MutationObserver: the upload of small files is over in a moment)."""
    page.evaluate("""() => {
        const bar = document.getElementById('upload-progress');
        window.__progress = {shown: false, max: -1};
        const look = () => {
            if (!bar.hidden) {
                window.__progress.shown = true;
                window.__progress.max = Math.max(window.__progress.max, bar.value);
            }
        };
        new MutationObserver(look).observe(bar, {attributes: true});
    }""")


def progress_seen(page: Page) -> dict:
    return page.evaluate("window.__progress")


def wait_for_image(img: Locator) -> dict:
    """Waits until `img` has loaded; returns its natural size (0 x 0 if it failed to load)."""
    img.scroll_into_view_if_needed()
    expect(img).to_have_js_property("complete", True)
    return img.evaluate("img => ({width: img.naturalWidth, height: img.naturalHeight})")


def jpeg_size(data: bytes) -> tuple[int, int]:
    """Width and height in a JPEG's frame header: the pixels as stored, before any EXIF rotation."""
    assert data[:2] == b"\xff\xd8", data[:16]
    i = 2
    while i + 9 < len(data):
        assert data[i] == 0xFF, f"bad marker at {i}"
        marker = data[i + 1]
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + length
    raise AssertionError("no frame header in the JPEG")


def post_requests(page: Page) -> list[str]:
    """Collects, from now on, the URLs of POST requests the page makes."""
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url) if request.method == "POST" else None)
    return seen


def download_card(page: Page, card: Locator, expected_name: str, expected_bytes: bytes) -> None:
    with page.expect_download() as info:
        card.click()
    download = info.value
    assert download.failure() is None, download.failure()
    assert download.suggested_filename == expected_name
    assert pathlib.Path(download.path()).read_bytes() == expected_bytes


def check_image_and_pdf_message(page: Page, text: str) -> None:
    """The message shows the text, one thumbnail (loaded, portrait) and one card for the PDF."""
    message = messages_with(page, text)
    expect(message).to_have_count(1)
    expect(message.locator(".message-body")).to_have_text(text)
    expect(message.locator("a.attachment-image img.thumbnail")).to_have_count(1)
    thumbnail = message.locator("a.attachment-image img.thumbnail")
    expect(thumbnail).to_have_attribute("src", re.compile(r"^/files/\d+/thumb$"))
    size = wait_for_image(thumbnail)
    assert size["width"] > 0, f"the thumbnail did not load: {size}"
    assert size["height"] > size["width"], f"the thumbnail is not the right way up (portrait): {size}"
    # As shown on screen, too.
    box = thumbnail.bounding_box()
    assert box and box["height"] > box["width"], box
    # A tall picture is capped at 360 px (plus its border), its shape kept.
    assert box["height"] <= 362, box
    shown, natural = box["height"] / box["width"], size["height"] / size["width"]
    assert abs(shown - natural) / natural < 0.03, (box, size)
    cards = message.locator(".file-card")
    expect(cards).to_have_count(1)
    # The PDF's card sits under the picture, not beside it.
    card_box = cards.bounding_box()
    assert card_box and card_box["y"] >= box["y"] + box["height"] - 1, (card_box, box)
    expect(cards.locator(".file-name")).to_have_text(KOREAN_PDF_NAME)
    expect(cards.locator(".file-size")).to_have_text(re.compile(r"\d"))


# ---------------------------------------------------------------------------------------------
# 1. An image and a PDF with a Korean name, with the progress bar


def test_uploading_an_image_and_a_pdf_shows_progress_then_the_message_with_thumbnail_and_card(page, tmp_path):
    channel = own_channel(page, "upload")
    page.goto(channel)
    wait_until_live(page)
    progress = page.locator("#upload-progress")
    expect(progress).to_be_hidden()

    pdf = korean_pdf(tmp_path)
    page.set_input_files("#composer-files", [str(PHOTO), str(pdf)])
    expect(page.locator("#file-chips .chip-name")).to_have_text(["photo.jpg", KOREAN_PDF_NAME])
    expect(page.locator("#composer-error")).to_be_hidden()
    text = unique_text("Minutes and a photo")
    composer(page).fill(text)

    # A slow connection, so that the bar can be seen while the upload runs.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 16 * 1024,
    })
    watch_progress(page)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/messages")) as posted:
        send_button(page).click()
        expect(progress).to_be_visible()
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1,
    })
    assert posted.value.status == 201, posted.value.status
    expect(messages_with(page, text)).to_have_count(1)
    expect(progress).to_be_hidden()
    seen = progress_seen(page)
    assert seen["shown"], "the progress bar never showed"
    assert seen["max"] == 100, f"the progress bar never reached the end: {seen}"

    # The composer is ready for the next message.
    expect(composer(page)).to_have_value("")
    assert page.eval_on_selector("#composer-files", "input => input.files.length") == 0
    expect(page.locator("#file-chips .file-chip")).to_have_count(0)

    check_image_and_pdf_message(page, text)
    assert not_reloaded(page), "the page reloaded instead of showing the message live"
    # Once, even a while later (a late live echo adds no copy), and once after a reload.
    page.wait_for_timeout(1500)
    expect(messages_with(page, text)).to_have_count(1)
    page.reload()
    check_image_and_pdf_message(page, text)

    # The thumbnail's pixels are stored the right way up (the server applied the EXIF rotation,
    # not only the browser) and smaller than the original.
    message = messages_with(page, text)
    thumb_url = message.locator("img.thumbnail").get_attribute("src")
    thumb = page.request.get(thumb_url)
    assert thumb.status == 200
    assert thumb.headers["content-type"] == "image/jpeg"
    width, height = jpeg_size(thumb.body())
    assert height > width, f"thumbnail pixels stored {width}x{height}, not portrait"
    assert b"Exif" not in thumb.body()[:4096], "the thumbnail kept the EXIF block (with its GPS position)"

    # The PDF's name and its Open link open it in a new tab, in the browser's own viewer: served
    # inline, sandboxed; its Download link downloads it under its Korean name, byte for byte.
    card = message.locator(".file-card")
    for opener in (card.locator("a.file-name"), card.locator("a.file-open")):
        expect(opener).to_have_attribute("target", "_blank")
    # The fragment carries both languages; the reader's is the one shown and announced.
    expect(card.locator("a.file-open")).to_have_accessible_name("열기" if page.evaluate("document.documentElement.lang") == "ko" else "Open")
    assert card.locator("a.file-download").inner_text() in ("다운로드", "Download")
    opened = page.request.get(card.locator("a.file-open").get_attribute("href"))
    assert opened.headers["content-type"] == "application/pdf"
    assert opened.headers["content-disposition"].startswith("inline;")
    assert opened.headers["content-security-policy"] == "sandbox"
    assert opened.headers["x-content-type-options"] == "nosniff"
    download_card(page, card.locator("a.file-download"), KOREAN_PDF_NAME, PDF.read_bytes())

    # Clicking the image opens it in the lightbox (test_navigation.py has the rest of it), whose
    # Open link shows the original (a JPEG, the right way up) in a new tab.
    link = message.locator("a.attachment-image")
    expect(link).to_have_attribute("href", re.compile(r"^/files/\d+/photo\.jpg$"))
    link.click()
    lightbox = page.locator("dialog.lightbox")
    expect(lightbox).to_be_visible()
    with page.expect_popup() as popup_info:
        lightbox.get_by_role("link", name="Open", exact=True).click()
    original = popup_info.value
    original.wait_for_load_state()
    assert path_of(original) == link.get_attribute("href")
    assert original.evaluate("document.contentType") == "image/jpeg"
    shown = wait_for_image(original.locator("img").first)
    assert (shown["width"], shown["height"]) == (400, 600), shown
    response = page.request.get(link.get_attribute("href"))
    assert response.status == 200
    assert response.headers["content-type"] == "image/jpeg"
    assert response.body() == PHOTO.read_bytes()


# ---------------------------------------------------------------------------------------------
# 2. Another member sees it live and can download it


def test_another_member_sees_the_files_live_and_can_download_the_pdf(new_context, tmp_path):
    a_context = new_context("en-US")
    a = a_context.new_page()
    channel = own_channel(a, "share-a")
    workspace_id = int(re.match(r"/w/(\d+)/", channel).group(1))
    b_email = unique_email("share-b")
    b = new_context("en-US").new_page()
    signup(b, b_email, "Bob")
    add_member(a, workspace_id, b, b_email)

    a.goto(channel)
    b.goto(channel)
    wait_until_live(a)
    wait_until_live(b)

    text = unique_text("For Bob")
    a.set_input_files("#composer-files", [str(PHOTO), str(korean_pdf(tmp_path))])
    composer(a).fill(text)
    send_button(a).click()
    expect(messages_with(a, text)).to_have_count(1)

    check_image_and_pdf_message(b, text)
    expect(messages_with(b, text).locator(".message-author")).to_have_text("Alice")
    assert not_reloaded(b), "B's page reloaded instead of updating live"
    b.wait_for_timeout(1500)
    expect(messages_with(b, text)).to_have_count(1)

    download_card(b, messages_with(b, text).locator(".file-card a.file-download"), KOREAN_PDF_NAME, PDF.read_bytes())
    href = messages_with(b, text).locator("a.attachment-image").get_attribute("href")
    original = b.request.get(href)
    assert original.status == 200 and original.body() == PHOTO.read_bytes()

    # Someone outside the workspace cannot fetch either file.
    stranger = new_context("en-US").new_page()
    signup(stranger, unique_email("stranger"), "Eve")
    for url in (href, messages_with(b, text).locator("img.thumbnail").get_attribute("src"),
                messages_with(b, text).locator(".file-card a.file-download").get_attribute("href")):
        assert stranger.request.get(url).status == 404, url


# ---------------------------------------------------------------------------------------------
# 3. Drag-and-drop onto the composer, and pasting an image


def test_dropping_and_pasting_images_attach_them(page):
    channel = own_channel(page, "drop")
    page.goto(channel)
    wait_until_live(page)

    # Dropped onto the composer, as a file manager would.
    page.evaluate("""([name, type, data]) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], name, {type}));
        const composer = document.getElementById('composer');
        composer.dispatchEvent(new DragEvent('dragover', {dataTransfer: transfer, bubbles: true, cancelable: true}));
        composer.dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true}));
    }""", ["image.png", "image/png", base64.b64encode(PNG.read_bytes()).decode()])
    expect(page.locator("#file-chips .chip-name")).to_have_text(["image.png"])

    # Pasted into the message box, as after copying an image.
    composer(page).evaluate("""(box, [name, type, data]) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], name, {type}));
        box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: transfer, bubbles: true, cancelable: true}));
    }""", ["anim.gif", "image/gif", base64.b64encode(GIF.read_bytes()).decode()])
    expect(page.locator("#file-chips .chip-name")).to_have_text(["image.png", "anim.gif"])
    expect(composer(page)).to_have_value("")  # the paste added a file, not text

    text = unique_text("Dropped and pasted")
    composer(page).fill(text)
    send_button(page).click()
    message = messages_with(page, text)
    expect(message).to_have_count(1)
    thumbnails = message.locator("a.attachment-image img.thumbnail")
    expect(thumbnails).to_have_count(2)
    expect(message.locator("a.attachment-image").first).to_have_attribute("href", re.compile(r"/image\.png$"))
    expect(message.locator("a.attachment-image").nth(1)).to_have_attribute("href", re.compile(r"/anim\.gif$"))
    for i in range(2):
        assert wait_for_image(thumbnails.nth(i))["width"] > 0, f"thumbnail {i} did not load"


# ---------------------------------------------------------------------------------------------
# 4. Refusals, told beside the composer


def test_an_html_file_named_jpg_is_refused_with_the_allowed_types(page):
    channel = own_channel(page, "evil")
    page.goto(channel)
    wait_until_live(page)

    text = unique_text("Look at this picture")
    page.set_input_files("#composer-files", str(EVIL))
    expect(page.locator("#file-chips .chip-name")).to_have_text(["evil.jpg"])
    composer(page).fill(text)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/messages")) as posted:
        send_button(page).click()
    response = posted.value
    assert response.status == 415, response.status
    assert "Allowed types" in response.json()["error"], response.json()

    error = page.locator("#composer #composer-error")
    expect(error).to_be_visible()
    expect(error).to_have_text(f"This type of file cannot be uploaded. Allowed types: {ALLOWED_TYPES}.")
    expect(page.locator("#upload-progress")).to_be_hidden()
    # Nothing is lost from the composer, and no message was made.
    expect(composer(page)).to_have_value(text)
    page.wait_for_timeout(1000)
    expect(page.locator("#message-list li.message")).to_have_count(0)
    assert not_reloaded(page)
    page.reload()
    expect(page.locator("#message-list li.message")).to_have_count(0)


def test_a_file_over_the_limit_or_too_many_files_are_refused_before_sending(page, tmp_path):
    channel = own_channel(page, "big")
    page.goto(channel)
    wait_until_live(page)
    posts = post_requests(page)

    # Past the default 100 MB (sparse on disk: the composer refuses it before reading it).
    big = tmp_path / "big.png"
    with open(big, "wb") as f:
        f.write(PNG.read_bytes())
        f.truncate(101 * 1024 * 1024)
    text = unique_text("A huge picture")
    page.set_input_files("#composer-files", str(big))
    error = page.locator("#composer #composer-error")
    # Told at once when choosing it...
    expect(error).to_be_visible()
    expect(error).to_have_text("The file is too large. Each file can be at most 100 MB.")
    composer(page).fill(text)
    # ...and again when trying to send it; nothing is sent.
    send_button(page).click()
    expect(error).to_have_text("The file is too large. Each file can be at most 100 MB.")
    expect(page.locator("#upload-progress")).to_be_hidden()
    page.wait_for_timeout(1000)
    assert not [url for url in posts if url.endswith("/messages")], posts
    expect(page.locator("#message-list li.message")).to_have_count(0)
    expect(composer(page)).to_have_value(text)

    # Six small files: one too many.
    files = []
    for i in range(6):
        copy = tmp_path / f"picture-{i}.png"
        shutil.copyfile(PNG, copy)
        files.append(str(copy))
    page.set_input_files("#composer-files", files)
    expect(error).to_have_text("You can attach at most 5 files at once.")
    send_button(page).click()
    page.wait_for_timeout(1000)
    assert not [url for url in posts if url.endswith("/messages")], posts
    expect(page.locator("#message-list li.message")).to_have_count(0)

    # Five are fine: the error goes away and the message is sent.
    page.set_input_files("#composer-files", files[:5])
    expect(error).to_be_hidden()
    send_button(page).click()
    expect(messages_with(page, text)).to_have_count(1)
    expect(messages_with(page, text).locator("img.thumbnail")).to_have_count(5)
    expect(error).to_be_hidden()


# ---------------------------------------------------------------------------------------------
# 5. Without JavaScript


def test_without_javascript_the_plain_form_posts_an_image(browser, server):
    context = browser.new_context(base_url=server, locale="en-US", java_script_enabled=False,
                                  extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
    context.set_default_timeout(ACTION_TIMEOUT)
    try:
        page = context.new_page()
        channel = own_channel(page, "nojs-files")
        page.goto(channel)

        text = unique_text("Sent by a plain form")
        page.set_input_files("#composer-files", str(PHOTO))
        composer(page).fill(text)
        response = submit(page, "#composer")
        assert response is not None and response.status == 200, response and response.status
        assert re.fullmatch(rf"{re.escape(channel)}(#m-\d+)?", path_of(page)), page.url

        message = messages_with(page, text)
        expect(message).to_have_count(1)
        thumbnail = message.locator("a.attachment-image img.thumbnail")
        expect(thumbnail).to_have_count(1)
        expect(page.locator("#upload-progress")).to_be_hidden()
        expect(composer(page)).to_have_value("")
        size = wait_for_image(thumbnail)
        assert size["width"] > 0 and size["height"] > size["width"], size
        href = message.locator("a.attachment-image").get_attribute("href")
        assert page.request.get(href).body() == PHOTO.read_bytes()

        # An HTML file named .jpg: refused with a page naming the allowed types; nothing stored.
        # (Today this is the generic error page, not the room with the error beside the composer
        # as for an empty message; either tells the person why.)
        page.set_input_files("#composer-files", str(EVIL))
        composer(page).fill(unique_text("Not a picture"))
        response = submit(page, "#composer")
        assert response is not None and response.status == 415, response and response.status
        expect(page.locator("main")).to_contain_text(f"Allowed types: {ALLOWED_TYPES}.")
        page.goto(channel)
        expect(page.locator("#message-list li.message")).to_have_count(1)
    finally:
        context.close()


# ---------------------------------------------------------------------------------------------
# 6. A profile photo


def test_a_profile_photo_shows_on_the_profile_and_beside_messages(new_context):
    a = new_context("en-US").new_page()
    channel = own_channel(a, "photo")
    workspace_id = int(re.match(r"/w/(\d+)/", channel).group(1))
    b_email = unique_email("photo-b")
    b = new_context("en-US").new_page()
    signup(b, b_email, "Bob")
    add_member(a, workspace_id, b, b_email)

    a.goto("/profile")
    expect(a.locator("img.profile-photo")).to_have_count(0)
    a.set_input_files("#profile-image", str(PHOTO))
    response = submit(a, "#profile-form")
    assert response is not None and response.status == 200, response and response.status
    assert path_of(a) == "/profile"
    photo = a.locator("img.profile-photo")
    expect(photo).to_have_count(1)
    size = wait_for_image(photo)
    assert size["width"] > 0, f"the profile photo did not load: {size}"
    assert size["height"] >= size["width"], f"the profile photo is not the right way up: {size}"
    expect(a.locator("#nickname")).to_have_value("Alice")

    a.goto(channel)
    b.goto(channel)
    wait_until_live(a)
    wait_until_live(b)
    text = unique_text("With my face")
    composer(a).fill(text)
    composer(a).press("Enter")
    for page in (a, b):  # shown live to the author and to the other member
        avatar = messages_with(page, text).locator("img.avatar")
        expect(avatar).to_have_count(1)
        assert wait_for_image(avatar)["width"] > 0, "the avatar did not load"
    a.reload()
    avatar = messages_with(a, text).locator("img.avatar")
    expect(avatar).to_have_count(1)
    assert wait_for_image(avatar)["width"] > 0
    # Bob, without a photo, keeps his initial.
    composer(b).fill(unique_text("No photo here"))
    composer(b).press("Enter")
    bob_message = messages_with(a, "No photo here")
    expect(bob_message).to_have_count(1)
    expect(bob_message.locator("span.avatar")).to_have_text("B")


@pytest.mark.parametrize("width", [390, 1280])
def test_chosen_files_show_as_removable_chips_each_with_its_own_progress(new_context, width):
    page = new_context("en-US").new_page()
    page.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
    channel = own_channel(page, "chips")
    page.goto(channel)
    wait_until_live(page)

    page.set_input_files("#composer-files", [str(PHOTO), str(PDF), str(PNG)])
    chips = page.locator("#file-chips .file-chip")
    expect(chips).to_have_count(3)
    expect(chips.locator(".chip-name")).to_have_text(["photo.jpg", "doc.pdf", "image.png"])
    # A picture shows itself; another file its kind and size.
    assert wait_for_image(chips.nth(0).locator("img.chip-thumb"))["width"] > 0
    expect(chips.nth(1).locator(".chip-icon")).to_have_text("PDF")
    expect(chips.nth(1).locator(".chip-size")).to_have_text(re.compile(r"^\d+ (B|KB)$"))

    # Taking one out takes it out of what is sent.
    chips.nth(1).get_by_role("button", name="Remove doc.pdf").click()
    expect(chips.locator(".chip-name")).to_have_text(["photo.jpg", "image.png"])
    assert page.eval_on_selector("#composer-files", "input => [...input.files].map((f) => f.name)") == ["photo.jpg", "image.png"]

    # While sending (slowly), each chip fills on its own: the first before the second.
    page.evaluate("""() => {
        window.__chipProgress = [];
        new MutationObserver(() => {
            const bars = [...document.querySelectorAll('#file-chips .chip-progress')];
            if (bars.length && !bars[0].hidden) window.__chipProgress.push(bars.map((bar) => bar.value));
        }).observe(document.getElementById('file-chips'), {subtree: true, attributes: true});
    }""")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 16 * 1024,
    })
    text = unique_text("Two chips")
    composer(page).fill(text)
    send_button(page).click()
    expect(messages_with(page, text)).to_have_count(1, timeout=30_000)
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1,
    })
    samples = page.evaluate("window.__chipProgress")
    assert samples, "no chip showed progress"
    assert any(0 < first < 100 and second == 0 for first, second in samples), samples  # one file at a time
    assert all(first >= second for first, second in samples), samples                 # in order
    assert samples[-1] == [100, 100], samples
    expect(chips).to_have_count(0)
    expect(messages_with(page, text).locator("img.thumbnail")).to_have_count(2)


# ---------------------------------------------------------------------------------------------
# Office files and video, as phones and office computers send them


@pytest.mark.parametrize("width", [390, 1280])
def test_office_files_and_a_phone_video_upload_and_the_video_plays(new_context, width, tmp_path):
    page, _, _, _ = korean_pair(new_context, width)
    # The composer says what it takes, and how much, before anything is sent.
    expect(page.locator("#attach-list")).to_contain_text("100 MB")

    # Named as a phone names them; typed by their bytes (the iPhone's H.264 .mov is played as MP4).
    names = {"회의록.docx": "DOCX", "예산.xlsx": "XLSX", "보고서.hwpx": "HWPX", "IMG_0001.MOV": "MP4"}
    sources = {"회의록.docx": "회의록.docx", "예산.xlsx": "예산.xlsx", "보고서.hwpx": "보고서.hwpx", "IMG_0001.MOV": "iphone.mov"}
    paths = []
    for name, source in sources.items():
        shutil.copyfile(OFFICE / source, tmp_path / name)
        paths.append(str(tmp_path / name))
    page.set_input_files("#composer-files", paths)
    text = unique_text("자료 공유")
    composer(page).fill(text)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/messages")) as posted:
        send_button(page).click()
    assert posted.value.status == 201, posted.value.status
    message = messages_with(page, text)
    expect(message).to_have_count(1)
    cards = message.locator(".file-card")
    expect(cards).to_have_count(4)
    for name, label in names.items():
        card = cards.filter(has_text=name)
        expect(card.locator(".file-icon")).to_have_text(label)
    download_card(page, cards.filter(has_text="보고서.hwpx"), "보고서.hwpx", (OFFICE / "보고서.hwpx").read_bytes())

    # The video plays in the page, fetched by byte ranges, within the column.
    video = message.locator("video.attachment-video")
    expect(video).to_have_count(1)
    video.scroll_into_view_if_needed()
    page.wait_for_function("v => v.readyState >= 1", arg=video.element_handle(), timeout=ACTION_TIMEOUT)
    assert video.evaluate("v => v.videoWidth") == 160
    video.evaluate("v => { v.muted = true; return v.play(); }")
    page.wait_for_function("v => v.currentTime > 0.2", arg=video.element_handle(), timeout=ACTION_TIMEOUT)
    box = video.bounding_box()
    assert box and box["x"] + box["width"] <= width, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
