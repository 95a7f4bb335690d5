"""Several wsx nodes on one PostgreSQL database behind the shipped nginx cluster site
(deploy/nginx/wsx-cluster.conf), issue 34.

One throwaway PostgreSQL cluster (Debian's postgresql, `initdb` in a temporary folder as the
`postgres` user, on a free port), two nodes on one database of it, each with a data folder of its
own and one shared folder of files, and nginx running the shipped cluster site with only its
listen addresses, its nodes' addresses and its certificate folder changed. Then:

- two browsers, one on each node directly, talk in one channel live, both ways: messages, a
  reaction and an edit, without reloading;
- writers on both nodes post for 30 s while listeners on both nodes hold event streams: every
  acknowledged post is stored once, reaches every listener once and in the same order, and a
  member who read nothing has the same, exact unread count on both nodes;
- an app's Socket.IO socket through nginx (polling, upgraded to a WebSocket) hears the posts
  made on either node, each once;
- a browser through nginx whose node is killed (SIGKILL) reconnects through nginx to the other
  node and gets every message posted meanwhile, each once.

Without PostgreSQL or nginx the tests are skipped, except under CI, where they fail.
"""

import http.client
import itertools
import os
import pathlib
import queue
import re
import shutil
import signal
import sys
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from conftest import (ACTION_TIMEOUT, PASSWORD, REPO, SIGNUP_MAX_PER_IP, STARTUP_TIMEOUT, _stop, _wait_for_ready_line,
                      accept_invitation, composer, create_workspace, general_channel_id, invite, messages_with,
                      not_reloaded, signup, unique_email, unique_name, wait_until_live, wsx_binary)
from test_api_contract import KEY as API_KEY, request as api_request
from test_deploy_nginx import DOMAIN, app_socket, CookieClient, Reply, _free_port, _make_certificate, _require, _tail, nginx_conf

sys.path.insert(0, str(REPO / "Tests" / "support"))
from throwaway_postgres import Postgres, PostgresMissing  # noqa: E402  (the shared throwaway cluster)

SITE = REPO / "deploy" / "nginx" / "wsx-cluster.conf"
TIMEOUT = 20  # seconds, for any request or for a server to come up
# A message posted on one node reaches a stream on the other through PostgreSQL's NOTIFY: on a
# loaded two-core machine, allow it a while (on loopback it takes milliseconds).
LIVE_DEADLINE = 15_000  # milliseconds
POSTING_SECONDS = 30  # the concurrent-writers run
POST_INTERVAL = 0.8  # seconds between one writer's posts (four writers: about five posts a second)

pytestmark = pytest.mark.timeout(180)


# ---------------------------------------------------------------------------------------------
# Tools


def _missing(reason: str):
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(reason + ", and CI must run the cluster test")
    pytest.skip(reason)


# ---------------------------------------------------------------------------------------------
# The nodes


@dataclass
class Node:
    """One `wsx-web serve` on the shared database. Its first start picks a free port, which it
    keeps for later starts (nginx's upstream names it)."""
    name: str
    command: list[str]
    root: pathlib.Path
    port: int = 0
    process: subprocess.Popen | None = None

    @property
    def log(self) -> pathlib.Path:
        return self.root / "wsx-web.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def spawn(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(self.command + ["--port", str(self.port)], cwd=self.root,
                                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)

    def ready(self) -> None:
        try:
            base_url = _wait_for_ready_line(self.process, STARTUP_TIMEOUT)
        except RuntimeError as error:
            _stop(self.process)
            pytest.fail(f"node {self.name}: {error}\n--- its log ---\n{_tail(self.log)}")
        self.port = int(base_url.rsplit(":", 1)[1])

    def start(self) -> None:
        self.spawn()
        self.ready()

    def kill(self) -> None:
        """SIGKILL: no goodbye to its streams, its database connections or nginx."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=TIMEOUT)

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)

    def open_streams(self) -> int:
        """`wsx_event_streams_open` from its /metrics (asked directly, from loopback)."""
        reply = Client(Origin("127.0.0.1", self.port)).get("/metrics")
        assert reply.status == 200, (self.name, reply.status)
        match = re.search(r"^wsx_event_streams_open\s+(\d+(?:\.\d+)?)$", reply.body.decode(), re.MULTILINE)
        assert match, f"no wsx_event_streams_open on node {self.name}'s /metrics"
        return int(float(match.group(1)))


def adapt_site(text: str, *, http_port: int, https_port: int, nodes: list[str], certs: pathlib.Path) -> str:
    """The shipped cluster site with only what must differ here changed: its listen addresses
    (IPv4 loopback, free ports; the IPv6 ones dropped), its nodes' addresses (this test's nodes,
    their parameters kept) and its certificate folder. Each change must find what it changes."""

    def substitute(pattern: str, replacement, expected: int) -> None:
        nonlocal text
        text, count = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        assert count == expected, f"{SITE.name}: expected {expected} match(es) of {pattern!r}, found {count}"

    substitute(r"^(\s*)listen \[::\]:\d+\b[^;]*;\n", "", 2)
    substitute(r"^(\s*)listen 80;", rf"\g<1>listen 127.0.0.1:{http_port};", 1)
    substitute(r"^(\s*)listen 443 ssl", rf"\g<1>listen 127.0.0.1:{https_port} ssl", 1)
    # Two upstreams name the nodes, in the same order: the pages' and the apps' Socket.IO.
    addresses = itertools.cycle(nodes)
    substitute(r"^(\s*)server \d+\.\d+\.\d+\.\d+:\d+(\s[^;]*)?;", lambda m: f"{m.group(1)}server {next(addresses)}{m.group(2) or ''};",
               2 * len(nodes))
    substitute(re.escape(f"/etc/letsencrypt/live/{DOMAIN}/"), f"{certs}/", 2)
    assert not re.search(r"^\s*listen (?!127\.0\.0\.1:)", text, flags=re.MULTILINE), text
    return text


@dataclass
class Cluster:
    root: pathlib.Path
    nodes: list[Node]
    https_port: int = 0
    http_port: int = 0
    tls: ssl.SSLContext | None = None
    nginx: subprocess.Popen | None = None

    @property
    def a(self) -> Node:
        return self.nodes[0]

    @property
    def b(self) -> Node:
        return self.nodes[1]

    @property
    def front(self) -> "Origin":
        """nginx's HTTPS listener."""
        return Origin("127.0.0.1", self.https_port, self.tls)

    @property
    def front_url(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def logs(self) -> str:
        parts = [f"--- node {node.name} (port {node.port}) log ---\n{_tail(node.log, 40)}" for node in self.nodes]
        parts.append(f"--- nginx error log ---\n{_tail(self.root / 'nginx-error.log', 20)}")
        return "\n".join(parts)


def _start_nginx(nginx: str, cluster: Cluster, processes: list) -> None:
    conf = cluster.root / "nginx.conf"
    command = [nginx, "-p", f"{cluster.root}/", "-c", str(conf), "-e", str(cluster.root / "nginx-error.log")]
    for attempt in range(3):
        cluster.http_port, cluster.https_port = _free_port(), _free_port()
        site = cluster.root / "wsx-cluster.conf"
        site.write_text(adapt_site(SITE.read_text(), http_port=cluster.http_port, https_port=cluster.https_port,
                                   nodes=[f"127.0.0.1:{node.port}" for node in cluster.nodes], certs=cluster.root / "certs"))
        conf.write_text(nginx_conf(cluster.root, site))
        checked = subprocess.run(command + ["-t"], capture_output=True, text=True, timeout=TIMEOUT)
        assert checked.returncode == 0, f"nginx -t refused the shipped cluster site:\n{checked.stderr}"
        process = subprocess.Popen(command, cwd=cluster.root, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(process)
        cluster.nginx = process
        deadline = time.monotonic() + TIMEOUT
        last = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                reply = Client(cluster.front).get("/healthz")
                if reply.status == 200 and reply.body.strip() == b"ok":
                    return
                last = f"{reply.status} {reply.body[:200]!r}"
            except OSError as error:
                last = repr(error)
            time.sleep(0.2)
        if process.poll() is None or attempt == 2:
            pytest.fail(f"nginx did not pass /healthz to a node within {TIMEOUT} s (last: {last})\n{cluster.logs()}")


@pytest.fixture(scope="module")
def cluster() -> Cluster:
    nginx = _require("nginx", "nginx-light")
    openssl = _require("openssl", "openssl")
    binary = wsx_binary()
    if not binary.is_file():
        pytest.fail(f"wsx-web binary not found at {binary}: build it (swift build) or set WSX_BINARY")

    try:
        postgres = Postgres()
    except PostgresMissing as missing:
        _missing(str(missing))
    root = pathlib.Path(tempfile.mkdtemp(prefix="wsx-cluster-"))
    processes: list[subprocess.Popen] = []
    nodes: list[Node] = []
    try:
        database = postgres.create_database("wsx_cluster")
        files = root / "files"  # the one folder every node keeps its files in
        files.mkdir()
        files_dir = ["--files-dir", str(files)]
        for name in ("A", "B"):
            node_root = root / f"node-{name}"
            (node_root / "data").mkdir(parents=True)
            nodes.append(Node(name, [
                str(binary), "serve", "--host", "127.0.0.1", "--database", database,
                "--data-dir", str(node_root / "data"), *files_dir, "--trust-proxy",
                "--bcrypt-cost", "4", "--signup", "open",
                # As conftest's server: sign-ups, invitations and posts in bulk from 127.0.0.1.
                "--signup-max-per-ip", str(SIGNUP_MAX_PER_IP), "--invitations-per-hour", "0",
                "--status-changes-per-minute", "0", "--post-burst", "0", "--upload-bytes-per-minute", "0",
                "--searches-per-minute", "0", "--link-previews", "off",
                # The apps' API and Socket.IO, for the socket test through nginx.
                "--api-key", API_KEY], node_root))
        # Both start together: the schema is made once, under PostgreSQL's advisory lock.
        for node in nodes:
            node.spawn()
        for node in nodes:
            node.ready()
        _make_certificate(openssl, root / "certs")
        cluster = Cluster(root=root, nodes=nodes,
                          tls=ssl.create_default_context(cafile=str(root / "certs" / "fullchain.pem")))
        _start_nginx(nginx, cluster, processes)
        yield cluster
    finally:
        for process in reversed(processes):
            _stop(process)
        for node in nodes:
            node.stop()
        postgres.stop()
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# People without a browser


@dataclass
class Origin:
    """Where requests go: a node (plain HTTP) or nginx (HTTPS, `tls` trusting its certificate)."""
    host: str
    port: int
    tls: ssl.SSLContext | None = None

    def connection(self, timeout: float = TIMEOUT) -> http.client.HTTPConnection:
        if self.tls is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.tls)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)


def node_origin(node: Node) -> Origin:
    return Origin("127.0.0.1", node.port)


class Client(CookieClient):
    """One person's cookies, like a browser without JavaScript, talking to one origin. `at(other)`
    is the same person (the same cookies) talking to another node."""

    def __init__(self, origin: Origin, jar: dict[str, str] | None = None):
        super().__init__(jar)
        self.origin = origin
        self.tokens: dict[int, str] = {}

    def at(self, origin: Origin) -> "Client":
        return Client(origin, self.jar)

    def connection(self) -> http.client.HTTPConnection:
        return self.origin.connection()

    def get(self, path: str) -> Reply:
        return self.request("GET", path)

    def page(self, path: str) -> str:
        reply = self.get(path)
        assert reply.status == 200, (path, reply.status, reply.text[:500])
        return reply.text

    def csrf_token(self, path: str) -> str:
        match = re.search(r'<meta name="csrf-token" content="([^"]+)">', self.page(path))
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def submit(self, page: str, action: str, fields: dict) -> Reply:
        """Opens `page` and posts `fields` (and its `_csrf`) to `action`, as its form would."""
        return self.request("POST", action, form={"_csrf": self.csrf_token(page), **fields})

    def sign_up(self, nickname: str) -> str:
        email = unique_email(nickname.lower())
        reply = self.submit("/signup", "/signup", {"email": email, "nickname": nickname, "phone": "",
                                                   "password": PASSWORD, "password_confirm": PASSWORD})
        assert reply.status == 303, (reply.status, reply.text[:800])
        return email

    def create_workspace(self) -> int:
        reply = self.submit("/workspaces", "/workspaces", {"name": unique_name("Cluster"), "description": ""})
        assert reply.status == 303, (reply.status, reply.text[:800])
        match = re.fullmatch(r"/w/(\d+)", reply.location)
        assert match, reply.location
        return int(match.group(1))

    def invite(self, workspace: int, email: str) -> str:
        """Invites `email` from the members page; returns the invitation's token."""
        reply = self.submit(f"/w/{workspace}/members", f"/w/{workspace}/members", {"email": email})
        assert reply.status == 200, (reply.status, reply.text[:800])
        match = re.search(r"/invite/([A-Za-z0-9_-]{43})\b", reply.text)
        assert match, "no invitation link on the members page"
        return match.group(1)

    def accept(self, token: str) -> int:
        reply = self.submit(f"/invite/{token}", f"/invite/{token}", {})
        assert reply.status == 303, (reply.status, reply.text[:800])
        match = re.fullmatch(r"/w/(\d+)", reply.location)
        assert match, reply.location
        return int(match.group(1))

    def channel_id(self, workspace: int) -> int:
        match = re.search(rf'href="/w/{workspace}/c/(\d+)"', self.page(f"/w/{workspace}"))
        assert match, f"no channel link on /w/{workspace}"
        return int(match.group(1))

    def last_event_id(self, path: str) -> int:
        match = re.search(r'<meta name="last-event-id" content="(\d+)">', self.page(path))
        assert match, f"no last-event-id on {path}"
        return int(match.group(1))

    def post(self, workspace: int, channel: int, text: str) -> Reply:
        """Posts the channel's message form (urlencoded, as without JavaScript) with this
        origin's CSRF token, read once."""
        if channel not in self.tokens:
            self.tokens[channel] = self.csrf_token(f"/w/{workspace}/c/{channel}")
        return self.request("POST", f"/w/{workspace}/c/{channel}/messages",
                            form={"_csrf": self.tokens[channel], "content": text})

    def unread(self, workspace: int, channel: int) -> int:
        """The channel's unread count as the sidebar of the workspace's home page shows it."""
        page = self.page(f"/w/{workspace}")
        found = re.findall(rf'data-unread-count="(\d+)"[^>]*?data-room-link="{channel}"', page)
        assert len(found) == 1, f"expected the channel once in the sidebar, found {found}"
        return int(found[0])


class EventStream:
    """An open `GET /events?lastEventId=N`; a thread reads its frames as they arrive. Starting
    from a known id, the stream replays whatever came after it before going live, so no event is
    missed however late the subscription lands."""

    def __init__(self, client: Client, after: int, label: str):
        self.label = label
        self.events: list[tuple[int, str, str]] = []  # (id, type, data)
        self.lock = threading.Lock()
        self.ended = threading.Event()
        self.connection = client.origin.connection()
        self.connection.request("GET", f"/events?lastEventId={after}",
                                headers={"Accept": "text/event-stream", **client.cookie_header()})
        # Kept before the response: the stream is close-delimited, and http.client lets go of
        # the connection's socket (the response still reads it) as soon as it sees that.
        self.socket = self.connection.sock
        self.response = self.connection.getresponse()
        assert self.response.status == 200, (label, self.response.status)
        self.socket.settimeout(None)
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self) -> None:
        frame: dict[str, str] = {}
        try:
            while line := self.response.readline():
                line = line.decode().rstrip("\r\n")
                if line == "":
                    if "data" in frame and "id" in frame:
                        with self.lock:
                            self.events.append((int(frame["id"]), frame.get("event", "message"), frame["data"]))
                    frame = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    frame[name] = frame[name] + "\n" + value if name == "data" and name in frame else value
        except Exception:  # cut off by `close`
            pass
        self.ended.set()

    def messages(self, marker: str) -> list[tuple[int, str]]:
        """(event id, token) of every `message.created` naming a token with `marker`, in arrival order."""
        with self.lock:
            events = list(self.events)
        found = []
        for event_id, kind, data in events:
            if kind == "message.created":
                for token in sorted(set(re.findall(rf"{marker}-w\d-\d{{4}}", data))):
                    found.append((event_id, token))
        return found

    def close(self) -> None:
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.reader.join(TIMEOUT)
        self.connection.close()


def stored_tokens(client: Client, workspace: int, channel: int, marker: str) -> list[str]:
    """Every token with `marker` in the channel's stored messages, oldest first, as its pages
    show them (walked back from the newest with `?before=`, fifty at a time)."""
    pages: list[list[str]] = []
    before = 2**63 - 1
    for _ in range(1000):
        page = client.page(f"/w/{workspace}/c/{channel}?before={before}")
        ids, tokens = [], []
        for item in re.split(r'<li class="message[ "]', page)[1:]:
            match = re.match(r'[^>]*id="m-(\d+)"', item)
            if match:
                ids.append(int(match.group(1)))
                tokens += re.findall(rf"{marker}-w\d-\d{{4}}", item.split("</li>", 1)[0])
        older = [i for i in ids if i < before]
        if not older:
            return [token for page_tokens in reversed(pages) for token in page_tokens]
        pages.append(tokens)
        before = min(older)
    raise AssertionError("the channel's pages did not end")


# ---------------------------------------------------------------------------------------------
# Browsers


@pytest.fixture
def contexts(browser: Browser):
    """A factory of browsers (contexts) whose relative addresses go to `base_url`; all closed
    after the test."""
    made: list[BrowserContext] = []

    def make(base_url: str) -> BrowserContext:
        context = browser.new_context(base_url=base_url, locale="en-US", ignore_https_errors=True,
                                      extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
        context.set_default_timeout(ACTION_TIMEOUT)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


def send(page: Page, text: str) -> None:
    composer(page).fill(text)
    composer(page).press("Enter")
    expect(composer(page)).to_have_value("")


def react(page: Page, text: str, shortcode: str, emoji: str) -> None:
    """Opens a message's reaction picker and picks an emoji by its shortcode."""
    message = messages_with(page, text)
    message.hover()
    message.locator("a.message-react").click()
    picker = page.locator("dialog.emoji-picker")
    expect(picker).to_be_visible()
    picker.locator("input.emoji-search").fill(shortcode)
    expect(picker.locator("button.emoji-choice").first).to_have_text(emoji)
    picker.locator("input.emoji-search").press("Enter")
    expect(picker).to_be_hidden()


def edit(page: Page, text: str, new_text: str) -> None:
    message = messages_with(page, text)
    message.hover()
    message.locator(".message-edit").click()
    form = message.locator(".edit-form")
    form.locator("textarea").fill(new_text)
    form.locator("button[type=submit]").click()
    expect(page.locator("#message-list .edit-form")).to_have_count(0)


# ---------------------------------------------------------------------------------------------
# The tests


def test_browsers_on_two_nodes_talk_live_both_ways(cluster, contexts):
    alice = contexts(cluster.a.url).new_page()
    bob = contexts(cluster.b.url).new_page()
    signup(alice, unique_email("alice"), "Alice")
    bob_email = unique_email("bob")
    signup(bob, bob_email, "Bob")
    workspace = create_workspace(alice, unique_name("Two nodes"))
    # The invitation made on node A is accepted on node B.
    assert accept_invitation(bob, invite(alice, workspace, bob_email)) == workspace
    channel = f"/w/{workspace}/c/{general_channel_id(alice, workspace)}"
    alice.goto(channel)
    bob.goto(channel)
    wait_until_live(alice)
    wait_until_live(bob)
    live = {"timeout": LIVE_DEADLINE}

    # A message each way.
    hello = unique_name("Hello from node A")
    send(alice, hello)
    expect(messages_with(bob, hello)).to_have_count(1, **live)
    answer = unique_name("Answer from node B")
    send(bob, answer)
    expect(messages_with(alice, answer)).to_have_count(1, **live)

    # A reaction each way: Bob's on Alice's message, then Alice's (the same emoji) on it too.
    react(bob, hello, ":tada:", "🎉")
    chip_at_alice = messages_with(alice, hello).locator("form.reactions button.reaction")
    expect(chip_at_alice).to_have_attribute("data-who", "Bob", **live)
    expect(chip_at_alice).to_have_attribute("aria-pressed", "false")
    chip_at_alice.click()
    chip_at_bob = messages_with(bob, hello).locator("form.reactions button.reaction")
    expect(chip_at_bob.locator(".reaction-count")).to_have_text("2", **live)
    expect(chip_at_bob).to_have_attribute("data-who", "Bob, Alice")
    expect(chip_at_alice.locator(".reaction-count")).to_have_text("2")

    # An edit each way.
    hello_fixed = unique_name("Edited on node A")
    edit(alice, hello, hello_fixed)
    expect(messages_with(bob, hello_fixed).locator(".message-body")).to_have_text(hello_fixed, **live)
    expect(messages_with(bob, hello_fixed).locator(".edited")).to_be_visible()
    answer_fixed = unique_name("Edited on node B")
    edit(bob, answer, answer_fixed)
    expect(messages_with(alice, answer_fixed).locator(".message-body")).to_have_text(answer_fixed, **live)
    expect(messages_with(alice, answer_fixed).locator(".edited")).to_be_visible()

    # Each once, in order, the reaction kept through the edit, and nothing reloaded.
    for page in (alice, bob):
        expect(page.locator("#message-list li.message .message-body")).to_have_text([hello_fixed, answer_fixed])
        expect(messages_with(page, hello_fixed).locator("form.reactions button.reaction .reaction-count")).to_have_text("2")
        assert not_reloaded(page), "the page reloaded instead of updating live"

    # What each node shows after a reload is what the other node wrote.
    bob.reload()
    expect(bob.locator("#message-list li.message .message-body")).to_have_text([hello_fixed, answer_fixed])
    expect(messages_with(bob, hello_fixed).locator("form.reactions button.reaction")).to_have_attribute("data-who", "Bob, Alice")


def test_concurrent_writers_on_both_nodes_every_post_stored_and_delivered_once_in_one_order(cluster):
    a, b = node_origin(cluster.a), node_origin(cluster.b)
    alice, bob, carol = Client(a), Client(b), Client(a)
    alice.sign_up("Alice")
    bob_email = bob.sign_up("Bob")
    carol_email = carol.sign_up("Carol")
    workspace = alice.create_workspace()
    assert bob.accept(alice.invite(workspace, bob_email)) == workspace
    assert carol.at(b).accept(alice.at(b).invite(workspace, carol_email)) == workspace
    channel = alice.channel_id(workspace)

    # Carol has read nothing (she never opens the channel); her count is the same on both nodes.
    before = carol.unread(workspace, channel)
    assert carol.at(b).unread(workspace, channel) == before

    # Listeners on both nodes: each of the three on A, and on B, from the newest event now.
    after = alice.last_event_id(f"/w/{workspace}")
    streams = [EventStream(person.at(origin), after, f"{name}@{node}")
               for origin, node in ((a, "A"), (b, "B")) for person, name in ((alice, "Alice"), (bob, "Bob"), (carol, "Carol"))]
    try:
        # Four writers, two on each node, each of the two posters on both.
        marker = f"post-{uuid.uuid4().hex[:6]}"
        writers = [(0, alice.at(a)), (1, bob.at(b)), (2, alice.at(b)), (3, bob.at(a))]
        results: dict[str, int | str] = {}
        results_lock = threading.Lock()
        stop_at = time.monotonic() + POSTING_SECONDS

        def write(number: int, client: Client) -> None:
            sequence = 0
            next_post = time.monotonic() + number * POST_INTERVAL / len(writers)
            while next_post < stop_at:
                time.sleep(max(0.0, next_post - time.monotonic()))
                next_post += POST_INTERVAL
                token = f"{marker}-w{number}-{sequence:04d}"
                sequence += 1
                try:
                    status = client.post(workspace, channel, f"Cluster run {token}").status
                except Exception as error:  # a failure is recorded and asserted on below
                    status = repr(error)
                with results_lock:
                    results[token] = status

        threads = [threading.Thread(target=write, args=writer, daemon=True) for writer in writers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(POSTING_SECONDS + 2 * TIMEOUT)
        assert not any(thread.is_alive() for thread in threads), "a writer hung"

        acknowledged = {token for token, status in results.items() if status == 303}
        failed = {token: status for token, status in results.items() if status != 303}
        print(f"{len(results)} posts in {POSTING_SECONDS} s, {len(acknowledged)} acknowledged")
        assert len(results) >= POSTING_SECONDS * len(writers) / POST_INTERVAL * 0.5, \
            f"only {len(results)} posts were made in {POSTING_SECONDS} s"
        # A node under no more than a few posts a second acknowledges every one.
        assert not failed, f"{len(failed)} posts not acknowledged with 303: {dict(list(failed.items())[:10])}\n{cluster.logs()}"

        # Every listener gets every acknowledged post...
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(acknowledged <= {token for _, token in stream.messages(marker)} for stream in streams):
                break
            time.sleep(0.25)
        time.sleep(1)  # ...and then nothing more: a late copy would come now
        delivered = {stream.label: stream.messages(marker) for stream in streams}
        for label, got in delivered.items():
            tokens = [token for _, token in got]
            missing = acknowledged - set(tokens)
            assert not missing, f"{label} missed {len(missing)} of {len(acknowledged)} posts, e.g. {sorted(missing)[:5]}\n{cluster.logs()}"
            twice = sorted({token for token in tokens if tokens.count(token) > 1})
            assert not twice, f"{label} got {len(twice)} posts more than once, e.g. {twice[:5]}"
            assert set(tokens) == set(results), f"{label} got posts nobody made: {sorted(set(tokens) - set(results))[:5]}"
            ids = [event_id for event_id, _ in got]
            assert ids == sorted(ids) and len(set(ids)) == len(ids), f"{label}'s event ids are not increasing"
        # ...in one order, on both nodes: the database's commit order.
        orders = {label: [token for _, token in got] for label, got in delivered.items()}
        first_label, first_order = next(iter(orders.items()))
        for label, order in orders.items():
            assert order == first_order, (f"{label} got the posts in another order than {first_label}; first difference at "
                                          f"{next(i for i, (x, y) in enumerate(zip(order, first_order)) if x != y)}")
        events = {label: [event_id for event_id, _ in got] for label, got in delivered.items()}
        assert all(ids == events[first_label] for ids in events.values()), "the same posts came with different event ids"
    finally:
        for stream in streams:
            stream.close()

    # Each stored once, as either node's pages show the channel.
    for origin, node in ((a, "A"), (b, "B")):
        stored = stored_tokens(bob.at(origin), workspace, channel, marker)
        twice = sorted({token for token in stored if stored.count(token) > 1})
        assert not twice, f"node {node} shows {len(twice)} posts more than once, e.g. {twice[:5]}"
        assert set(stored) == acknowledged, \
            f"node {node}'s pages: missing {sorted(acknowledged - set(stored))[:5]}, extra {sorted(set(stored) - acknowledged)[:5]}"

    # Carol's unread count is exact, and the same on both nodes.
    counts = {node: carol.at(origin).unread(workspace, channel) for origin, node in ((a, "A"), (b, "B"))}
    assert counts == {"A": before + len(acknowledged), "B": before + len(acknowledged)}, \
        f"Carol's unread counts {counts}, expected {before} + {len(acknowledged)} posts on both nodes"


@pytest.mark.timeout(120)
def test_an_app_socket_through_nginx_hears_posts_made_on_either_node(cluster):
    bases = [f"http://127.0.0.1:{node.port}" for node in cluster.nodes]
    status, joined = api_request(bases[0], "POST", "/v1/users/join",
                                 {"email": f"app-{uuid.uuid4().hex[:8]}@example.com", "password": PASSWORD, "nickname": "앱 사용자"})
    assert status == 200, joined
    token = joined["token"]["accessToken"]
    status, workspace = api_request(bases[0], "POST", "/v1/workspaces", {"name": "두 노드 팀"}, token)
    assert status == 200, workspace
    chats = f"/v1/workspaces/{workspace['workspace_id']}/channels"
    status, channel = api_request(bases[1], "POST", chats, {"name": "앱 소식"}, token)
    assert status == 200, channel
    chats += f"/{channel['channel_id']}/chats"
    namespace = f"/ws-channel-{channel['channel_id']}"

    client, heard = app_socket(cluster.front_url, cluster.root / "certs", namespace, token)
    try:
        assert client.transport() == "websocket", "the session did not upgrade through nginx"
        posted = []
        for n, base in enumerate(bases * 2):
            status, chat = api_request(base, "POST", chats, {"content": f"노드 {n % 2}에서 {n}"}, token)
            assert status == 200, chat
            posted.append(chat["chat_id"])
        received = [heard.get(timeout=LIVE_DEADLINE / 1000)["chat_id"] for _ in posted]
        assert received == posted, "every post, from either node, reaches the socket once and in order"
        with pytest.raises(queue.Empty):
            print("unexpected:", heard.get(timeout=1.5))
    finally:
        client.disconnect()


def _stream_holder(cluster: Cluster) -> Node:
    """The node that holds the one open event stream (the only browser's), from its metrics."""
    deadline = time.monotonic() + TIMEOUT
    counts = {}
    while time.monotonic() < deadline:
        counts = {node.name: node.open_streams() for node in cluster.nodes}
        if sorted(counts.values()) == [0, 1]:
            return next(node for node in cluster.nodes if counts[node.name] == 1)
        time.sleep(0.25)
    raise AssertionError(f"expected one open event stream in the cluster, found {counts}")


def test_a_browser_through_nginx_whose_node_dies_reconnects_to_the_other_and_misses_nothing(cluster, contexts):
    alice = contexts(cluster.front_url).new_page()
    signup(alice, unique_email("alice"), "Alice")
    workspace = create_workspace(alice, unique_name("Failover"))
    bob = Client(cluster.front)
    bob_email = bob.sign_up("Bob")
    link = invite(alice, workspace, bob_email)
    assert bob.accept(link.rsplit("/", 1)[1]) == workspace
    channel_id = general_channel_id(alice, workspace)
    alice.goto(f"/w/{workspace}/c/{channel_id}")
    wait_until_live(alice)

    dead = _stream_holder(cluster)
    survivor = next(node for node in cluster.nodes if node is not dead)
    bob_there = bob.at(node_origin(survivor))
    first = unique_name("Before the failure")
    assert bob_there.post(workspace, channel_id, first).status == 303
    expect(messages_with(alice, first)).to_have_count(1, timeout=LIVE_DEADLINE)

    print(f"killing node {dead.name}, which holds the browser's stream; node {survivor.name} stays")
    dead.kill()
    try:
        # The stream ends with its node; the browser waits 2 s (the stream's retry hint) before it
        # reconnects. Posted on the surviving node meanwhile...
        expect(alice.locator("html")).to_have_attribute("data-live-online", "no", timeout=LIVE_DEADLINE)
        meanwhile = [unique_name(f"While node {dead.name} is down {n}") for n in range(3)]
        for text in meanwhile:
            assert bob_there.post(workspace, channel_id, text).status == 303
        # ...and once it has reconnected, through nginx, to the survivor.
        expect(alice.locator("html")).to_have_attribute("data-live-online", "yes", timeout=LIVE_DEADLINE)
        later = [unique_name(f"After the reconnect {n}") for n in range(2)]
        for text in later:
            assert bob_there.post(workspace, channel_id, text).status == 303

        for text in meanwhile + later:
            expect(messages_with(alice, text)).to_have_count(1, timeout=LIVE_DEADLINE)
        assert survivor.open_streams() == 1, "the browser's stream is not on the surviving node"
        alice.wait_for_timeout(1500)  # a replayed copy on top of a live one would show by now
        expect(alice.locator("#message-list li.message .message-body")).to_have_text([first] + meanwhile + later)
        for text in [first] + meanwhile + later:
            expect(messages_with(alice, text)).to_have_count(1)
        assert not_reloaded(alice), "the page reloaded instead of catching up"
    finally:
        # Back for whatever runs next; nginx tries it again after fail_timeout.
        dead.start()
