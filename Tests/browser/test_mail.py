"""E-mail (issue 23, point 1) against a real SMTP server: aiosmtpd on loopback, in this process.

Each test starts its own wsx-web with mail flags (`--smtp-url` pointing at its own aiosmtpd,
`--base-url` naming the port it listens on) and an empty data folder, talks to it with plain
HTTP requests (no browser: a client that keeps cookies and sends the forms' `_csrf`), and reads
what arrived at the SMTP server, parsed with Python's `email` package:

- "Forgot password?": the same answer for a known and an unknown address, one mail to the known
  one with a working `/reset/<token>` link, never a link on the page; the per-address limit (429);
  without `--smtp-url`, the page says to ask the operator.
- Invitations: mailed (multipart/alternative, proper headers, a Korean subject as RFC 2047
  encoded words when the inviter uses Korean, the recipient account's own language when it saved
  one), the link works; a recipient refused for good (550) is listed on the members page; a
  temporary refusal (451) is delivered on a later try.
- STARTTLS with a login against a private CA (`--smtp-ca-file`); an untrusted certificate and a
  server without STARTTLS get neither the mail nor the password.
- The digest of unread mentions and direct messages for someone who is away, its one-click
  unsubscribe (RFC 8058) and the profile's checkbox.

The SMTP server is aiosmtpd from PyPI (Tests/browser/requirements.txt). Waits are generous (up to
20 s for a mail) for a loaded two-core machine.
"""

import email
import email.message
import email.policy
import html
import http.client
import os
import pathlib
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
from dataclasses import dataclass, field
from typing import Callable

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import MISSING, AuthResult, LoginPassword

from conftest import PASSWORD, REPO, STARTUP_TIMEOUT, _stop, _wait_for_ready_line

# aiosmtpd itself still sets the deprecated Session.login_data on every login.
pytestmark = pytest.mark.filterwarnings("ignore:Session.login_data is deprecated:DeprecationWarning")

MAIL_FROM = "wsx <chat@example.com>"
SENDER = "chat@example.com"
MAIL_WAIT = 20  # seconds a mail may take to arrive on a loaded machine
HTTP_TIMEOUT = 20
SMTP_USER = "mailer"
SMTP_PASSWORD = "wsx-smtp-secret-42"
TOKEN = r"[A-Za-z0-9_-]{43}"
RESET_SENT = "If an account uses that address, a link to reset its password is on its way."
RESET_NO_MAIL = "This server does not send mail, so a password cannot be reset from here. Ask your administrator"
RESET_THROTTLED = "Too many reset requests from your address"
MAIL_FAILURES_HEADING = "Invitation mail that could not be delivered"


# ---------------------------------------------------------------------------------------------
# The SMTP server


@dataclass
class Received:
    """One message the SMTP server accepted, with what it knew of the session."""
    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    tls: bool
    authenticated: bool
    message: email.message.EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    def raw_header(self, name: str) -> str:
        """A header as it was sent (unfolded, not decoded)."""
        head = self.data.split(b"\r\n\r\n", 1)[0].decode("ascii", errors="replace")
        unfolded = re.sub(r"\r\n[ \t]+", " ", head)
        for line in unfolded.split("\r\n"):
            key, _, value = line.partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return ""

    def text(self) -> str:
        return self.message.get_body(("plain",)).get_content()

    def html(self) -> str:
        return self.message.get_body(("html",)).get_content()


class Recorder:
    """An aiosmtpd handler that keeps what arrives and answers as a test tells it to:
    `refuse` addresses get 550 at RCPT; the first `temporary_rcpt` RCPTs and the first
    `temporary_data` DATAs get 451. Every EHLO (one per connection wsx opens), AUTH command and
    call of the authenticator is noted."""

    def __init__(self, *, refuse: tuple[str, ...] = (), temporary_rcpt: int = 0, temporary_data: int = 0):
        self.lock = threading.Lock()
        self.received: list[Received] = []
        self.refuse = {address.lower() for address in refuse}
        self.temporary_rcpt = temporary_rcpt
        self.temporary_data = temporary_data
        self.ehlos: list[bool] = []  # whether each EHLO came over TLS
        self.saw_auth: list[tuple[str, bool]] = []  # (mechanism, over TLS)
        self.logins: list[tuple[str, str, str, bool]] = []  # (mechanism, login, password, over TLS)
        self.rcpt_answers: list[tuple[str, str]] = []  # (address, answer)
        self.data_answers: list[str] = []

    # Hooks aiosmtpd calls (in its own thread's event loop).

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        with self.lock:
            self.ehlos.append(session.ssl is not None)
        return responses

    async def handle_AUTH(self, server, session, envelope, args):
        with self.lock:
            self.saw_auth.append((args[0] if args else "", session.ssl is not None))
        return MISSING  # aiosmtpd goes on with its own AUTH handling (the authenticator)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        with self.lock:
            if address.lower() in self.refuse:
                answer = f"550 5.1.1 <{address}>: Recipient address rejected: no such mailbox"
            elif self.temporary_rcpt > 0:
                self.temporary_rcpt -= 1
                answer = "451 4.3.0 Temporary local problem, try again later"
            else:
                envelope.rcpt_tos.append(address)
                answer = "250 OK"
            self.rcpt_answers.append((address, answer))
        return answer

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.temporary_data > 0:
                self.temporary_data -= 1
                self.data_answers.append("451")
                return "451 4.3.0 Temporary failure storing the message, try again later"
            self.data_answers.append("250")
            data = envelope.content if isinstance(envelope.content, bytes) else envelope.content.encode()
            self.received.append(Received(
                mail_from=envelope.mail_from, rcpt_tos=list(envelope.rcpt_tos), data=data,
                tls=session.ssl is not None, authenticated=bool(session.authenticated),
                message=email.message_from_bytes(data, policy=email.policy.default)))
        return "250 Message accepted for delivery"

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        """aiosmtpd's authenticator: notes every call; only SMTP_USER/SMTP_PASSWORD may log in."""
        login = password = ""
        if isinstance(auth_data, LoginPassword):
            login, password = auth_data.login.decode(errors="replace"), auth_data.password.decode(errors="replace")
        with self.lock:
            self.logins.append((mechanism, login, password, session.ssl is not None))
        return AuthResult(success=(login, password) == (SMTP_USER, SMTP_PASSWORD))

    # What a test reads.

    def messages(self, where: Callable[[Received], bool] = lambda _: True) -> list[Received]:
        with self.lock:
            return [mail for mail in self.received if where(mail)]

    def wait_for(self, where: Callable[[Received], bool] = lambda _: True, *, count: int = 1,
                 timeout: float = MAIL_WAIT) -> list[Received]:
        """The messages `where` accepts, once there are at least `count` (fails after `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.messages(where)
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                pytest.fail(f"{len(found)} of {count} expected mail(s) arrived within {timeout} s; "
                            f"SMTP server saw: {self.summary()}")
            time.sleep(0.1)

    def summary(self) -> str:
        with self.lock:
            return (f"EHLOs (TLS?) {self.ehlos}, AUTH commands {self.saw_auth}, "
                    f"authenticator calls {[(m, l, t) for m, l, _, t in self.logins]}, "
                    f"RCPT answers {self.rcpt_answers}, DATA answers {self.data_answers}, "
                    f"received {[(m.rcpt_tos, m.subject) for m in self.received]}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_smtp(recorder: Recorder, **options) -> Controller:
    """aiosmtpd on 127.0.0.1 and a free port (another one if that port was taken meanwhile)."""
    for attempt in range(5):
        controller = Controller(recorder, hostname="127.0.0.1", port=_free_port(), ready_timeout=STARTUP_TIMEOUT,
                                **options)
        try:
            controller.start()
            return controller
        except OSError:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def _make_ca_and_certificate(folder: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """A private CA, and a certificate for localhost (and 127.0.0.1) that it signed.
    Returns (CA certificate, server certificate, server key)."""
    openssl = shutil.which("openssl")
    if not openssl:
        pytest.fail("openssl is not installed (Debian package openssl)")
    folder.mkdir()
    ca_key, ca_cert = folder / "ca.key", folder / "ca.pem"
    key, request, cert = folder / "server.key", folder / "server.csr", folder / "server.pem"
    extensions = folder / "server.ext"
    extensions.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                          "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True, timeout=HTTP_TIMEOUT)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-days", "2", "-subj", "/CN=wsx test mail CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        "-keyout", str(ca_key), "-out", str(ca_cert))
    run("req", *ec, "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(request))
    run("x509", "-req", "-in", str(request), "-CA", str(ca_cert), "-CAkey", str(ca_key), "-CAcreateserial",
        "-days", "2", "-extfile", str(extensions), "-out", str(cert))
    return ca_cert, cert, key


# ---------------------------------------------------------------------------------------------
# wsx-web with mail


@dataclass
class Wsx:
    base: str
    port: int
    log: pathlib.Path
    data: pathlib.Path

    def client(self, lang: str = "en") -> "Client":
        return Client(self, lang)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError as error:
            return f"({error})"


@dataclass
class Stack:
    """What one test started: its wsx-web servers and SMTP servers, and its temporary folder."""
    root: pathlib.Path
    processes: list = field(default_factory=list)
    controllers: list = field(default_factory=list)
    servers: list = field(default_factory=list)

    def smtp(self, recorder: Recorder | None = None, **options) -> tuple[Recorder, int]:
        """Starts an SMTP server with `recorder` (a fresh one by default); returns it and its port."""
        recorder = recorder or Recorder()
        controller = _start_smtp(recorder, **options)
        self.controllers.append(controller)
        return recorder, controller.port

    def wsx(self, *, smtp_url: str | None = None, flags: tuple[str, ...] = ()) -> Wsx:
        """wsx-web on a free port with `--base-url` naming it, mail sent to `smtp_url` when given."""
        binary = pathlib.Path(os.environ.get("WSX_BINARY") or REPO / ".build/debug/wsx-web")
        if not binary.is_file():
            pytest.fail(f"wsx-web binary not found at {binary}: build it (swift build) or set WSX_BINARY")
        name = f"wsx-{len(self.servers)}"
        data = self.root / name / "data"
        data.mkdir(parents=True)
        log_path = self.root / name / "wsx-web.log"
        mail = ["--smtp-url", smtp_url, "--mail-from", MAIL_FROM] if smtp_url else []
        for attempt in range(3):
            port = _free_port()
            base = f"http://127.0.0.1:{port}"
            with open(log_path, "ab") as log:
                process = subprocess.Popen(
                    [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port), "--base-url", base,
                     "--data-dir", str(data), "--bcrypt-cost", "4", "--signup-max-per-ip", "100000", "--signup", "open",
                     "--post-burst", "0", "--link-previews", "off", *mail, *flags],
                    cwd=self.root / name, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True,
                )
            self.processes.append(process)
            try:
                said = _wait_for_ready_line(process, STARTUP_TIMEOUT)
            except RuntimeError as error:
                _stop(process)
                if attempt == 2:
                    pytest.fail(f"{error}\n--- wsx-web log ---\n{Wsx(base, port, log_path).log_tail()}")
                continue
            assert said == base, (said, base)
            server = Wsx(base=base, port=port, log=log_path, data=data)
            self.servers.append(server)
            return server
        raise AssertionError("unreachable")

    def close(self) -> None:
        for process in reversed(self.processes):
            _stop(process)
        for controller in self.controllers:
            try:
                controller.stop()
            except Exception:  # already stopped, or never fully started
                pass
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def stack():
    """A factory for this test's servers; everything is stopped and removed after the test. The
    servers' logs are printed at the end (pytest shows them only when the test failed)."""
    made = Stack(root=pathlib.Path(tempfile.mkdtemp(prefix="wsx-mail-")))
    try:
        yield made
    finally:
        for server in made.servers:
            print(f"--- wsx-web log {server.base} (tail) ---\n{server.log_tail()}")
        for controller in made.controllers:
            if isinstance(controller.handler, Recorder):
                print(f"--- SMTP server on port {controller.port} ---\n{controller.handler.summary()}")
        made.close()


def smtp_url(port: int, *, host: str = "127.0.0.1", login: bool = False) -> str:
    credentials = f"{SMTP_USER}:{urllib.parse.quote(SMTP_PASSWORD, safe='')}@" if login else ""
    return f"smtp://{credentials}{host}:{port}"


# ---------------------------------------------------------------------------------------------
# A client that keeps cookies, like a browser without JavaScript


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def text(self) -> str:
        """The body as text, HTML entities decoded (so `&#39;` reads `'`)."""
        return html.unescape(self.body.decode(errors="replace"))

    @property
    def location(self) -> str:
        """The redirect's target as a path (an absolute Location loses its origin)."""
        return re.sub(r"^https?://[^/]+", "", self.headers.get("Location", ""))


class Client:
    def __init__(self, server: Wsx, lang: str = "en"):
        self.server = server
        self.lang = lang
        self.jar: dict[str, str] = {}

    def request(self, method: str, path: str, *, form: dict | None = None, body: str | None = None,
                headers: dict | None = None, cookies: bool = True) -> Reply:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=HTTP_TIMEOUT)
        try:
            sent = {"Accept-Language": self.lang, **(headers or {})}
            if cookies and self.jar:
                sent["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.jar.items())
            if form is not None:
                body = urllib.parse.urlencode(form)
                sent["Content-Type"] = "application/x-www-form-urlencoded"
            connection.request(method, path, body=body.encode() if body is not None else None, headers=sent)
            response = connection.getresponse()
            reply = Reply(response.status, response.headers, response.read())
        finally:
            connection.close()
        if cookies:
            for header in reply.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                value = rest.split(";", 1)[0]
                if re.search(r";\s*max-age=0\b", header, re.IGNORECASE) or not value:
                    self.jar.pop(name.strip(), None)
                else:
                    self.jar[name.strip()] = value
        return reply

    def get(self, path: str, **options) -> Reply:
        return self.request("GET", path, **options)

    def csrf_token(self, path: str) -> str:
        """Opens `path` and reads the token its forms carry."""
        page = self.get(path)
        assert page.status == 200, (path, page.status, page.text[:500])
        match = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.body.decode(errors="replace"))
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def submit(self, page: str, action: str, fields: dict) -> Reply:
        """Opens `page` and posts `fields` (and its `_csrf`) to `action`, as its form would."""
        return self.request("POST", action, form={"_csrf": self.csrf_token(page), **fields})

    # What a person does.

    def sign_up(self, nickname: str, email: str | None = None) -> str:
        """Gets an account with a new address (or `email`) and signs in; returns the address. The
        operator makes it (`wsx-web user create`), so its address counts as confirmed and no
        confirmation mail joins the mail these tests count; the form's own sign-up, and its
        confirmation mail, are `sign_up_on_the_form`'s."""
        email = email or f"{re.sub(r'[^a-z]', '', nickname.lower()) or 'user'}-{uuid.uuid4().hex[:10]}@example.com"
        binary = pathlib.Path(os.environ.get("WSX_BINARY") or REPO / ".build/debug/wsx-web")
        made = subprocess.run([str(binary), "user", "create", "--data-dir", str(self.server.data), "--email", email,
                               "--nickname", nickname, "--password", PASSWORD], capture_output=True, text=True, timeout=HTTP_TIMEOUT)
        assert made.returncode == 0, made.stderr
        reply = self.log_in(email, PASSWORD)
        assert reply.status == 303, (reply.status, reply.text[:800])
        return email

    def sign_up_on_the_form(self, nickname: str) -> str:
        """Signs up on /signup with a new address; returns the address."""
        email = f"{re.sub(r'[^a-z]', '', nickname.lower()) or 'user'}-{uuid.uuid4().hex[:10]}@example.com"
        reply = self.submit("/signup", "/signup", {"email": email, "nickname": nickname, "phone": "",
                                                   "password": PASSWORD, "password_confirm": PASSWORD})
        assert reply.status == 303, (reply.status, reply.text[:800])
        return email

    def log_in(self, email: str, password: str) -> Reply:
        return self.submit("/login", "/login", {"email": email, "password": password})

    def switch_language(self, lang: str) -> None:
        """Presses 한국어 or English in the top bar (saved on the account when signed in)."""
        reply = self.submit("/workspaces" if "wsx_session" in self.jar else "/login", "/lang",
                            {"lang": lang, "next": "/workspaces"})
        assert reply.status == 303, (reply.status, reply.text[:500])
        self.lang = lang  # and the browser's own preference follows

    def create_workspace(self, name: str) -> int:
        reply = self.submit("/workspaces", "/workspaces", {"name": name, "description": ""})
        assert reply.status == 303, (reply.status, reply.text[:800])
        match = re.fullmatch(r"/w/(\d+)", reply.location)
        assert match, reply.location
        return int(match.group(1))

    def invite(self, workspace: int, email: str) -> Reply:
        reply = self.submit(f"/w/{workspace}/members", f"/w/{workspace}/members", {"email": email})
        assert reply.status == 200, (reply.status, reply.text[:800])
        return reply

    def accept(self, token: str) -> int:
        """Opens the invitation (signed in as the invited address) and joins; returns the workspace."""
        reply = self.submit(f"/invite/{token}", f"/invite/{token}", {})
        assert reply.status == 303, (reply.status, reply.text[:800])
        match = re.fullmatch(r"/w/(\d+)", reply.location)
        assert match, reply.location
        return int(match.group(1))

    def channel_id(self, workspace: int) -> int:
        """The default channel, from the first channel link on the workspace's home."""
        page = self.get(f"/w/{workspace}")
        assert page.status == 200, page.status
        match = re.search(rf'href="/w/{workspace}/c/(\d+)"', page.body.decode(errors="replace"))
        assert match, f"no channel link on /w/{workspace}"
        return int(match.group(1))

    def member_id(self, workspace: int, email: str) -> int:
        """A member's user id, from their row on the members page."""
        page = self.get(f"/w/{workspace}/members").text
        for row in re.findall(r'<tr data-member="(\d+)">(.*?)</tr>', page, re.DOTALL):
            if email in row[1]:
                return int(row[0])
        pytest.fail(f"{email} is not on the members page of workspace {workspace}")

    def post_message(self, path: str, text: str, page: str) -> None:
        reply = self.submit(page, path, {"content": text})
        assert reply.status in (201, 303), (reply.status, reply.text[:800])


def links(text: str, server: Wsx, kind: str) -> list[str]:
    """The tokens of `BASE/<kind>/<token>` links in `text`."""
    return re.findall(re.escape(server.base) + rf"/{kind}/({TOKEN})(?![A-Za-z0-9_-])", text)


def notice_of(reply: Reply) -> str:
    """The page's status notice (`<p class="notice" role="status">`), as text."""
    match = re.search(r'<p class="notice" role="status">(.*?)</p>', reply.body.decode(errors="replace"), re.DOTALL)
    assert match, f"no notice on the page: {reply.text[:1500]}"
    return html.unescape(match.group(1)).strip()


def assert_well_formed(mail: Received, recipient: str) -> None:
    """multipart/alternative of text/plain and text/html (UTF-8, base64), with the headers a real
    mail has, from --mail-from to `recipient`."""
    message = mail.message
    assert mail.mail_from == SENDER, mail.mail_from
    assert [address.lower() for address in mail.rcpt_tos] == [recipient.lower()], mail.rcpt_tos
    assert message.get_content_type() == "multipart/alternative", message.get_content_type()
    parts = list(message.iter_parts())
    assert [part.get_content_type() for part in parts] == ["text/plain", "text/html"], [p.get_content_type() for p in parts]
    for part in parts:
        assert part.get_content_charset() == "utf-8", part["Content-Type"]
        assert str(part["Content-Transfer-Encoding"]).lower() == "base64", part["Content-Transfer-Encoding"]
    from_header = message["From"]
    assert from_header.addresses[0].addr_spec == SENDER and from_header.addresses[0].display_name == "wsx", str(from_header)
    assert message["To"].addresses[0].addr_spec.lower() == recipient.lower(), str(message["To"])
    assert message["Date"] is not None and message["Date"].datetime is not None, message["Date"]
    assert re.fullmatch(r"<[^<>@\s]+@[^<>@\s]+>", str(message["Message-ID"])), message["Message-ID"]
    assert str(message["MIME-Version"]) == "1.0", message["MIME-Version"]
    assert str(message["Auto-Submitted"]) == "auto-generated", message["Auto-Submitted"]
    # Every line within SMTP's limit, CRLF-terminated (no bare LF).
    lines = mail.data.split(b"\r\n")
    assert all(len(line) <= 998 for line in lines), max(len(line) for line in lines)
    assert b"\n" not in b"".join(lines), "a bare LF in the message"


# ---------------------------------------------------------------------------------------------
# Confirming a new account's address


def test_signing_up_mails_a_link_that_confirms_the_address(stack):
    recorder, port = stack.smtp()
    server = stack.wsx(smtp_url=smtp_url(port))
    founder = server.client("ko")
    founder.sign_up("민아")
    newcomer = server.client("ko")
    email = newcomer.sign_up_on_the_form("지수")
    (mail,) = recorder.wait_for(lambda received: email in received.rcpt_tos)
    assert_well_formed(mail, email)
    assert mail.subject == "wsx 이메일 주소 확인", mail.subject
    (token,) = set(links(mail.text(), server, "confirm"))
    profile = newcomer.get("/profile")
    assert 'id="email-unconfirmed"' in profile.text
    page = newcomer.get(f"/confirm/{token}")
    assert page.status == 200 and f"{email}이 본인의 주소임을 확인합니다." in page.text, page.text[-1500:]
    confirmed = newcomer.submit(f"/confirm/{token}", f"/confirm/{token}", {})
    assert confirmed.status == 303 and confirmed.location == "/workspaces", confirmed.status
    assert 'id="email-unconfirmed"' not in newcomer.get("/profile").text
    assert newcomer.get(f"/confirm/{token}").status == 404


# ---------------------------------------------------------------------------------------------
# "Forgot password?"


def test_a_password_reset_is_mailed_only_to_a_known_address_and_its_link_works(stack):
    recorder, port = stack.smtp()
    server = stack.wsx(smtp_url=smtp_url(port), flags=("--reset-max-per-ip", "100", "--mail-retry-delay", "0.3"))
    known = server.client().sign_up("Ada")
    unknown = f"nobody-{uuid.uuid4().hex[:8]}@example.com"

    visitor = server.client()
    login_page = visitor.get("/login")
    assert login_page.status == 200
    assert re.search(r'<a href="/reset">Forgot password\?</a>', login_page.text), login_page.text[-1500:]
    form = visitor.get("/reset")
    assert form.status == 200, form.status
    assert re.search(r'<form method="post" action="/reset"', form.text) and 'name="email"' in form.text, form.text[-1500:]
    assert 'name="_csrf"' in form.text

    to_known = visitor.submit("/reset", "/reset", {"email": known})
    to_unknown = visitor.submit("/reset", "/reset", {"email": unknown})
    assert (to_known.status, to_unknown.status) == (200, 200), (to_known.status, to_unknown.status)
    assert RESET_SENT in notice_of(to_known), notice_of(to_known)
    assert notice_of(to_known) == notice_of(to_unknown)
    for reply in (to_known, to_unknown):
        assert not re.search(rf"/reset/{TOKEN}", reply.text), "a reset link is shown on the page"

    (mail,) = recorder.wait_for()
    time.sleep(2)  # time enough for a second mail, had one been sent
    assert len(recorder.messages()) == 1, recorder.summary()
    assert_well_formed(mail, known)
    assert mail.subject == "Reset your wsx password", mail.subject
    (token,) = set(links(mail.text(), server, "reset"))
    assert links(mail.html(), server, "reset") == [token], mail.html()
    for reply in (to_known, to_unknown):
        assert token not in reply.text

    # The link, in another browser (as from a mail program): choose a new password, sign in.
    other = server.client()
    reset_page = other.get(f"/reset/{token}")
    assert reset_page.status == 200, (reset_page.status, reset_page.text[:800])
    new_password = "a brand new passphrase"
    done = other.submit(f"/reset/{token}", f"/reset/{token}",
                        {"password": new_password, "password_confirm": new_password})
    assert done.status == 303 and done.location.split("?")[0] == "/login", (done.status, done.location, done.text[:500])
    assert server.client().log_in(known, PASSWORD).status != 303, "the old password still works"
    signed_in = server.client().log_in(known, new_password)
    assert signed_in.status == 303, (signed_in.status, signed_in.text[:800])


def test_reset_requests_past_the_per_address_limit_get_429(stack):
    recorder, port = stack.smtp()
    server = stack.wsx(smtp_url=smtp_url(port), flags=("--reset-max-per-ip", "2"))
    visitor = server.client()
    for _ in range(2):
        reply = visitor.submit("/reset", "/reset", {"email": f"nobody-{uuid.uuid4().hex[:8]}@example.com"})
        assert reply.status == 200, (reply.status, reply.text[:500])
    refused = visitor.submit("/reset", "/reset", {"email": f"nobody-{uuid.uuid4().hex[:8]}@example.com"})
    assert refused.status == 429, (refused.status, refused.text[:800])
    retry_after = refused.headers.get("Retry-After", "")
    assert retry_after.isdigit() and int(retry_after) > 0, dict(refused.headers)
    assert RESET_THROTTLED in refused.text, refused.text[-2000:]
    # Another browser from the same address is the same client.
    again = server.client().submit("/reset", "/reset", {"email": f"nobody-{uuid.uuid4().hex[:8]}@example.com"})
    assert again.status == 429, again.status
    assert recorder.messages() == []


def test_without_smtp_a_reset_request_says_to_ask_the_operator(stack):
    server = stack.wsx()  # no --smtp-url
    known = server.client().sign_up("Ada")
    visitor = server.client()
    page = visitor.get("/reset")
    assert page.status == 200, page.status
    assert RESET_NO_MAIL in page.text, page.text[-2000:]
    reply = visitor.submit("/reset", "/reset", {"email": known})
    assert reply.status == 200, (reply.status, reply.text[:500])
    assert RESET_NO_MAIL in reply.text, reply.text[-2000:]
    assert RESET_SENT not in reply.text
    assert not re.search(rf"/reset/{TOKEN}", reply.text), "a reset link is shown on the page"


# ---------------------------------------------------------------------------------------------
# Invitations


def test_an_invitation_is_mailed_in_the_inviters_korean_and_its_link_joins(stack):
    recorder, port = stack.smtp()
    server = stack.wsx(smtp_url=smtp_url(port))
    owner = server.client()
    owner.sign_up("민아")
    owner.switch_language("ko")
    workspace_name = f"우리 팀 {uuid.uuid4().hex[:4]}"
    workspace = owner.create_workspace(workspace_name)
    invitee = f"newcomer-{uuid.uuid4().hex[:8]}@example.com"  # no account: the inviter's language

    page = owner.invite(workspace, invitee)
    # In Korean, the notice says it was mailed; no link on the page.
    assert notice_of(page) == f"{invitee}에게 초대 메일을 보냈습니다. 7일 동안 유효합니다.", notice_of(page)
    # No link box in the notice (the owner's list of pending invitations keeps it to copy).
    assert '<code id="invite-link">' not in page.text, "the invitation link is shown as if there were no mail"

    (mail,) = recorder.wait_for()
    assert_well_formed(mail, invitee)
    assert mail.subject == f"민아님이 wsx의 {workspace_name}에 초대했습니다", mail.subject
    raw_subject = mail.raw_header("Subject")
    assert re.fullmatch(r"(=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=\s*)+", raw_subject, re.IGNORECASE), raw_subject
    assert all(len(word) <= 75 for word in raw_subject.split()), raw_subject
    assert "민아" in mail.text() and workspace_name in mail.text(), mail.text()
    assert 'lang="ko"' in mail.html(), mail.html()
    (token,) = set(links(mail.text(), server, "invite"))
    assert links(mail.html(), server, "invite") == [token], mail.html()
    # The token is in the owner's list of pending invitations, to copy, not in the notice.
    assert token not in notice_of(page)

    # The link opens the invitation, which names the workspace; signing up through it joins.
    newcomer = server.client()
    invitation = newcomer.get(f"/invite/{token}")
    assert invitation.status == 200, invitation.status
    assert workspace_name in invitation.text and "민아" in invitation.text
    joined = newcomer.submit(f"/invite/{token}", f"/invite/{token}",
                             {"email": invitee, "nickname": "Newcomer", "phone": "",
                              "password": PASSWORD, "password_confirm": PASSWORD})
    assert joined.status == 303 and joined.location == f"/w/{workspace}", (joined.status, joined.location, joined.text[:800])
    assert newcomer.get(f"/w/{workspace}").status == 200


def test_an_invitation_to_an_account_is_in_the_language_it_saved(stack):
    recorder, port = stack.smtp()
    server = stack.wsx(smtp_url=smtp_url(port))
    member = server.client()
    member_email = member.sign_up("Bob")
    member.switch_language("en")  # saved on Bob's account
    owner = server.client("ko")
    owner.sign_up("민아")
    owner.switch_language("ko")
    workspace_name = f"우리 팀 {uuid.uuid4().hex[:4]}"
    workspace = owner.create_workspace(workspace_name)

    owner.invite(workspace, member_email)
    (mail,) = recorder.wait_for()
    assert_well_formed(mail, member_email)
    # The recipient's saved language wins over the inviter's.
    assert mail.subject == f"민아 invited you to {workspace_name} on wsx", \
        f"Bob saved English (POST /lang lang=en) but the invitation came as {mail.subject!r}"
    (token,) = set(links(mail.text(), server, "invite"))
    assert member.accept(token) == workspace


def test_an_invitation_refused_for_good_is_listed_on_the_members_page(stack):
    doomed = f"doomed-{uuid.uuid4().hex[:8]}@example.com"
    recorder, port = stack.smtp(Recorder(refuse=(doomed,)))
    server = stack.wsx(smtp_url=smtp_url(port), flags=("--mail-retry-delay", "0.3"))
    owner = server.client()
    owner.sign_up("Owner")
    workspace = owner.create_workspace(f"Team {uuid.uuid4().hex[:4]}")
    page = owner.invite(workspace, doomed)
    assert notice_of(page) == f"Invitation mailed to {doomed}. It works for 7 days.", notice_of(page)
    assert MAIL_FAILURES_HEADING not in page.text

    deadline = time.monotonic() + MAIL_WAIT
    while True:
        members = owner.get(f"/w/{workspace}/members")
        assert members.status == 200, members.status
        if MAIL_FAILURES_HEADING in members.text:
            break
        if time.monotonic() > deadline:
            pytest.fail(f"no undeliverable invitation listed within {MAIL_WAIT} s; SMTP server saw: {recorder.summary()}")
        time.sleep(0.3)
    match = re.search(r'<ul class="mail-failures" id="mail-failures">(.*?)</ul>', members.body.decode(), re.DOTALL)
    assert match, members.text[-2000:]
    listed = html.unescape(re.sub(r"<[^>]+>", " ", match.group(1)))
    # Why, in words the owner can act on; never the mail server's reply, host or port.
    assert f"Could not deliver to {doomed}: the mail server refused it." in listed, listed
    assert "550" not in listed and "127.0.0.1" not in listed and str(port) not in listed, listed
    # Permanent: not tried again (a retry would have come 0.3 s later).
    time.sleep(2)
    assert [address for address, _ in recorder.rcpt_answers] == [doomed], recorder.summary()
    assert recorder.messages() == []


def test_a_temporary_refusal_is_delivered_on_a_later_try(stack):
    # The first try gets 451 to RCPT, the second 451 to DATA, the third goes through.
    recorder, port = stack.smtp(Recorder(temporary_rcpt=1, temporary_data=1))
    server = stack.wsx(smtp_url=smtp_url(port), flags=("--mail-retry-delay", "0.3"))
    owner = server.client()
    owner.sign_up("Owner")
    workspace = owner.create_workspace(f"Team {uuid.uuid4().hex[:4]}")
    invitee = f"later-{uuid.uuid4().hex[:8]}@example.com"
    owner.invite(workspace, invitee)

    (mail,) = recorder.wait_for()
    assert_well_formed(mail, invitee)
    assert [answer[:3] for _, answer in recorder.rcpt_answers] == ["451", "250", "250"], recorder.summary()
    assert recorder.data_answers == ["451", "250"], recorder.summary()
    time.sleep(1.5)  # a sent mail is not sent again
    assert len(recorder.messages()) == 1, recorder.summary()
    assert MAIL_FAILURES_HEADING not in owner.get(f"/w/{workspace}/members").text


# ---------------------------------------------------------------------------------------------
# TLS and logins


def _request_reset(server: Wsx) -> str:
    """Signs someone up and asks for their password reset: one mail to send. Returns the address."""
    email = server.client().sign_up("Ada")
    reply = server.client().submit("/reset", "/reset", {"email": email})
    assert reply.status == 200, (reply.status, reply.text[:500])
    return email


def _tls_context(cert: pathlib.Path, key: pathlib.Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context


def test_starttls_and_login_against_a_private_ca(stack):
    ca, cert, key = _make_ca_and_certificate(stack.root / "certs")
    recorder = Recorder()
    recorder, port = stack.smtp(recorder, tls_context=_tls_context(cert, key), require_starttls=True,
                                auth_required=True, auth_require_tls=True, authenticator=recorder.authenticate)
    server = stack.wsx(smtp_url=smtp_url(port, host="localhost", login=True),
                       flags=("--smtp-ca-file", str(ca), "--mail-retry-delay", "0.3"))
    email = _request_reset(server)

    (mail,) = recorder.wait_for()
    assert_well_formed(mail, email)
    assert mail.tls and mail.authenticated, recorder.summary()
    # One login, over TLS, with the URL's credentials; nothing was said in the clear but EHLO.
    assert recorder.logins and all(call[1:] == (SMTP_USER, SMTP_PASSWORD, True) for call in recorder.logins), \
        recorder.summary()
    assert all(tls for _, tls in recorder.saw_auth), recorder.summary()
    assert recorder.ehlos[:2] == [False, True], recorder.summary()


def test_an_untrusted_certificate_gets_neither_the_mail_nor_the_password(stack):
    _, cert, key = _make_ca_and_certificate(stack.root / "certs")
    recorder = Recorder()
    recorder, port = stack.smtp(recorder, tls_context=_tls_context(cert, key), require_starttls=True,
                                auth_required=True, auth_require_tls=True, authenticator=recorder.authenticate)
    # No --smtp-ca-file: the private CA is not trusted, so the TLS handshake must fail.
    server = stack.wsx(smtp_url=smtp_url(port, host="localhost", login=True), flags=("--mail-retry-delay", "0.3"))
    _request_reset(server)

    deadline = time.monotonic() + MAIL_WAIT
    while len(recorder.ehlos) < 2 and time.monotonic() < deadline:  # two tries: it keeps retrying
        time.sleep(0.1)
    assert len(recorder.ehlos) >= 2, f"wsx did not try (again) within {MAIL_WAIT} s: {recorder.summary()}"
    assert not any(recorder.ehlos), f"TLS with an untrusted certificate went through: {recorder.summary()}"
    assert recorder.saw_auth == [] and recorder.logins == [], recorder.summary()
    assert recorder.messages() == []


def test_credentials_are_not_sent_to_a_server_without_starttls(stack):
    recorder = Recorder()
    # This server offers AUTH over a plain connection (and no STARTTLS), so a client that would
    # send a password in the clear can.
    recorder, port = stack.smtp(recorder, auth_require_tls=False, authenticator=recorder.authenticate)
    server = stack.wsx(smtp_url=smtp_url(port, login=True), flags=("--mail-retry-delay", "0.3"))
    _request_reset(server)

    # The first try at once, the second 0.3 s later, the third 1.2 s after that: the mail is
    # tried again, and each time nothing but EHLO is said.
    deadline = time.monotonic() + MAIL_WAIT
    while len(recorder.ehlos) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(recorder.ehlos) >= 2, f"wsx did not try (again) within {MAIL_WAIT} s: {recorder.summary()}"
    time.sleep(2)
    assert recorder.saw_auth == [] and recorder.logins == [], \
        f"credentials went over a plain connection: {recorder.summary()}"
    assert recorder.messages() == [], recorder.summary()
    assert recorder.rcpt_answers == [], f"wsx sent mail without the login it was given: {recorder.summary()}"
    log = server.log_tail(200)
    assert "STARTTLS" in log or "plain connection" in log, log


# ---------------------------------------------------------------------------------------------
# The digest


def _is_digest(mail: Received) -> bool:
    return mail.message["List-Unsubscribe"] is not None


def test_a_digest_of_missed_mentions_and_its_one_click_unsubscribe(stack):
    recorder, port = stack.smtp()
    server = stack.wsx(smtp_url=smtp_url(port), flags=("--digest-after", "2s", "--mail-retry-delay", "0.3"))
    owner = server.client()
    owner.sign_up("Ada")
    workspace = owner.create_workspace(f"Team {uuid.uuid4().hex[:4]}")
    bob = server.client()
    bob_email = bob.sign_up("Bob")
    owner.invite(workspace, bob_email)
    (invitation,) = recorder.wait_for(lambda mail: "/invite/" in mail.text())
    (token,) = set(links(invitation.text(), server, "invite"))
    assert bob.accept(token) == workspace
    channel = owner.channel_id(workspace)
    bob_id = owner.member_id(workspace, bob_email)

    # Bob has no page open (not online). A mention of him and a direct message to him.
    mention = f"mention-{uuid.uuid4().hex[:8]}"
    direct = f"direct-{uuid.uuid4().hex[:8]}"
    owner.post_message(f"/w/{workspace}/c/{channel}/messages", f"@Bob please look at {mention}",
                       page=f"/w/{workspace}/c/{channel}")
    owner.post_message(f"/w/{workspace}/dm/{bob_id}/messages", f"Bob, {direct}", page=f"/w/{workspace}/dm/{bob_id}")

    # Each unread item is told of once; both may share one digest (or, posted a moment apart
    # around a check, come in two).
    def told(word: str) -> list[Received]:
        return [mail for mail in recorder.messages(_is_digest) if word in mail.text()]

    deadline = time.monotonic() + MAIL_WAIT
    while not (told(mention) and told(direct)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert told(mention) and told(direct), f"no digest told of both within {MAIL_WAIT} s: {recorder.summary()}"
    time.sleep(2.5)  # five more digest checks (every 0.5 s): nothing is mailed twice
    digests = recorder.messages(_is_digest)
    assert len(told(mention)) == 1 and len(told(direct)) == 1, [(m.subject, m.text()) for m in digests]
    for mail in digests:
        assert_well_formed(mail, bob_email)
        count = sum(word in mail.text() for word in (mention, direct))
        what = "mention or direct message" if count == 1 else "mentions and direct messages"
        assert mail.subject == f"You have {count} unread {what} on wsx", mail.subject
        assert str(mail.message["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    digest = told(mention)[0]
    assert f"{server.base}/w/{workspace}/c/{channel}" in digest.text(), digest.text()
    assert f"{server.base}/w/{workspace}/c/{channel}" in digest.html(), digest.html()
    header = str(digest.message["List-Unsubscribe"])
    match = re.fullmatch(rf"<({re.escape(server.base)}(/unsubscribe/[^>\s]+))>", header)
    assert match, header
    unsubscribe_url, unsubscribe_path = match.groups()
    assert unsubscribe_url in digest.text(), digest.text()
    assert all(str(mail.message["List-Unsubscribe"]) == header for mail in digests)

    def digest_box() -> bool:
        profile = bob.get("/profile")
        assert profile.status == 200, profile.status
        form = re.search(r'<form[^>]*id="mail-form"[^>]*>(.*?)</form>', profile.body.decode(), re.DOTALL)
        assert form, "no #mail-form on /profile"
        box = re.search(r'<input[^>]*name="digest"[^>]*>', form.group(1))
        assert box and 'type="checkbox"' in box.group(0), form.group(1)
        return re.search(r"\schecked\b", box.group(0)) is not None

    assert digest_box(), "the digest box is not checked before unsubscribing"

    # GET shows a page that asks, with a button.
    asked = server.client().get(unsubscribe_path)
    assert asked.status == 200, asked.status
    assert re.search(rf'<form[^>]*action="{re.escape(unsubscribe_path)}"', asked.text), asked.text[-2000:]
    assert re.search(r"<button[^>]*type=\"submit\"", asked.text), asked.text[-2000:]
    assert digest_box(), "a GET of the unsubscribe link unsubscribed"

    # A mail program's one-click POST: no cookie, no CSRF token.
    one_click = server.client().request(
        "POST", unsubscribe_path, body="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"}, cookies=False)
    assert one_click.status == 303, (one_click.status, one_click.text[:800])
    assert not digest_box(), "the digest box is still checked after unsubscribing"

    # Another mention: no digest now.
    quiet = f"quiet-{uuid.uuid4().hex[:8]}"
    owner.post_message(f"/w/{workspace}/c/{channel}/messages", f"@Bob {quiet}", page=f"/w/{workspace}/c/{channel}")
    time.sleep(5)  # past digest-after (2 s) and several checks
    assert len(recorder.messages(_is_digest)) == len(digests), recorder.summary()

    # Back on from the profile: the next mention is mailed again.
    back_on = bob.submit("/profile", "/profile/mail", {"digest": "on"})
    assert back_on.status == 303, (back_on.status, back_on.text[:500])
    assert digest_box()
    again = f"again-{uuid.uuid4().hex[:8]}"
    owner.post_message(f"/w/{workspace}/c/{channel}/messages", f"@Bob {again}", page=f"/w/{workspace}/c/{channel}")
    recorder.wait_for(lambda mail: _is_digest(mail) and again in mail.text())
