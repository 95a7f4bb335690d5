"""The shipped nginx site (deploy/nginx/wsx.conf) in front of `wsx-web serve --trust-proxy`.

nginx runs the shipped file itself, with only its listen addresses, its upstream address and its
certificate folder changed, around a self-signed certificate. Through it: an event stream over
TLS delivers an event as soon as wsx writes it, cookies set over HTTPS are Secure, wsx tells
clients apart by their own addresses (the per-address sign-up limit), a forged X-Forwarded-For
changes nothing, /metrics is not reachable, plain HTTP redirects to HTTPS, and an app's
Socket.IO session upgrades to a WebSocket and hears a post.

No browser: plain HTTP(S) clients whose sockets are bound to 127.0.0.x source addresses, so that
each "client" has an address of its own. This file starts its own wsx and nginx; nginx comes
from Debian's nginx-light (`make deps`). Without nginx the tests are skipped, except under CI,
where they fail.
"""

import http.client
import os
import pathlib
import queue
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass

import pytest
import requests
import socketio

from conftest import PASSWORD, REPO, STARTUP_TIMEOUT, _stop, _wait_for_ready_line
from test_api_contract import KEY as API_KEY, request as api_request

SITE = REPO / "deploy" / "nginx" / "wsx.conf"
DOMAIN = "chat.example.com"
# Generous for a loaded two-core machine; an unbuffered event on loopback takes milliseconds.
TIMEOUT = 20  # seconds, for any request or for a server to come up
EVENT_DEADLINE = 5  # seconds from sending a post to its event arriving through nginx


# ---------------------------------------------------------------------------------------------
# Finding the tools


def _tool(name: str) -> str | None:
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


def _require(name: str, package: str) -> str:
    path = _tool(name)
    if path:
        return path
    reason = f"{name} is not installed (Debian package {package}; `make deps` installs it)"
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(reason + ", and CI must run the deployment test")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tail(path: pathlib.Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as error:
        return f"({error})"


# ---------------------------------------------------------------------------------------------
# The shipped site, adapted to this machine


def adapt_site(text: str, *, http_port: int, https_port: int, upstream: str, certs: pathlib.Path) -> str:
    """The shipped site with only what must differ here changed: its listen addresses (IPv4
    loopback, free ports; the IPv6 ones dropped, as a test machine may have no IPv6), its upstream
    (this test's wsx) and its certificate folder. Everything else runs as shipped. Each change
    must find what it changes, so the test fails loudly if the site is reshaped."""

    def substitute(pattern: str, replacement: str, expected: int) -> None:
        nonlocal text
        text, count = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        assert count == expected, f"{SITE.name}: expected {expected} match(es) of {pattern!r}, found {count}"

    substitute(r"^(\s*)listen \[::\]:\d+\b[^;]*;\n", "", 2)
    substitute(r"^(\s*)listen 80;", rf"\g<1>listen 127.0.0.1:{http_port};", 1)
    substitute(r"^(\s*)listen 443 ssl", rf"\g<1>listen 127.0.0.1:{https_port} ssl", 1)
    # Two upstreams name wsx: the pages' and the apps' Socket.IO.
    substitute(r"^(\s*)server 127\.0\.0\.1:8080;", rf"\g<1>server {upstream};", 2)
    substitute(re.escape(f"/etc/letsencrypt/live/{DOMAIN}/"), f"{certs}/", 2)
    assert not re.search(r"^\s*listen (?!127\.0\.0\.1:)", text, flags=re.MULTILINE), text
    return text


def nginx_conf(root: pathlib.Path, site: pathlib.Path) -> str:
    """A main nginx.conf around the site: everything in `root`, in the foreground. Debian's own
    nginx.conf is not used (it writes to /var/log/nginx and /run); the site is `include`d the way
    Debian's includes sites-enabled/."""
    # Worker processes run as root when the test does (they would otherwise be `nobody`, which
    # cannot enter the 0700 temporary folder); run by anyone else, nginx and its workers are that user.
    user = "user root root;" if os.geteuid() == 0 else ""
    temp = "\n".join(f"    {kind}_temp_path {root}/temp-{kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""
{user}
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/nginx-error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {root}/nginx-access.log;
{temp}
    # Debian's nginx.conf turns gzip on, and sites often add more types: with event streams among
    # them, the site's /events location must still send them uncompressed.
    gzip on;
    gzip_types text/event-stream;
    # wsx also asks nginx not to buffer its streams (X-Accel-Buffering: no). Ignoring that hint
    # here makes the test see what the shipped site does by itself (proxy_buffering off).
    proxy_ignore_headers X-Accel-Buffering;
    include {site};
}}
"""


# ---------------------------------------------------------------------------------------------
# wsx behind nginx


@dataclass
class Stack:
    root: pathlib.Path
    wsx_port: int
    http_port: int
    https_port: int
    tls: ssl.SSLContext
    wsx_log: pathlib.Path

    def logs(self) -> str:
        return (f"--- wsx-web log ---\n{_tail(self.wsx_log)}\n"
                f"--- nginx error log ---\n{_tail(self.root / 'nginx-error.log')}")


def _make_certificate(openssl: str, folder: pathlib.Path) -> None:
    folder.mkdir()
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "2", "-subj", f"/CN={DOMAIN}", "-addext", f"subjectAltName=DNS:{DOMAIN},IP:127.0.0.1",
         "-keyout", str(folder / "privkey.pem"), "-out", str(folder / "fullchain.pem")],
        check=True, capture_output=True, timeout=TIMEOUT,
    )


def _wait_for_https(stack: Stack, nginx: subprocess.Popen) -> None:
    """Until nginx answers /healthz with wsx's "ok" over TLS (so it listens and reaches wsx)."""
    deadline = time.monotonic() + TIMEOUT
    last = None
    while time.monotonic() < deadline:
        if nginx.poll() is not None:
            raise RuntimeError(f"nginx exited with {nginx.returncode}\n{stack.logs()}")
        try:
            response = Client(stack, "127.0.0.1").get("/healthz")
            if response.status == 200 and response.body.strip() == b"ok":
                return
            last = f"{response.status} {response.body[:200]!r}"
        except OSError as error:
            last = repr(error)
        time.sleep(0.2)
    raise RuntimeError(f"nginx did not pass /healthz to wsx within {TIMEOUT} s (last: {last})\n{stack.logs()}")


def _start_wsx(binary: pathlib.Path, root: pathlib.Path, processes: list) -> int:
    """wsx behind a proxy, as deploy/wsx.service runs it but on a free port and without
    --secure-cookies (so that Secure can only come from the proxy's X-Forwarded-Proto), allowing
    one sign-up per address. Returns its port."""
    (root / "data").mkdir()
    log_path = root / "wsx-web.log"
    with open(log_path, "wb") as log:
        wsx = subprocess.Popen(
            [str(binary), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(root / "data"),
             "--trust-proxy", "--bcrypt-cost", "4", "--signup-max-per-ip", "1", "--signup", "open", "--link-previews", "off",
             "--api-key", API_KEY],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True,
        )
    processes.append(wsx)
    try:
        base_url = _wait_for_ready_line(wsx, STARTUP_TIMEOUT)
    except RuntimeError as error:
        pytest.fail(f"{error}\n--- wsx-web log ---\n{_tail(log_path)}")
    return int(base_url.rsplit(":", 1)[1])


def _start_nginx(nginx: str, stack: Stack, processes: list) -> None:
    """nginx with the adapted site, on free ports (new ones if another process took them first)."""
    conf = stack.root / "nginx.conf"
    command = [nginx, "-p", f"{stack.root}/", "-c", str(conf), "-e", str(stack.root / "nginx-error.log")]
    for attempt in range(3):
        stack.http_port, stack.https_port = _free_port(), _free_port()
        site = stack.root / "wsx.conf"
        site.write_text(adapt_site(SITE.read_text(), http_port=stack.http_port, https_port=stack.https_port,
                                   upstream=f"127.0.0.1:{stack.wsx_port}", certs=stack.root / "certs"))
        conf.write_text(nginx_conf(stack.root, site))
        checked = subprocess.run(command + ["-t"], capture_output=True, text=True, timeout=TIMEOUT)
        assert checked.returncode == 0, f"nginx -t refused the shipped site:\n{checked.stderr}"
        process = subprocess.Popen(command, cwd=stack.root, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(process)
        try:
            return _wait_for_https(stack, process)
        except RuntimeError as error:
            if process.poll() is None or attempt == 2:
                pytest.fail(str(error))


@pytest.fixture(scope="module")
def stack() -> Stack:
    nginx = _require("nginx", "nginx-light")
    openssl = _require("openssl", "openssl")
    binary = pathlib.Path(os.environ.get("WSX_BINARY") or REPO / ".build/debug/wsx-web")
    if not binary.is_file():
        pytest.fail(f"wsx-web binary not found at {binary}: build it (swift build) or set WSX_BINARY")

    root = pathlib.Path(tempfile.mkdtemp(prefix="wsx-nginx-"))
    processes: list[subprocess.Popen] = []
    try:
        wsx_port = _start_wsx(binary, root, processes)
        _make_certificate(openssl, root / "certs")
        stack = Stack(root=root, wsx_port=wsx_port, http_port=0, https_port=0, wsx_log=root / "wsx-web.log",
                      tls=ssl.create_default_context(cafile=str(root / "certs" / "fullchain.pem")))
        _start_nginx(nginx, stack, processes)
        yield stack
    finally:
        for process in reversed(processes):
            _stop(process)
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# A client with an address of its own


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def cookies(self) -> dict[str, str]:
        """Each Set-Cookie by name: the whole header (value and attributes)."""
        return {header.split("=", 1)[0].strip(): header for header in self.headers.get_all("Set-Cookie") or []}

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")

    @property
    def location(self) -> str:
        """The Location header's path (without scheme and host)."""
        return re.sub(r"^https?://[^/]+", "", self.headers.get("Location", ""))


def secure(set_cookie: str) -> bool:
    return any(part.strip().lower() == "secure" for part in set_cookie.split(";")[1:])


class CookieClient:
    """Keeps cookies like a browser over whatever connection `connection(**options)` opens (each
    request its own). The cluster test's people are clients of this kind too."""

    def __init__(self, jar: dict[str, str] | None = None):
        self.jar: dict[str, str] = {} if jar is None else jar

    def connection(self, **options) -> http.client.HTTPConnection:
        raise NotImplementedError

    def cookie_header(self) -> dict[str, str]:
        return {"Cookie": "; ".join(f"{name}={value}" for name, value in self.jar.items())} if self.jar else {}

    def request(self, method: str, path: str, *, form: dict | None = None, headers: dict | None = None,
                **connection_options) -> Reply:
        connection = self.connection(**connection_options)
        try:
            sent = {"Accept-Language": "en", **self.cookie_header(), **(headers or {})}
            body = None
            if form is not None:
                body = urllib.parse.urlencode(form)
                sent["Content-Type"] = "application/x-www-form-urlencoded"
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            reply = Reply(response.status, response.headers, response.read())
        finally:
            connection.close()
        for name, header in reply.cookies().items():
            value = header.split(";", 1)[0].split("=", 1)[1]
            if re.search(r";\s*max-age=0\b", header, re.IGNORECASE) or not value:
                self.jar.pop(name, None)
            else:
                self.jar[name] = value
        return reply


class Client(CookieClient):
    """Talks HTTPS to nginx from `source` (a 127.0.0.x address), keeping cookies like a browser."""

    def __init__(self, stack: Stack, source: str):
        super().__init__()
        self.stack = stack
        self.source = source

    def connection(self, *, timeout: float = TIMEOUT, plain: bool = False) -> http.client.HTTPConnection:
        if plain:
            return http.client.HTTPConnection("127.0.0.1", self.stack.http_port, timeout=timeout,
                                              source_address=(self.source, 0))
        return http.client.HTTPSConnection("127.0.0.1", self.stack.https_port, timeout=timeout,
                                           source_address=(self.source, 0), context=self.stack.tls)

    def get(self, path: str, **options) -> Reply:
        return self.request("GET", path, **options)

    def post(self, path: str, form: dict, **options) -> Reply:
        return self.request("POST", path, form=form, **options)

    def csrf_token(self, path: str) -> str:
        page = self.get(path)
        assert page.status == 200, (path, page.status)
        match = re.search(rb'<meta name="csrf-token" content="([^"]+)">', page.body)
        assert match, f"no CSRF token on {path}"
        return match.group(1).decode()

    def sign_up(self, nickname: str, *, headers: dict | None = None) -> Reply:
        """Opens /signup and submits its form with an e-mail address nobody has used."""
        email = f"{nickname.lower()}-{uuid.uuid4().hex[:10]}@example.com"
        return self.post("/signup", {"_csrf": self.csrf_token("/signup"), "email": email, "nickname": nickname,
                                     "phone": "", "password": PASSWORD, "password_confirm": PASSWORD},
                         headers=headers)


class EventStream:
    """An open `GET /events` through nginx; a thread reads its lines as they arrive."""

    def __init__(self, client: Client):
        self.connection = client.connection(timeout=TIMEOUT)
        self.connection.request("GET", "/events", headers={
            "Accept": "text/event-stream", "Accept-Encoding": "gzip", **client.cookie_header()})
        self.response = self.connection.getresponse()  # a proxy that buffers may not even send this
        self.connection.sock.settimeout(120)  # from now on `wait_for` decides how long is too long
        self.lines: "queue.Queue[bytes | None]" = queue.Queue()
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self) -> None:
        try:
            while line := self.response.readline():
                self.lines.put(line)
        except Exception:  # the stream cut off mid-chunk (by `close`, or a failure seen as a missing line)
            pass
        self.lines.put(None)

    def wait_for(self, needle: bytes, seconds: float) -> bytes | None:
        """The first line holding `needle` within `seconds`, or None."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            assert line is not None, "the event stream ended"
            if needle in line:
                return line
        return None

    def close(self) -> None:
        """Cuts the connection, then lets the reader finish before the response goes away."""
        try:
            self.connection.sock and self.connection.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.reader.join(TIMEOUT)
        self.connection.close()


def change_nickname(client: Client, prefix: str) -> bytes:
    """Saves a new nickname through the profile form, which sends the account's streams an event
    naming it; returns the nickname."""
    nickname = f"{prefix}-{uuid.uuid4().hex[:6]}"
    token = client.csrf_token("/profile")
    reply = client.post("/profile", {"_csrf": token, "nickname": nickname, "phone": ""})
    assert reply.status == 303, (reply.status, reply.body[:300])
    return nickname.encode()


# ---------------------------------------------------------------------------------------------
# The tests


def test_an_event_streams_through_nginx_over_tls_as_soon_as_it_is_written(stack):
    person = Client(stack, "127.0.0.10")
    assert person.sign_up("Streamer").status == 303
    try:
        stream = EventStream(person)
    except TimeoutError:
        pytest.fail(f"/events sent no response head through nginx within {TIMEOUT} s (buffered?)\n{stack.logs()}")
    try:
        assert stream.response.status == 200, stream.response.status
        assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
        # Not compressed (a gzip stream would hold events back until its buffer fills).
        assert stream.response.getheader("Content-Encoding") is None
        assert stream.wait_for(b"retry:", TIMEOUT), f"no retry hint through nginx (buffered?)\n{stack.logs()}"

        # The stream subscribes just after its first bytes; until an event shows that it has,
        # one might be posted before it listens. So change the nickname until one arrives...
        for attempt in range(10):
            if stream.wait_for(change_nickname(person, f"warmup-{attempt}"), 2):
                break
        else:
            pytest.fail(f"no event arrived through nginx in 10 tries\n{stack.logs()}")

        # ...then, with the stream surely live, an event must follow its post at once: a proxy
        # that buffered would sit on a frame this small.
        started = time.monotonic()
        line = stream.wait_for(change_nickname(person, "live-one"), EVENT_DEADLINE)
        took = time.monotonic() - started
        assert line is not None and line.startswith(b"data:"), \
            f"the event did not arrive within {EVENT_DEADLINE} s of its post\n{stack.logs()}"
        assert not stream.response.isclosed(), "the stream closed after one event"
        print(f"event through nginx {took * 1000:.0f} ms after the post was sent")
    finally:
        stream.close()


def app_socket(front: str, certs: pathlib.Path, namespace: str, token: str) -> tuple[socketio.Client, "queue.Queue[dict]"]:
    """An app's Socket.IO client through nginx at `front` (polling, then the upgrade), joined to
    `namespace`, and the `channel` events it hears."""
    heard: "queue.Queue[dict]" = queue.Queue()
    # nginx's certificate is the test's own: the client trusts it, and not the environment's CA
    # bundle (which requests would otherwise prefer).
    http = requests.Session()
    http.trust_env, http.verify = False, str(certs / "fullchain.pem")
    client = socketio.Client(reconnection=False, http_session=http)
    client.on("channel", heard.put, namespace=namespace)
    client.connect(front, namespaces=[namespace], transports=["polling", "websocket"], auth={"token": token}, wait_timeout=10)
    return client, heard


def test_an_app_socket_upgrades_to_a_websocket_through_nginx_and_hears_a_post(stack):
    # The app signs up on wsx itself (127.0.0.1: no address of the clients below).
    status, joined = api_request(f"http://127.0.0.1:{stack.wsx_port}", "POST", "/v1/users/join",
                                 {"email": "nginx-app@example.com", "password": PASSWORD, "nickname": "앱"})
    assert status == 200, joined
    token = joined["token"]["accessToken"]
    front = f"https://127.0.0.1:{stack.https_port}"
    status, workspace = api_request(f"http://127.0.0.1:{stack.wsx_port}", "POST", "/v1/workspaces", {"name": "nginx 팀"}, token)
    assert status == 200, workspace
    chats = f"/v1/workspaces/{workspace['workspace_id']}/channels"
    status, channel = api_request(f"http://127.0.0.1:{stack.wsx_port}", "POST", chats, {"name": "소식"}, token)
    assert status == 200, channel
    chats += f"/{channel['channel_id']}/chats"
    namespace = f"/ws-channel-{channel['channel_id']}"

    client, heard = app_socket(front, stack.root / "certs", namespace, token)
    try:
        assert client.transport() == "websocket", f"the session did not upgrade through nginx\n{stack.logs()}"
        status, posted = api_request(f"http://127.0.0.1:{stack.wsx_port}", "POST", chats, {"content": "nginx를 지나"}, token)
        assert status == 200, posted
        assert heard.get(timeout=EVENT_DEADLINE)["chat_id"] == posted["chat_id"]
    finally:
        client.disconnect()


def test_cookies_set_through_the_https_listener_are_secure(stack):
    person = Client(stack, "127.0.0.11")
    form = person.get("/signup")
    assert form.headers.get("Strict-Transport-Security", "").startswith("max-age="), dict(form.headers)
    assert secure(form.cookies()["wsx_csrf"]), form.cookies()
    signed_up = person.sign_up("Secure")
    assert signed_up.status == 303, signed_up.status
    session = signed_up.cookies()["wsx_session"]
    assert secure(session) and "httponly" in session.lower(), session

    # wsx runs without --secure-cookies: the scheme came from nginx's X-Forwarded-Proto. Asked
    # directly over plain HTTP, the same server does not mark its cookie Secure.
    direct = http.client.HTTPConnection("127.0.0.1", stack.wsx_port, timeout=TIMEOUT)
    try:
        direct.request("GET", "/signup")
        response = direct.getresponse()
        response.read()
        cookie = next(c for c in response.headers.get_all("Set-Cookie") if c.startswith("wsx_csrf="))
    finally:
        direct.close()
    assert not secure(cookie), cookie


def test_wsx_sees_each_client_address_through_nginx_and_ignores_a_forged_one(stack):
    first, second = Client(stack, "127.0.0.2"), Client(stack, "127.0.0.3")
    # --signup-max-per-ip 1: one account per address per hour.
    assert first.sign_up("First").status == 303
    # Another address is another client, although every connection wsx gets comes from nginx.
    assert second.sign_up("Second").status == 303, stack.logs()

    again = Client(stack, "127.0.0.2")
    refused = again.sign_up("Again")
    assert refused.status == 429, refused.status
    assert refused.headers.get("Retry-After"), dict(refused.headers)

    # A client's own X-Forwarded-For (or X-Real-IP) comes before the address nginx appends, and
    # wsx takes the last one: 127.0.0.2 cannot pass for 127.0.0.9.
    forged = again.sign_up("Forged", headers={"X-Forwarded-For": "127.0.0.9", "X-Real-IP": "127.0.0.9"})
    assert forged.status == 429, forged.status


@pytest.mark.parametrize("path", ["/metrics", "/metrics?format=text", "//metrics", "/%6Detrics", "/events/../metrics", "/METRICS"])
def test_metrics_are_not_served_through_nginx(stack, path):
    reply = Client(stack, "127.0.0.20").get(path)
    assert reply.status in (403, 404), reply.status
    # nginx's own page: the request never reached wsx.
    assert b"<center>nginx</center>" in reply.body, reply.body[:300]


def test_plain_http_redirects_to_https(stack):
    client = Client(stack, "127.0.0.21")
    reply = client.get("/signup?next=%2Fworkspaces", plain=True, headers={"Host": DOMAIN})
    assert reply.status == 301, reply.status
    assert reply.headers["Location"] == f"https://{DOMAIN}/signup?next=%2Fworkspaces", reply.headers["Location"]
    assert "Set-Cookie" not in reply.headers  # answered by nginx, not wsx
