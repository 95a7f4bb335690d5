"""Web Push, end to end: the app manifest and its icons, the service worker (scope /, the offline
page, nothing signed-in kept), and push messages as a push service receives them. The tests run
their own push service on loopback (the server lists 127.0.0.1 with --push-service-hosts) and
play the browser's part of a subscription in Python: a P-256 key pair and an auth secret, so that
what the server sends can be checked (VAPID JWT signed with the key of /push/key) and decrypted
(RFC 8291, aes128gcm). Chromium in a test context has no push service of its own, so push.js is
checked with the browser's PushManager standing in for one."""

import base64
import http.server
import json
import os
import re
import struct
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass

import http_ece
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from playwright.sync_api import BrowserContext, Page, expect

from conftest import (
    create_workspace, general_channel_id, login, logout, signup, unique_email, unique_name, unique_text, wait_until_live,
)
from test_messaging import Team

pytestmark = pytest.mark.timeout(240)

SUBSCRIPTIONS = "/push/subscriptions"
DELIVERY_TIMEOUT = 10  # seconds: a push the server owes reaches the push service within this
QUIET_PERIOD = 6  # seconds: how long "no push" is watched for


# ---------------------------------------------------------------------------------------------
# A push service on loopback


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes


class PushService:
    """Takes what wsx sends to an endpoint, as FCM or Mozilla's service would, and answers 201,
    or what a test set for that endpoint (410: the subscription is gone)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._deliveries: list[Delivery] = []
        self._answers: dict[str, int] = {}
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 (the standard library's name)
                body = self._body()
                path = urllib.parse.urlsplit(self.path).path
                with service._lock:
                    service._deliveries.append(Delivery(path, {k.lower(): v for k, v in self.headers.items()}, body))
                    status = service._answers.get(path, 201)
                self.send_response(status)
                if status == 201:
                    self.send_header("Location", f"/message/{uuid.uuid4().hex}")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _body(self) -> bytes:
                if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                    data = b""
                    while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                        data += self.rfile.read(size)
                        self.rfile.readline()
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def log_message(self, *args):
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def endpoint(self, answer: int = 201) -> str:
        """A new endpoint no other test uses, answering `answer`."""
        path = f"/push/{uuid.uuid4().hex}"
        with self._lock:
            self._answers[path] = answer
        return self.origin + path

    def deliveries(self, endpoint: str) -> list[Delivery]:
        path = urllib.parse.urlsplit(endpoint).path
        with self._lock:
            return [d for d in self._deliveries if d.path == path]

    def wait_for(self, endpoint: str, count: int, timeout: float = DELIVERY_TIMEOUT) -> list[Delivery]:
        """The endpoint's deliveries once there are `count` of them (fails after `timeout`)."""
        deadline = time.monotonic() + timeout
        while len(got := self.deliveries(endpoint)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(got)} push(es) to {endpoint} within {timeout} s, expected {count}")
            time.sleep(0.1)
        return got

    def close(self):
        self._server.shutdown()


@pytest.fixture(scope="module")
def push_service():
    service = PushService()
    yield service
    service.close()


# ---------------------------------------------------------------------------------------------
# The browser's side of a subscription, in Python


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Subscriber:
    """A browser's push subscription: the endpoint its push service gave it, its P-256 key pair
    (p256dh) and its 16-byte auth secret."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def json(self) -> dict:
        """What `PushSubscription.toJSON()` gives."""
        point = self.private_key.public_key().public_bytes(serialization.Encoding.X962,
                                                           serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)}}

    def read(self, delivery: Delivery) -> dict:
        """The notification a push carries, decrypted as the browser would (RFC 8291)."""
        plain = http_ece.decrypt(delivery.body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm")
        return json.loads(plain)


# ---------------------------------------------------------------------------------------------
# Helpers


def post_json(page: Page, url: str, body, *, token: str | None = "page") -> int:
    """POSTs `body` as JSON from the page's script, with the page's CSRF token (or `token`, or
    none); returns the status."""
    return page.evaluate("""async ([url, body, token]) => {
        const csrf = token === 'page' ? document.querySelector('meta[name=csrf-token]').content : token;
        const headers = {'Content-Type': 'application/json'};
        if (csrf !== null) headers['X-CSRF-Token'] = csrf;
        const response = await fetch(url, {
            method: 'POST', credentials: 'same-origin', headers, redirect: 'manual',
            body: typeof body === 'string' ? body : JSON.stringify(body),
            signal: AbortSignal.timeout(10000),  // a hung request fails the test, never hangs it
        });
        return response.status;
    }""", [url, body, token])


def subscribe(page: Page, subscriber: Subscriber) -> None:
    """Gives the server this subscription from a signed-in page, as push.js does."""
    assert post_json(page, SUBSCRIPTIONS, subscriber.json()) == 201


def send_dm(page: Page, workspace: int, to: int, text: str) -> int:
    """Sends a direct message from the author's page (its script's way); returns its id."""
    answer = page.evaluate("""async ([action, content]) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        const response = await fetch(action, {
            method: 'POST', body: new URLSearchParams({_csrf: token, content}), credentials: 'same-origin',
            headers: {'X-CSRF-Token': token, Accept: 'application/json'}, signal: AbortSignal.timeout(10000),
        });
        return [response.status, await response.text()];
    }""", [f"/w/{workspace}/dm/{to}/messages", text])
    assert answer[0] in (200, 201), answer
    return json.loads(answer[1])["id"]


def open_dm_watching(team: Team, state: str) -> None:
    """A opens the DM with B and waits until B shows as `state` there (online: a tab of B's in
    use; offline: every tab of B's closed, after the server's grace for moving between pages)."""
    team.a.goto(f"/w/{team.workspace_id}/dm/{team.b_id}")
    wait_until_live(team.a)
    dot = team.a.locator(f'.room-header [data-presence="{team.b_id}"]')
    expect(dot).to_have_attribute("data-state", state, timeout=15000)


def server_key(page: Page) -> bytes:
    response = page.request.get("/push/key")
    assert response.status == 200, response.status
    assert response.headers["content-type"].startswith("text/plain"), response.headers
    key = unb64url(response.text().strip())
    assert len(key) == 65 and key[0] == 4, key
    return key


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    return struct.unpack(">II", data[16:24])


def signed_in_context(new_context, email: str, **options) -> tuple[BrowserContext, Page]:
    """Another browser where B signs in (another session of B's)."""
    context = new_context("en-US", **options)
    page = context.new_page()
    login(page, email)
    assert page.locator("meta[name=viewer-id]").count() == 1, page.url
    return context, page


# ---------------------------------------------------------------------------------------------
# a. The manifest, the icons, the service worker and the offline page


def test_the_manifest_names_the_app_and_its_icons_answer_in_their_sizes(new_context):
    page = new_context("en-US").new_page()
    response = page.request.get("/manifest.webmanifest")
    assert response.status == 200, response.status
    assert "json" in response.headers["content-type"], response.headers
    manifest = json.loads(response.body())
    assert manifest["name"] == "wsx" and manifest["short_name"] == "wsx"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    for colour in ("theme_color", "background_color"):
        assert re.fullmatch(r"#[0-9a-fA-F]{6}", manifest[colour]), manifest[colour]

    purposes = {}
    for icon in manifest["icons"]:
        assert icon["src"].startswith("/static/icons/") and icon["type"] == "image/png", icon
        answer = page.request.get(icon["src"])
        assert answer.status == 200, (icon["src"], answer.status)
        assert answer.headers["content-type"] == "image/png", answer.headers
        width, height = (int(n) for n in icon["sizes"].split("x"))
        assert png_size(answer.body()) == (width, height), icon
        for purpose in icon.get("purpose", "any").split():
            purposes.setdefault(purpose, set()).add(width)
    assert {192, 512} <= purposes.get("any", set()), purposes
    assert {192, 512} <= purposes.get("maskable", set()), purposes

    # A signed-in page links it, with the theme's colour, the iOS icon and push's addresses.
    signed_in = new_context("en-US").new_page()
    signup(signed_in, unique_email("manifest"), "Mina")
    expect(signed_in.locator("meta[name=viewer-id]")).to_have_count(1)
    head = signed_in.locator("head")
    expect(head.locator("link[rel=manifest]")).to_have_attribute("href", "/manifest.webmanifest")
    expect(head.locator("meta[name=theme-color]")).to_have_attribute("content", manifest["theme_color"])
    expect(head.locator("meta[name=push-key-url]")).to_have_attribute("content", "/push/key")
    expect(head.locator("meta[name=push-subscriptions-url]")).to_have_attribute("content", SUBSCRIPTIONS)
    apple = head.locator("link[rel=apple-touch-icon]").get_attribute("href")
    answer = signed_in.request.get(apple)
    assert answer.status == 200 and png_size(answer.body()) == (180, 180), apple
    server_key(signed_in)


def test_the_service_worker_covers_the_site_keeps_no_page_and_shows_the_offline_page(new_context):
    context = new_context("en-US")
    page = context.new_page()
    signup(page, unique_email("worker"), "Mina")
    workspace = create_workspace(page, unique_name("Team"))
    general = f"/w/{workspace}/c/{general_channel_id(page, workspace)}"
    script = page.request.get("/sw.js")
    assert script.status == 200, script.status
    assert "javascript" in script.headers["content-type"], script.headers
    assert "no-cache" in script.headers.get("cache-control", ""), script.headers

    page.goto(f"/w/{workspace}")
    scope = page.evaluate("navigator.serviceWorker.ready.then((registration) => registration.scope)")
    base = re.match(r"https?://[^/]+", page.url).group(0)
    assert scope == base + "/", scope
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")

    # Signed-in pages go through it, and none is kept: only the offline page and its files.
    page.goto(general)
    wait_until_live(page)
    page.goto(f"/w/{workspace}/members")
    kept = page.evaluate("""async () => {
        const urls = [];
        for (const name of await caches.keys()) {
            for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
        }
        return urls;
    }""")
    assert kept, "the worker keeps nothing, not even the offline page"
    assert all(url.startswith(base + "/static/") for url in kept), kept
    assert base + "/static/offline.html" in kept, kept

    # No network: a page the browser opens is the offline page, in Korean and English.
    context.set_offline(True)
    try:
        page.goto("/")
        expect(page.locator("h1")).to_have_text("연결이 끊겼습니다")
        expect(page.locator("main")).to_contain_text("You are offline")
        expect(page.locator("a#offline-retry")).to_have_attribute("href", "/")
        assert page.locator("head script, body script").count() == 0
    finally:
        context.set_offline(False)
    # Back online, the page is the page.
    page.goto(f"/w/{workspace}")
    expect(page.locator("meta[name=viewer-id]")).to_have_count(1)
    expect(page.locator("#offline")).to_have_count(0)


# ---------------------------------------------------------------------------------------------
# b. A push, as the push service gets it


def test_a_direct_message_to_someone_with_no_tab_open_is_pushed_signed_and_encrypted(new_context, push_service):
    team = Team(new_context, "push")
    key = server_key(team.b)
    bob = Subscriber(push_service.endpoint())
    subscribe(team.b, bob)
    team.b_context.close()  # no tab of Bob's is open: the server pushes
    open_dm_watching(team, "offline")

    text = unique_text("Lunch at noon?")
    message_id = send_dm(team.a, team.workspace_id, team.b_id, text)
    [delivery] = push_service.wait_for(bob.endpoint, 1)

    headers = delivery.headers
    assert headers.get("content-encoding") == "aes128gcm", headers
    assert re.fullmatch(r"\d+", headers.get("ttl", "")), headers
    authorization = re.fullmatch(r"vapid t=([A-Za-z0-9_.-]+),\s*k=([A-Za-z0-9_-]+)", headers.get("authorization", ""))
    assert authorization, headers.get("authorization")
    token, announced_key = authorization.groups()
    assert unb64url(announced_key) == key
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)
    claims = jwt.decode(token, public_key, algorithms=["ES256"], audience=push_service.origin)
    now = time.time()
    assert now < claims["exp"] <= now + 24 * 3600 + 60, claims
    assert claims["sub"].startswith("mailto:"), claims

    note = bob.read(delivery)
    assert "Alice" in note["title"] + note["body"], note
    assert text in note["body"], note
    assert note["messageId"] == message_id, note
    assert note["tag"] == f"wsx-m-{message_id}", note
    assert isinstance(note["roomId"], int), note
    assert note["url"].startswith("/") and f"m-{message_id}" in note["url"], note

    # A mention in a channel is pushed too.
    mention = unique_text("@Bob can you check")
    team.a.goto(team.general_path)
    answer = team.a.evaluate("""async ([action, content]) => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        const response = await fetch(action, {method: 'POST', body: new URLSearchParams({_csrf: token, content}),
            credentials: 'same-origin', headers: {'X-CSRF-Token': token, Accept: 'application/json'}});
        return [response.status, await response.text()];
    }""", [f"{team.general_path}/messages", mention])
    assert answer[0] == 201, answer
    mentioned = bob.read(push_service.wait_for(bob.endpoint, 2)[1])
    assert mention.split()[-1] in mentioned["body"], mentioned
    assert mentioned["messageId"] == json.loads(answer[1])["id"], mentioned


# ---------------------------------------------------------------------------------------------
# c. A subscription its push service says is gone (410) is not pushed to again


def test_a_subscription_answered_410_is_dropped(new_context, push_service):
    team = Team(new_context, "gone")
    gone = Subscriber(push_service.endpoint(answer=410))
    subscribe(team.b, gone)
    other_context, other_page = signed_in_context(new_context, team.b_email)
    kept = Subscriber(push_service.endpoint())
    subscribe(other_page, kept)
    team.b_context.close()
    other_context.close()
    open_dm_watching(team, "offline")

    send_dm(team.a, team.workspace_id, team.b_id, unique_text("first"))
    push_service.wait_for(kept.endpoint, 1)
    push_service.wait_for(gone.endpoint, 1)

    send_dm(team.a, team.workspace_id, team.b_id, unique_text("second"))
    push_service.wait_for(kept.endpoint, 2)
    team.a.wait_for_timeout(3000)  # the gone one would have gone out with the kept one
    assert len(push_service.deliveries(gone.endpoint)) == 1


# ---------------------------------------------------------------------------------------------
# d. No push while a tab of the person's is in use


def test_no_push_while_the_person_has_a_tab_in_use_and_one_once_they_close_it(new_context, push_service):
    team = Team(new_context, "visible")
    bob = Subscriber(push_service.endpoint())
    subscribe(team.b, bob)
    team.b.goto(f"/w/{team.workspace_id}")
    wait_until_live(team.b)
    team.b.bring_to_front()
    open_dm_watching(team, "online")

    send_dm(team.a, team.workspace_id, team.b_id, unique_text("while you are here"))
    team.a.wait_for_timeout(QUIET_PERIOD * 1000)
    assert push_service.deliveries(bob.endpoint) == []

    team.b_context.close()
    expect(team.a.locator(f'.room-header [data-presence="{team.b_id}"]')).to_have_attribute(
        "data-state", "offline", timeout=15000)
    text = unique_text("now that you are gone")
    send_dm(team.a, team.workspace_id, team.b_id, text)
    [delivery] = push_service.wait_for(bob.endpoint, 1)
    assert text in bob.read(delivery)["body"]


# ---------------------------------------------------------------------------------------------
# e. What the server refuses


def test_a_malformed_subscription_is_refused_and_every_change_needs_the_csrf_token(new_context, push_service):
    team = Team(new_context, "refused")
    page = team.b
    good = Subscriber(push_service.endpoint()).json()

    def but(**changes) -> dict:
        subscription = json.loads(json.dumps(good))
        for name, value in changes.items():
            if name in ("p256dh", "auth"):
                subscription["keys"][name] = value
            elif value is None:
                subscription.pop(name)
            else:
                subscription[name] = value
        return subscription

    off_curve = b"\x04" + bytes(range(1, 65))
    malformed = {
        "p256dh not base64url": but(p256dh="not*base64!!"),
        "p256dh 64 bytes": but(p256dh=b64url(os.urandom(64))),
        "p256dh not a point on P-256": but(p256dh=b64url(off_curve)),
        "auth 15 bytes": but(auth=b64url(os.urandom(15))),
        "auth not base64url": but(auth="%%%%"),
        "endpoint not a URL": but(endpoint="not a url"),
        "endpoint empty": but(endpoint=""),
        "endpoint missing": but(endpoint=None),
        "keys missing": but(keys=None),
    }
    for what, subscription in malformed.items():
        assert post_json(page, SUBSCRIPTIONS, subscription) == 422, what
    assert post_json(page, SUBSCRIPTIONS, "{not json") in (400, 422)

    # Without the token, or with another one: refused like any form without it.
    assert post_json(page, SUBSCRIPTIONS, good, token=None) == 403
    assert post_json(page, SUBSCRIPTIONS, good, token="x" * 43) == 403
    assert post_json(page, SUBSCRIPTIONS + "/remove", {"endpoint": good["endpoint"]}, token=None) == 403

    # The well-formed one is taken, and removed.
    assert post_json(page, SUBSCRIPTIONS, good) == 201
    assert post_json(page, SUBSCRIPTIONS + "/remove", {"endpoint": good["endpoint"]}) == 204


# ---------------------------------------------------------------------------------------------
# Removing a subscription, or signing out, stops its pushes


def test_a_removed_subscription_and_one_of_a_session_signed_out_get_no_push(new_context, push_service):
    team = Team(new_context, "removed")
    removed = Subscriber(push_service.endpoint())
    subscribe(team.b, removed)
    assert post_json(team.b, SUBSCRIPTIONS + "/remove", {"endpoint": removed.endpoint}) == 204

    signed_out_context, signed_out_page = signed_in_context(new_context, team.b_email)
    signed_out = Subscriber(push_service.endpoint())
    subscribe(signed_out_page, signed_out)
    logout(signed_out_page)

    kept_context, kept_page = signed_in_context(new_context, team.b_email)
    kept = Subscriber(push_service.endpoint())
    subscribe(kept_page, kept)
    for context in (team.b_context, signed_out_context, kept_context):
        context.close()
    open_dm_watching(team, "offline")

    send_dm(team.a, team.workspace_id, team.b_id, unique_text("who gets this"))
    push_service.wait_for(kept.endpoint, 1)
    team.a.wait_for_timeout(3000)
    assert push_service.deliveries(removed.endpoint) == []
    assert push_service.deliveries(signed_out.endpoint) == []


# ---------------------------------------------------------------------------------------------
# push.js: subscribes once notifications are allowed and gives the server the subscription


# The browser's push service, played by the test: Chromium in a test context has none.
FAKE_PUSH_MANAGER = """((subscription) => {
    window.__subscribeCalls = [];
    let current = null;
    PushManager.prototype.getSubscription = async function () { return current; };
    PushManager.prototype.subscribe = async function (options) {
        const key = new Uint8Array(options.applicationServerKey);
        window.__subscribeCalls.push({ userVisibleOnly: options.userVisibleOnly, key: Array.from(key) });
        current = {
            endpoint: subscription.endpoint,
            options: { userVisibleOnly: true, applicationServerKey: key.buffer },
            toJSON: () => subscription,
            unsubscribe: async () => { current = null; return true; },
        };
        return current;
    };
})(%s)"""


def test_push_js_gives_the_server_the_browsers_subscription_once_per_sign_in(new_context, push_service):
    bob = Subscriber(push_service.endpoint())
    context = new_context("en-US", permissions=["notifications"])
    context.add_init_script(FAKE_PUSH_MANAGER % json.dumps(bob.json()))
    posts = []
    context.on("request", lambda request: posts.append(request.url)
               if request.method == "POST" and request.url.endswith(SUBSCRIPTIONS) else None)
    team = Team(new_context, "pushjs", b_context=context)
    page = team.b
    stored = "([key, endpoint]) => localStorage.getItem(key) === endpoint"
    given_to_server = [f"wsx-push:{team.b_id}", bob.endpoint]

    # Signed in with notifications allowed: subscribed with the server's key, and given once.
    # Joining the team already loaded pages that ran push.js, so this page's own subscribe call
    # is waited for, not only the stored endpoint an earlier page left behind.
    page.goto(f"/w/{team.workspace_id}")
    page.wait_for_function("() => window.__subscribeCalls.length > 0")
    page.wait_for_function(stored, arg=given_to_server)
    calls = page.evaluate("window.__subscribeCalls")
    assert calls and all(call["userVisibleOnly"] is True for call in calls), calls
    assert bytes(calls[-1]["key"]) == server_key(page)
    given = len(posts)
    assert given >= 1
    page.reload()
    page.wait_for_function("() => window.__subscribeCalls.length > 0")
    page.wait_for_timeout(1000)
    assert len(posts) == given, posts

    # Signing out forgets it here (the server drops it with the session); signing in gives it again.
    logout(page)
    assert page.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('wsx-push'))") == []
    login(page, team.b_email)
    page.wait_for_function(stored, arg=given_to_server)
    assert len(posts) == given + 1, posts

    # That subscription is the one the server pushes to.
    context.close()
    open_dm_watching(team, "offline")
    text = unique_text("pushed to the subscription push.js gave")
    send_dm(team.a, team.workspace_id, team.b_id, text)
    [delivery] = push_service.wait_for(bob.endpoint, 1)
    assert text in bob.read(delivery)["body"]
