"""Browser tests for wsx: one server and one Chromium per test session, fresh browser contexts per
test, and helpers that fill the real forms the way a person would.

Run with `make browser-test`, or directly:
    WSX_BINARY=.build/debug/wsx-web .venv/bin/python -m pytest -q Tests/browser
"""

import os
import pathlib
import queue
import re
import subprocess
import tempfile
import threading
import uuid

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Response, expect, sync_playwright

REPO = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
READY_LINE = re.compile(r"wsx-web listening on (http://\S+?:\d+)")
STARTUP_TIMEOUT = 30  # seconds
ACTION_TIMEOUT = 10_000  # milliseconds, for every Playwright wait in a test
# `expect` keeps a clock of its own (5 s unless told): on a loaded two-core machine a live update
# took longer than that and a test failed that waits 10 s for a click.
expect.set_options(timeout=ACTION_TIMEOUT)

# The server is started with these, so that throttling can be seen without waiting minutes and
# password hashing does not slow the suite down. The suite signs up over a hundred people from
# 127.0.0.1, so the per-address sign-up limit is raised by its flag; the store's tests buy coins,
# so payments run in the sandbox (they are off by default).
LOGIN_MAX_FAILURES = 3
LOGIN_FAILURE_WINDOW = 60
SIGNUP_MAX_PER_IP = 100_000

SERVER_LOG = pytest.StashKey[pathlib.Path]()
SERVER_DATA = pytest.StashKey[pathlib.Path]()
LOG_OFFSET = pytest.StashKey[int]()


# ---------------------------------------------------------------------------------------------
# The server


def _log_tail(path: pathlib.Path, since: int = 0, lines: int = 40) -> str:
    """The last `lines` lines the server logged after byte offset `since`."""
    try:
        with open(path, "rb") as log:
            log.seek(since)
            text = log.read().decode(errors="replace")
    except OSError as error:
        return f"(no server log: {error})"
    return "\n".join(text.splitlines()[-lines:]) or "(nothing logged during this test)"


def _wait_for_ready_line(process: subprocess.Popen, timeout: float) -> str:
    """Reads the server's stdout until it says where it listens; returns the base URL."""
    lines: "queue.Queue[str | None]" = queue.Queue()

    def pump():
        # Keeps draining stdout after the ready line, so the pipe never fills up.
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen = []
    try:
        while True:
            line = lines.get(timeout=timeout)
            if line is None:
                raise RuntimeError(f"wsx-web exited (code {process.wait()}) before it was ready; stdout: {seen}")
            seen.append(line.rstrip())
            if match := READY_LINE.search(line):
                return match.group(1)
    except queue.Empty:
        raise RuntimeError(f"wsx-web did not say it was listening within {timeout} s; stdout: {seen}") from None


def wsx_binary() -> pathlib.Path:
    """The wsx-web binary under test: $WSX_BINARY, else the debug build."""
    return pathlib.Path(os.environ.get("WSX_BINARY") or REPO / ".build/debug/wsx-web")


@pytest.fixture(scope="session")
def server(request, tmp_path_factory) -> str:
    """Starts wsx-web on a free port with an empty data directory; yields its base URL."""
    binary = wsx_binary()
    if not binary.is_file():
        pytest.exit(f"wsx-web binary not found at {binary}: build it (swift build) or set WSX_BINARY", returncode=2)

    root = tmp_path_factory.mktemp("wsx")
    workdir = root / "cwd"  # empty: the binary must not need Templates/ or Public/ beside it
    data = root / "data"
    workdir.mkdir()
    data.mkdir()
    log_path = root / "wsx-web.log"
    request.config.stash[SERVER_LOG] = log_path
    request.config.stash[SERVER_DATA] = data

    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(binary), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data),
             "--bcrypt-cost", "4",
             "--login-max-failures", str(LOGIN_MAX_FAILURES),
             "--login-failure-window", str(LOGIN_FAILURE_WINDOW),
             "--signup-max-per-ip", str(SIGNUP_MAX_PER_IP),
             # Everyone signs up on the form (the server's default is by invitation), and the
             # suite invites and changes statuses in bulk: those limits are lifted by their flags.
             "--signup", "open", "--invitations-per-hour", "0", "--status-changes-per-minute", "0",
             # The suite posts, uploads and searches quickly from a few accounts: the
             # per-account rates are off here (0), as for any bulk poster.
             "--post-burst", "0", "--upload-bytes-per-minute", "0", "--searches-per-minute", "0",
             # Link previews may fetch the tests' own page server on loopback (test_link_previews).
             "--link-preview-hosts", "127.0.0.1", "--link-preview-timeout", "30",
             # Web Push may deliver to the tests' own push service on loopback (test_push).
             "--push-service-hosts", "127.0.0.1",
             "--payments", "sandbox"],
            cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True,
        )
    try:
        base_url = _wait_for_ready_line(process, STARTUP_TIMEOUT)
    except RuntimeError as error:
        _stop(process)
        pytest.exit(f"{error}\n--- server log ---\n{_log_tail(log_path)}", returncode=3)

    yield base_url
    _stop(process)


@pytest.fixture(scope="session")
def server_data(request, server) -> pathlib.Path:
    """The data folder the session's server runs on, for commands that work on it beside the
    server (`wsx-web import slack … --data-dir`)."""
    return request.config.stash[SERVER_DATA]


def confirm_address(server_data: pathlib.Path, email: str) -> None:
    """Counts an account's address as confirmed, as the operator does on a server without mail
    (`wsx-web user confirm`): invitations to it then show on its workspaces page."""
    done = subprocess.run([str(wsx_binary()), "user", "confirm", "--email", email, "--data-dir", str(server_data)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(autouse=True)
def _mark_server_log(request):
    """Remembers where the server log stood when the test began, for the report of a failure."""
    log_path = request.config.stash.get(SERVER_LOG, None)
    request.node.stash[LOG_OFFSET] = log_path.stat().st_size if log_path and log_path.exists() else 0


# Every test waits on a browser and a server process: one that hangs fails after this many
# seconds (a test or module may ask for more with its own `pytest.mark.timeout`).
DEFAULT_TEST_TIMEOUT = 300


def pytest_collection_modifyitems(items):
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(DEFAULT_TEST_TIMEOUT))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Adds what the server logged during a failed test to its report."""
    report = yield
    log_path = item.config.stash.get(SERVER_LOG, None)
    if report.failed and log_path is not None:
        report.sections.append(("wsx-web log (tail)", _log_tail(log_path, item.stash.get(LOG_OFFSET, 0))))
    return report


# ---------------------------------------------------------------------------------------------
# The browser


@pytest.fixture(scope="session")
def browser() -> Browser:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def new_context(browser, server):
    """A factory: `new_context(locale="ko-KR")` opens a fresh browser (no cookies) whose
    Accept-Language asks for that locale first. Every context is closed after the test."""
    contexts: list[BrowserContext] = []

    def make(locale: str = "en-US", **options) -> BrowserContext:
        """`options` go to Playwright (`has_touch=True, is_mobile=True` for a phone)."""
        language = locale.split("-")[0]
        context = browser.new_context(
            base_url=server,
            locale=locale,
            extra_http_headers={"Accept-Language": f"{locale},{language};q=0.9"},
            **options,
        )
        context.set_default_timeout(ACTION_TIMEOUT)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_context) -> Page:
    """A page in a fresh English-speaking browser."""
    return new_context("en-US").new_page()


# ---------------------------------------------------------------------------------------------
# Helpers: what a person does


PASSWORD = "correct horse battery"


def unique_email(who: str = "user") -> str:
    return f"{who}-{uuid.uuid4().hex[:12]}@example.com"


def submit(page: Page, form: str = "main form") -> Response | None:
    """Clicks the submit button of `form` and waits for the page that comes back."""
    with page.expect_navigation() as navigation:
        page.locator(form).locator("button[type=submit]").click()
    return navigation.value


def fill_signup_form(page: Page, email: str, nickname: str, password: str, *,
                     phone: str = "", password_confirm: str | None = None) -> None:
    page.fill("input[name=email]", email)
    page.fill("input[name=nickname]", nickname)
    page.fill("input[name=phone]", phone)
    page.fill("input[name=password]", password)
    page.fill("input[name=password_confirm]", password if password_confirm is None else password_confirm)


def signup(page: Page, email: str, nickname: str, password: str = PASSWORD, *,
           phone: str = "", password_confirm: str | None = None) -> Response | None:
    """Opens /signup, fills the form and submits it; returns the response of the page shown next."""
    page.goto("/signup")
    fill_signup_form(page, email, nickname, password, phone=phone, password_confirm=password_confirm)
    return submit(page, "main form[action='/signup']")


def login(page: Page, email: str, password: str = PASSWORD) -> Response | None:
    """Opens /login, fills the form and submits it; returns the response of the page shown next."""
    page.goto("/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", password)
    return submit(page, "main form[action='/login']")


def logout(page: Page) -> Response | None:
    """Signs out from the top bar, or on a phone from the foot of the drawer."""
    open_drawer_for(page, page.locator("form[action='/logout'] button"))
    return submit(page, "form[action='/logout']")


def open_drawer_for(page: Page, target: Locator) -> None:
    """On a phone, opens the drawer when `target` (an account link) is only there."""
    if not target.is_visible() and page.locator("#menu-button").is_visible():
        page.locator("#menu-button").click()
        expect(target).to_be_visible()


def open_room_tools(page: Page) -> None:
    """On a phone, opens the room's details (⋯): member count, notifications, pins, settings."""
    toggle = page.locator("#room-tools-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
        expect(page.locator("#room-tools")).to_be_visible()


def switch_language(page: Page, lang: str) -> Response | None:
    """Presses 한국어 (`ko`) or English (`en`) in the top bar."""
    with page.expect_navigation() as navigation:
        page.locator(f"form.lang-switch button[value={lang}]").click()
    return navigation.value


def path_of(page: Page) -> str:
    """The path of the page's address, without the origin."""
    return re.sub(r"^https?://[^/]+", "", page.url)


# ---------------------------------------------------------------------------------------------
# What a person does in a workspace (shared by the suites)


def unique_name(prefix: str) -> str:
    """A name (or message text) no other test uses."""
    return f"{prefix} {uuid.uuid4().hex[:8]}"


unique_text = unique_name


def create_workspace(page: Page, name: str, description: str = "") -> int:
    """Fills the create form on /workspaces; returns the id of the workspace it lands on."""
    page.goto("/workspaces")
    form = page.locator("#create-workspace-form")
    form.locator("input[name=name]").fill(name)
    form.locator("textarea[name=description]").fill(description)
    response = submit(page, "#create-workspace-form")
    assert response is not None and response.status == 200, response and response.status
    match = re.fullmatch(r"/w/(\d+)", path_of(page))
    assert match, page.url
    return int(match.group(1))


INVITE_LINK = re.compile(r"^https?://[^/\s]+(/invite/[A-Za-z0-9_-]{43})$")


def invite(page: Page, workspace_id: int, email: str) -> str:
    """Invites by email from the members page; returns the invitation link it shows (the same
    answer for an address with an account and one without: nobody is added until they accept)."""
    page.goto(f"/w/{workspace_id}/members")
    page.fill("#invite-form input[name=email]", email)
    response = submit(page, "#invite-form")
    assert response is not None and response.status == 200, response and response.status
    link = page.locator("main .invite-link[role=status] code#invite-link")
    expect(link).to_have_text(INVITE_LINK)
    return link.text_content()


def invite_path(link: str) -> str:
    """The path of an invitation link (`/invite/TOKEN`), to open it on this test's server: the
    link names localhost, whose cookies are not the test browser's."""
    match = INVITE_LINK.fullmatch(link)
    assert match, f"not an invitation link: {link!r}"
    return match.group(1)


def accept_invitation(page: Page, link: str) -> int:
    """The invited person (signed in) opens the link and presses Join; returns the id of the
    workspace they land on."""
    page.goto(invite_path(link))
    with page.expect_navigation():
        page.locator("#accept-invite-form button[type=submit]").click()
    match = re.fullmatch(r"/w/(\d+)", path_of(page))
    assert match, f"accepting the invitation led to {page.url}"
    return int(match.group(1))


def add_member(owner: Page, workspace_id: int, member: Page, email: str) -> None:
    """Makes an existing account a member the way people do: the owner invites its email, and the
    member (signed in on `member`) opens the invitation and joins."""
    link = invite(owner, workspace_id, email)
    assert accept_invitation(member, link) == workspace_id


def general_channel_id(page: Page, workspace_id: int) -> int:
    """The default channel's id, from its link on the workspace home (opens the home page)."""
    page.goto(f"/w/{workspace_id}")
    href = page.locator("#home-channels a", has_text="general").get_attribute("href")
    match = re.fullmatch(rf"/w/{workspace_id}/c/(\d+)", href or "")
    assert match, href
    return int(match.group(1))


def wait_until_live(page: Page) -> None:
    """Waits until this page's browser holds its event stream (the page must lead it, or have
    been open when it connected), and marks the loaded document so that `not_reloaded` can tell
    a live change from a reload."""
    expect(page.locator("html")).to_have_attribute("data-live-online", "yes")
    mark_document(page)


def mark_document(page: Page) -> None:
    page.evaluate("window.__wsxSameDocument = true")


def not_reloaded(page: Page) -> bool:
    return page.evaluate("window.__wsxSameDocument === true")


def messages_with(page: Page, text: str) -> Locator:
    return page.locator("#message-list li.message", has_text=text)


def composer(page: Page) -> Locator:
    return page.locator("#composer textarea[name=content]")


def set_width(page: Page, width: int) -> None:
    """A phone (390) or a desktop (1280) window."""
    page.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})


def korean_pair(new_context, width: int, **bob_options) -> tuple[Page, Page, int, str]:
    """민아 creates a workspace and opens its default channel (live); Bob, a member, is signed
    in on his own browser (`bob_options` go to its context). Both in Korean at `width`. Returns
    (민아, Bob, workspace id, channel path)."""
    mina = new_context("ko-KR").new_page()
    set_width(mina, width)
    signup(mina, unique_email("mina"), "민아")
    workspace = create_workspace(mina, unique_name("팀"))
    bob = new_context("ko-KR", **bob_options).new_page()
    set_width(bob, width)
    bob_email = unique_email("bob")
    signup(bob, bob_email, "Bob")
    add_member(mina, workspace, bob, bob_email)
    mina.goto(f"/w/{workspace}")
    channel = mina.locator("#home-channels a").first.get_attribute("href")
    mina.goto(channel)
    wait_until_live(mina)
    return mina, bob, workspace, channel
