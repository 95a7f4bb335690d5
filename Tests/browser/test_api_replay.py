"""The mobile apps' requests replayed against the real server (issue 35): a contract suite for
`/v1` as `../shared/APP-API.md` (the apps' contract) and `docs/api.md` (what wsx chose where it
was open) describe it.

Each test sends what WorkSpaceX (WSX), 빡공단 (PPK) or Sooda (SOO) send: the `SesacKey` header on
everything, the raw access token as `Authorization`, JSON bodies or WSX's own multipart form
(`workSpaceX.boundary.<hex>`, text parts typed `text/plain`), and checks every field and JSON
type the apps' Decodable structs read (§4): nullable fields present as `null`, ids opaque
strings, dates exactly `2024-02-07T09:55:13.303Z`, success only ever `200`, every refusal
`400 {"errorCode": "E.."}` (a fault of the server `500 {"errorCode": "E99"}`).

The main flow (sign-up, email check, login, refresh, me, workspace create/edit/invite/transfer/
exit, channels, chats with files, DMs, unreads, search, store, static files) runs twice: with
Korean data and with English data (`DATASETS`).

Three things stand outside the server, as in production, and are played by a small HTTP server
of the test's own (`FakeOutside`): iamport (PortOne V1's REST API, which the server asks about
the payments the apps make), Kakao's user-info API, and Apple's signing keys (JWKS).

Every E-code of §5, and where it is reached:
- E01 no or wrong `SesacKey` (`test_every_request_needs_the_key_and_unknown_routes_are_e97`);
  sign-up closed (`test_sign_up_closed_is_e01`, on a second server with `--signup invite`).
- E02 no, garbage, revoked or refresh token as `Authorization` (`test_sign_up_email_check_login_refresh_and_me`).
- E03 wrong password, unknown address, unknown or stranger's user id, invitee without an account,
  a Kakao or Apple token that is none.
- E05 / E06 an access / refresh token past its time (`test_tokens_expire_e05_then_e06`, on the
  second server with `--api-access-ttl 2s --api-refresh-ttl 4s`); E06 also for a garbage one.
- E11 bad address, empty names, bad nickname, not a picture, empty keyword, a date that is none,
  an empty post, six files, the default channel (exit, delete, transfer), transfer to oneself,
  no `opponent_id`, no `imp_uid`, a body that is not JSON.
- E12 taken address (email check, join, Kakao), duplicate workspace and channel names, edits that
  change nothing, inviting a member.
- E13 a workspace, channel, room, user id or file the caller is not in or that does not exist.
- E14 a member editing, deleting, inviting or transferring.
- E15 the workspace owner, or a channel owner, leaving; a channel owner leaving the channel.
- E21 not enough coins (`test_not_enough_coins_is_e21`, on the second server).
- E81 / E82 a payment iamport does not know / reused, another price, unpaid, another merchant id.
- E97 an unknown path, a method a known path does not take.
- E98 too many failed sign-ins (`test_too_many_failed_sign_ins_is_e98`, on the second server
  with `--login-max-failures 2`).
- E99 iamport answering garbage (`test_coin_store_lists_packs_and_validates_payments`: status 500).

Not covered, on purpose: Gen A's routes (§11: integer ids, `/leave`, `channels/{name}`), which wsx
does not serve, and `GET …/members/{uid}` (§3.7, unconfirmed by any client found).

Run: WSX_BINARY=.build/debug/wsx-web .venv/bin/python -m pytest -q Tests/browser/test_api_replay.py
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import email.message
import html
import http.cookiejar
import json
import pathlib
import re
import secrets
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from conftest import STARTUP_TIMEOUT, _stop, _wait_for_ready_line, confirm_address, wsx_binary

KEY = "replay-test-key"
PASSWORD = "Replay-pass-1!"
USER_AGENT = "WorkSpaceX/1.0 (iPhone; iOS 17.5; Scale/3.00)"
SIGNUP_COINS = 100
WORKSPACE_PRICE = 10

PORTONE_KEY, PORTONE_SECRET = "imp-key-replay", "imp-secret-replay"
APPLE_CLIENT_ID = "com.littletale.WorkSpaceX"
APPLE_KID = "replay-apple-key"

# The second server: tokens that expire within the test, sign-up closed, workspaces too dear.
STRICT_ACCESS_TTL, STRICT_REFRESH_TTL = 2, 4  # seconds
STRICT_SIGNUP_COINS, STRICT_WORKSPACE_PRICE = 10, 11

DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
STATIC_PATH = re.compile(r"^/static/(profiles|workspaces|channels|channelChats|dmChats)/[^/]+\.[a-z0-9]+$")
KST = datetime.timezone(datetime.timedelta(hours=9))

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def png(width: int = 8, height: int = 8, rgb: tuple[int, int, int] = (0x2A, 0x7A, 0xE2)) -> bytes:
    """A real PNG (the server types files by their bytes and reads pictures' sizes)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


PNG = png()


# ---------------------------------------------------------------------------------------------
# The data sets: every flow runs once in Korean and once in English


@dataclasses.dataclass(frozen=True)
class DataSet:
    key: str
    accept_language: str
    default_channel: str  # the first channel's name, in the app's language (docs/api.md)
    mailbox: str  # the start of this data set's addresses
    owner: str
    member: str
    outsider: str
    workspace: str
    workspace_description: str
    workspace_renamed: str
    channel: str
    channel_description: str
    side_channel: str
    side_channel_renamed: str
    chat_channel: str
    unread_channel: str
    chat: str
    reply: str
    dm: str
    document: str  # an attachment's file name
    picture: str
    channel_keyword: str  # part of `channel`, in another letter case where the script has one
    member_keyword: str  # part of `member`

    def email(self, who: str) -> str:
        return f"{self.mailbox}.{who}-{uuid.uuid4().hex[:8]}@example.com"


KOREAN = DataSet(
    key="ko", accept_language="ko-KR,ko;q=0.9", default_channel="일반", mailbox="지수",
    owner="김지수", member="박민준", outsider="이서연",
    workspace="개발팀", workspace_description="우리 팀이 일하는 곳", workspace_renamed="개발팀 새 이름",
    channel="일반 공지", channel_description="공지를 올리는 곳", side_channel="잡담", side_channel_renamed="자유 잡담",
    chat_channel="대화방", unread_channel="안 읽은 글",
    chat="안녕하세요 👋", reply="반갑습니다! 회의는 3시예요.", dm="잘 지내요? 🙂",
    document="보고서.pdf", picture="화면 캡처.png", channel_keyword="공지", member_keyword="민준",
)
ENGLISH = DataSet(
    key="en", accept_language="en-US,en;q=0.9", default_channel="general", mailbox="jisoo",
    owner="Jisoo Kim", member="Minjun Park", outsider="Seoyeon Lee",
    workspace="Dev team", workspace_description="Where the team works", workspace_renamed="Dev team renamed",
    channel="general news", channel_description="Announcements go here", side_channel="random", side_channel_renamed="random chat",
    chat_channel="chatter", unread_channel="unread things",
    chat="Hello there", reply="Nice to meet you! The meeting is at 3.", dm="How are you doing?",
    document="report.pdf", picture="screen shot.png", channel_keyword="NEWS", member_keyword="minjun",
)
DATASETS = [KOREAN, ENGLISH]


# ---------------------------------------------------------------------------------------------
# Outside the server: iamport, Kakao and Apple


class FakeOutside:
    """iamport's REST API (PortOne V1: `POST /users/getToken`, `GET /payments/{imp_uid}`), Kakao's
    user-info API (`GET /v2/user/me`) and Apple's keys (`GET /auth/keys`), answering what the test
    put in them: the payments the apps made at the gateway, the Kakao people, Apple's key."""

    PORTONE_TOKEN = "portone-access-token-" + secrets.token_hex(8)

    def __init__(self):
        self.payments: dict[str, dict] = {}
        self.broken: set[str] = set()  # imp_uids iamport answers garbage about
        self.kakao: dict[str, dict] = {}
        self.apple_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = RSAAlgorithm.to_jwk(self.apple_key.public_key(), as_dict=True)
        jwk.update(kid=APPLE_KID, alg="RS256", use="sig")
        self.jwks = {"keys": [jwk]}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def pay(self, merchant_uid: str, amount: int, status: str = "paid", currency: str = "KRW") -> str:
        """What an app's payment at the gateway leaves there; returns its `imp_uid`."""
        imp_uid = "imp_" + secrets.token_hex(6)
        self.payments[imp_uid] = {"imp_uid": imp_uid, "merchant_uid": merchant_uid, "amount": amount, "currency": currency,
                                  "status": status, "fail_reason": "카드 한도 초과" if status == "failed" else None,
                                  "pay_method": "card", "pg_provider": "html5_inicis"}
        return imp_uid

    def kakao_person(self, nickname: str, email: str | None) -> str:
        """A Kakao account; returns the OAuth token the app got from the Kakao SDK."""
        token = "kakao-" + secrets.token_urlsafe(16)
        account: dict[str, Any] = {"profile": {"nickname": nickname}}
        if email:
            account.update(email=email, has_email=True, is_email_valid=True, is_email_verified=True)
        self.kakao[token] = {"id": secrets.randbelow(10**10) + 10**9, "connected_at": "2024-06-20T01:02:03Z",
                             "kakao_account": account}
        return token

    def apple_token(self, subject: str, email: str | None, *, audience: str = APPLE_CLIENT_ID, lifetime: int = 600,
                    key: rsa.RSAPrivateKey | None = None) -> str:
        """An idToken as Sign in with Apple hands it to the app."""
        now = int(time.time())
        claims: dict[str, Any] = {"iss": "https://appleid.apple.com", "aud": audience, "sub": subject, "iat": now,
                                  "exp": now + lifetime}
        if email:
            claims.update(email=email, email_verified="true")
        return jwt.encode(claims, key or self.apple_key, algorithm="RS256", headers={"kid": APPLE_KID})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outside = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status: int, body: Any, content_type: str = "application/json") -> None:
                data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if self.path != "/users/getToken":
                    return self.answer(404, {"code": -1, "message": "not found", "response": None})
                try:
                    credentials = json.loads(body or b"{}")
                except ValueError:
                    credentials = dict(urllib.parse.parse_qsl(body.decode()))
                if credentials.get("imp_key") != PORTONE_KEY or credentials.get("imp_secret") != PORTONE_SECRET:
                    return self.answer(401, {"code": -1, "message": "imp_key, imp_secret 인증에 실패했습니다.", "response": None})
                now = int(time.time())
                self.answer(200, {"code": 0, "message": None,
                                  "response": {"access_token": outside.PORTONE_TOKEN, "now": now, "expired_at": now + 1800}})

            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                if path.startswith("/payments/"):
                    if self.headers.get("Authorization") != outside.PORTONE_TOKEN:
                        return self.answer(401, {"code": -1, "message": "Unauthorized", "response": None})
                    imp_uid = urllib.parse.unquote(path[len("/payments/"):])
                    if imp_uid in outside.broken:
                        return self.answer(502, b"<html><body>502 Bad Gateway</body></html>", "text/html")
                    if imp_uid in outside.payments:
                        return self.answer(200, {"code": 0, "message": None, "response": outside.payments[imp_uid]})
                    return self.answer(404, {"code": -1, "message": "존재하지 않는 결제정보입니다.", "response": None})
                if path == "/v2/user/me":
                    token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
                    if token in outside.kakao:
                        return self.answer(200, outside.kakao[token])
                    return self.answer(401, {"msg": "this access token does not exist", "code": -401})
                if path == "/auth/keys":
                    return self.answer(200, outside.jwks)
                self.answer(404, {"error": "not found"})

        return Handler


# ---------------------------------------------------------------------------------------------
# The servers


@dataclasses.dataclass
class Server:
    base: str
    data: pathlib.Path
    log: pathlib.Path


@contextlib.contextmanager
def start_server(root: pathlib.Path, flags: list[str]) -> Iterator[Server]:
    """Starts wsx-web with `/v1` on and `flags`; yields the Server, stops it afterwards."""
    binary = wsx_binary()
    if not binary.is_file():
        pytest.fail(f"wsx-web binary not found at {binary}: build it or set WSX_BINARY")
    log_path = root / "wsx-web.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(binary), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(root / "data"),
             "--bcrypt-cost", "4", "--api-key", KEY, *flags],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        yield Server(_wait_for_ready_line(process, STARTUP_TIMEOUT), root / "data", log_path)
    finally:
        _stop(process)


@pytest.fixture(scope="module")
def outside():
    fake = FakeOutside()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def api(tmp_path_factory, outside) -> Server:
    """The server the apps talk to: sign-up open, coins sold through iamport (the fake), Kakao
    and Apple sign-in on, the per-account limits lifted (the suite posts and invites quickly)."""
    with start_server(tmp_path_factory.mktemp("replay"), [
        "--signup", "open", "--signup-coins", str(SIGNUP_COINS), "--workspace-price", str(WORKSPACE_PRICE),
        "--payments", "portone", "--portone-api", outside.base, "--portone-key", PORTONE_KEY, "--portone-secret", PORTONE_SECRET,
        "--kakao-api", outside.base, "--apple-client-id", APPLE_CLIENT_ID, "--apple-jwks", outside.base + "/auth/keys",
        "--post-burst", "0", "--upload-bytes-per-minute", "0", "--searches-per-minute", "0",
        "--invitations-per-hour", "0", "--signup-max-per-ip", "100000",
        # Everything the server can log, so `test_no_secret_reaches_the_log` reads all of it.
        "--log-level", "trace",
    ]) as server:
        yield server


@pytest.fixture(scope="module")
def strict(tmp_path_factory, outside) -> tuple[Server, "Phone"]:
    """A second server where the refusals that need time or closed doors happen: tokens that expire
    in seconds, sign-up by invitation, workspaces dearer than the coins one starts with, two failed
    sign-ins allowed. Yields it with its first account (the only one sign-up lets in)."""
    with start_server(tmp_path_factory.mktemp("replay-strict"), [
            "--signup", "invite", "--api-access-ttl", f"{STRICT_ACCESS_TTL}s", "--api-refresh-ttl", f"{STRICT_REFRESH_TTL}s",
            "--signup-coins", str(STRICT_SIGNUP_COINS), "--workspace-price", str(STRICT_WORKSPACE_PRICE),
            "--login-max-failures", "2", "--login-failure-window", "60", "--kakao-api", outside.base]) as server:
        first = join(server, KOREAN, KOREAN.owner, "first")
        yield server, first


# ---------------------------------------------------------------------------------------------
# HTTP as the apps speak it


@dataclasses.dataclass
class Reply:
    status: int
    headers: email.message.Message
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def __str__(self) -> str:
        return f"{self.status} {self.body[:400].decode(errors='replace')}"


def encode_path(path: str) -> str:
    """Percent-encodes what a URL cannot carry raw (Korean file names, spaces), as iOS's URL does."""
    return urllib.parse.quote(path, safe="/?&=%+:;,@!$'()*~")


def send(base: str, method: str, path: str, headers: dict[str, str], body: bytes | None = None) -> Reply:
    call = urllib.request.Request(base + encode_path(path), data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(call, timeout=30) as response:
            return Reply(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.headers, error.read())


def query(**params: str) -> str:
    """`?name=value&…`, each value percent-encoded as the apps' libraries do (a `+` as `%2B`)."""
    return "?" + "&".join(f"{name}={urllib.parse.quote(value, safe='')}" for name, value in params.items())


def multipart(fields: list[tuple[str, str]], files: list[tuple[str, str, bytes, str]]) -> tuple[bytes, str]:
    """WSX's own multipart builder: `workSpaceX.boundary.<16 hex>`, text parts typed `text/plain`,
    file parts `(field, filename, bytes, MIME type)` with their UTF-8 file name."""
    boundary = "workSpaceX.boundary." + secrets.token_hex(8)
    body = b""
    for name, value in fields:
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n'
                 f"Content-Type: text/plain\r\n\r\n").encode() + value.encode() + b"\r\n"
    for field, filename, data, mime in files:
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
                 f"Content-Type: {mime}\r\n\r\n").encode() + data + b"\r\n"
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


MINE = object()  # "the phone's own access token"


# Everything secret the suite sent (the key, tokens, passwords, Kakao's and Apple's tokens): none
# of it may reach the server's log (`test_no_secret_reaches_the_log`).
SENT_SECRETS: set[str] = {KEY}
SECRET_FIELDS = ("password", "oauthToken", "idToken", "deviceToken")


class Phone:
    """One app on one phone: the key, the phone's language, and once signed in its tokens."""

    def __init__(self, server: Server, data: DataSet):
        self.server, self.data = server, data
        self.access: str | None = None
        self.refresh: str | None = None
        self.user: dict = {}
        self.email = ""

    @property
    def id(self) -> str:
        return self.user["user_id"]

    def signed_in(self, user_with_token: dict) -> "Phone":
        """Keeps the tokens of a join or login answer (both slots right, as Apple login does)."""
        self.user = user_with_token
        self.email = user_with_token["email"]
        self.access, self.refresh = user_with_token["token"]["accessToken"], user_with_token["token"]["refreshToken"]
        SENT_SECRETS.update((self.access, self.refresh))
        return self

    def request(self, method: str, path: str, *, json_body: Any = None, body: bytes | None = None,
                content_type: str | None = None, headers: dict[str, str] | None = None, key: str | None = KEY,
                token: Any = MINE) -> Reply:
        sent = {"Accept": "application/json", "Accept-Language": self.data.accept_language, "User-Agent": USER_AGENT}
        if key is not None:
            sent["SesacKey"] = key
        token = self.access if token is MINE else token
        if token is not None:
            sent["Authorization"] = token
        if isinstance(token, str) and len(token) >= 16:
            SENT_SECRETS.add(token)
        if len((headers or {}).get("RefreshToken", "")) >= 16:
            SENT_SECRETS.add(headers["RefreshToken"])
        if isinstance(json_body, dict):
            SENT_SECRETS.update(str(json_body[field]) for field in SECRET_FIELDS if len(str(json_body.get(field) or "")) >= 8)
        if json_body is not None:
            body, content_type = json.dumps(json_body, ensure_ascii=False).encode(), "application/json"
        if content_type:
            sent["Content-Type"] = content_type
        sent.update(headers or {})
        return send(self.server.base, method, path, sent, body)

    def get(self, path: str, **options) -> Reply:
        return self.request("GET", path, **options)

    def post(self, path: str, json_body: Any = None, **options) -> Reply:
        return self.request("POST", path, json_body=json_body, **options)

    def put(self, path: str, json_body: Any = None, **options) -> Reply:
        return self.request("PUT", path, json_body=json_body, **options)

    def delete(self, path: str, **options) -> Reply:
        return self.request("DELETE", path, **options)

    def form(self, method: str, path: str, fields: list[tuple[str, str]],
             files: list[tuple[str, str, bytes, str]] = ()) -> Reply:
        """A multipart request as WSX builds it."""
        body, content_type = multipart(fields, list(files))
        return self.request(method, path, body=body, content_type=content_type)

    def fetch(self, static_path: str, **options) -> Reply:
        """A server-returned `/static/...` path as the apps load it: `GET /v1{path}`."""
        return self.get("/v1" + static_path, **options)


def join(server: Server, data: DataSet, nickname: str, who: str) -> Phone:
    """Signs a new person up from the app (`POST /v1/users/join`); returns their signed-in phone."""
    phone = Phone(server, data)
    reply = phone.post("/v1/users/join", {"email": data.email(who), "password": PASSWORD, "nickname": nickname,
                                          "phone": "010-1234-5678", "deviceToken": secrets.token_hex(32)})
    return phone.signed_in(ok(reply, "join"))


def sign_in(server: Server, data: DataSet, email_address: str) -> Phone:
    """Signs in again from a new phone (`POST /v1/users/login`)."""
    phone = Phone(server, data)
    return phone.signed_in(ok(phone.post("/v1/users/login", {"email": email_address, "password": PASSWORD}), "login"))


# ---------------------------------------------------------------------------------------------
# What the apps accept


def ok(reply: Reply, what: str = "request", *, empty: bool = False) -> Any:
    """A success as every app takes it: status 200 exactly (never 201 or 204), JSON unless empty."""
    assert reply.status == 200, f"{what}: expected 200, got {reply}"
    if empty:
        return None
    assert (reply.headers.get("Content-Type") or "").startswith("application/json"), f"{what}: {reply.headers.get('Content-Type')}"
    return reply.json()


def refused(reply: Reply, code: str, what: str = "request") -> None:
    """A refusal as the apps decode it: 400 (500 for E99) and exactly `{"errorCode": code}`."""
    status = 500 if code == "E99" else 400
    assert reply.status == status and reply.body and reply.json() == {"errorCode": code}, \
        f"{what}: expected {status} {{'errorCode': '{code}'}}, got {reply}"
    assert (reply.headers.get("Content-Type") or "").startswith("application/json"), f"{what}: {reply.headers.get('Content-Type')}"


# Shapes: each field an app's Decodable reads, with the check of its JSON type.

Check = Callable[[Any, str], None]


def text(value: Any, where: str) -> None:
    assert isinstance(value, str) and value.strip(), f"{where}: expected a non-empty string, got {value!r}"


def string(value: Any, where: str) -> None:
    assert isinstance(value, str), f"{where}: expected a string (never null), got {value!r}"


def integer(value: Any, where: str) -> None:
    assert type(value) is int, f"{where}: expected an integer, got {value!r}"


def opaque_id(value: Any, where: str) -> None:
    assert isinstance(value, str) and value, f"{where}: expected an id string, got {value!r}"
    assert not value.isdigit(), f"{where}: {value!r} is a sequential number, not an opaque id"


def date(value: Any, where: str) -> None:
    assert isinstance(value, str) and DATE.match(value), f"{where}: {value!r} is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"


def static_path(value: Any, where: str) -> None:
    assert isinstance(value, str) and STATIC_PATH.match(value), f"{where}: {value!r} is not a /static/<bucket>/<name>.<ext> path"


def nullable(check: Check) -> Check:
    def checked(value: Any, where: str) -> None:
        if value is not None:
            check(value, where)
    return checked


MEMBER = {"user_id": opaque_id, "email": text, "nickname": text, "profileImage": nullable(static_path)}
USER_PUBLIC = MEMBER | {"phone": nullable(text), "provider": nullable(text), "createdAt": date}
MY_PROFILE = USER_PUBLIC | {"sesacCoin": integer}
USER_WITH_TOKEN = USER_PUBLIC | {"token": {"accessToken": text, "refreshToken": text}}
WORKSPACE = {"workspace_id": opaque_id, "name": text, "description": nullable(text), "coverImage": static_path,
             "owner_id": opaque_id, "createdAt": date}
CHANNEL = {"channel_id": opaque_id, "name": text, "description": nullable(text), "coverImage": nullable(static_path),
           "owner_id": opaque_id, "createdAt": date}
WORKSPACE_DETAIL = WORKSPACE | {"coverImage": nullable(static_path), "channels": [CHANNEL], "workspaceMembers": [MEMBER]}
CHANNEL_DETAIL = CHANNEL | {"channelMembers": [MEMBER]}
CHANNEL_CHAT = {"channel_id": opaque_id, "channelName": text, "chat_id": opaque_id, "content": string, "createdAt": date,
                "files": [static_path], "user": MEMBER}
DM_ROOM = {"room_id": opaque_id, "createdAt": date, "user": MEMBER}
DM_CHAT = {"dm_id": opaque_id, "room_id": opaque_id, "content": string, "createdAt": date, "files": [static_path], "user": MEMBER}
CHANNEL_UNREAD = {"channel_id": opaque_id, "name": text, "count": integer}
DM_UNREAD = {"room_id": opaque_id, "count": integer}
STORE_ITEM = {"item": text, "amount": text}
PAY_VALIDATION = {"billing_id": text, "merchant_uid": text, "buyer_id": opaque_id, "productName": text, "price": integer,
                  "sesacCoin": integer, "paidAt": date}
ACCESS_TOKEN = {"accessToken": text}


def check(value: Any, shape: Any, where: str = "answer") -> Any:
    """Asserts `value` decodes as `shape` (a dict of fields, a one-element list for arrays, or a
    check); every field must be present, `null` when it has nothing. Returns `value`."""
    if isinstance(shape, dict):
        assert isinstance(value, dict), f"{where}: expected an object, got {value!r}"
        for name, field in shape.items():
            assert name in value, f"{where}: `{name}` is missing (an app decodes it; nullable fields are written as null)"
            check(value[name], field, f"{where}.{name}")
    elif isinstance(shape, list):
        assert isinstance(value, list), f"{where}: expected an array, got {value!r}"
        for index, item in enumerate(value):
            check(item, shape[0], f"{where}[{index}]")
    else:
        shape(value, where)
    return value


# Dates


def moment(value: str) -> datetime.datetime:
    return datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z")


def recent(value: str, where: str = "createdAt") -> None:
    """A date of something made just now."""
    gap = abs((moment(value) - datetime.datetime.now(datetime.timezone.utc)).total_seconds())
    assert gap < 300, f"{where}: {value} is {gap:.0f} s from now"


def with_offset(value: str) -> str:
    """`…SSSZ` as PPK's Date extension writes it: `…SSS+0000`."""
    return value[:-1] + "+0000"


def zoneless_korean(when: datetime.datetime) -> str:
    """`yyyy-MM-dd HH:mm:ss` in Korean time, no zone, as Sooda writes cursors."""
    return when.astimezone(KST).strftime("%Y-%m-%d %H:%M:%S")


# ---------------------------------------------------------------------------------------------
# The web, where an invitation is accepted (the apps have no screen for it)


class WebBrowser:
    """A person on the web pages without scripts: cookies, and each form's CSRF token."""

    def __init__(self, server: Server):
        self.base = server.base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def open(self, path: str, fields: dict[str, str] | None = None) -> str:
        data = urllib.parse.urlencode(fields).encode() if fields is not None else None
        with self.opener.open(urllib.request.Request(self.base + encode_path(path), data=data), timeout=30) as response:
            assert response.status == 200, (path, response.status)
            return response.read().decode()

    @staticmethod
    def csrf(page: str) -> str:
        return re.search(r'name="_csrf" value="([^"]+)"', page).group(1)

    def sign_in(self, email_address: str) -> None:
        page = self.open("/login", {"_csrf": self.csrf(self.open("/login")), "email": email_address, "password": PASSWORD})
        assert 'action="/logout"' in page, "signed in on the web"

    def accept_invitation(self, workspace_name: str) -> None:
        """Finds the invitation on the workspaces page and presses Join."""
        page = self.open("/workspaces")
        found = re.search(r"<li data-invite=\"[^\"]*\"><strong>" + re.escape(html.escape(workspace_name, quote=False))
                          + r"</strong>.*?<a href=\"([^\"]+)\"", page)
        assert found, f"no invitation to {workspace_name!r} on the workspaces page"
        invitation = self.open(html.unescape(found.group(1)))
        action = re.search(r'action="([^"]+)" class="inline-form" id="accept-invite-form"', invitation).group(1)
        self.open(html.unescape(action), {"_csrf": self.csrf(invitation)})


def accept_on_web(phone: Phone, workspace_name: str) -> None:
    web = WebBrowser(phone.server)
    web.sign_in(phone.email)
    web.accept_invitation(workspace_name)


# ---------------------------------------------------------------------------------------------
# A team for each data set: owner, member, outsider, a workspace with a cover, a channel


@dataclasses.dataclass
class Team:
    data: DataSet
    server: Server
    owner: Phone
    member: Phone
    outsider: Phone  # signed up, in no workspace of the team's
    workspace: dict  # the answer of POST /v1/workspaces
    coins: tuple[int, int]  # the owner's sesacCoin before and after creating it
    invited: dict  # the answer of POST …/members
    channel: dict  # the answer of POST …/channels (multipart, with a cover)

    @property
    def wid(self) -> str:
        return self.workspace["workspace_id"]

    def path(self, rest: str = "") -> str:
        return f"/v1/workspaces/{self.wid}{rest}"

    def channel_path(self, channel: dict | str, rest: str = "") -> str:
        cid = channel if isinstance(channel, str) else channel["channel_id"]
        return self.path(f"/channels/{cid}{rest}")

    def default_channel(self, phone: Phone | None = None) -> dict:
        channels = ok((phone or self.owner).get(self.path("/channels")), "channels")
        return next(channel for channel in channels if channel["name"] == self.data.default_channel)


@pytest.fixture(scope="module", params=DATASETS, ids=[data.key for data in DATASETS])
def team(request, api) -> Team:
    data: DataSet = request.param
    owner = join(api, data, data.owner, "owner")
    member = join(api, data, data.member, "member")
    outsider = join(api, data, data.outsider, "outsider")
    before = ok(owner.get("/v1/users/me"), "me")["sesacCoin"]
    workspace = ok(owner.form("POST", "/v1/workspaces", [("name", data.workspace), ("description", data.workspace_description)],
                              [("image", f"WorkSpaceX_{uuid.uuid4()}.png", PNG, "image/png")]), "create workspace")
    after = ok(owner.get("/v1/users/me"), "me")["sesacCoin"]
    invited = ok(owner.post(f"/v1/workspaces/{workspace['workspace_id']}/members", {"email": member.email}), "invite")
    # The invitation waits on the member's workspaces page once their address counts as
    # confirmed (no mail here: the operator vouches for it), and they join there.
    confirm_address(api.data, member.email)
    accept_on_web(member, data.workspace)
    channel = ok(owner.form("POST", f"/v1/workspaces/{workspace['workspace_id']}/channels",
                            [("name", data.channel), ("description", data.channel_description)],
                            [("image", f"WorkSpaceX_{uuid.uuid4()}.png", png(rgb=(0xF0, 0x90, 0x20)), "image/png")]),
                 "create channel")
    return Team(data, api, owner, member, outsider, workspace, (before, after), invited, channel)


@pytest.fixture(scope="module", params=DATASETS, ids=[data.key for data in DATASETS])
def data(request) -> DataSet:
    return request.param


# ---------------------------------------------------------------------------------------------
# The key, the envelope, unknown routes


@pytest.mark.timeout(60)
def test_every_request_needs_the_key_and_unknown_routes_are_e97(api):
    """E01 without the key or with a wrong one, before anything else (an unknown path and sign-in
    included); E97 for paths and methods `/v1` does not know, never an HTML 404 or 405."""
    phone = Phone(api, KOREAN)
    for key in (None, "", "wrong-key"):
        refused(phone.get("/v1/users/me", key=key), "E01", f"me with key {key!r}")
        refused(phone.post("/v1/users/login", {"email": "a@example.com", "password": PASSWORD}, key=key), "E01", "login")
        refused(phone.get("/v1/no/such/route", key=key), "E01", "unknown route without the key")
    refused(phone.get("/v1/no/such/route"), "E97", "unknown path")
    refused(phone.get("/v1"), "E97", "/v1 itself")
    refused(phone.get("/v1/workspaces/000000000000000000000000/leave"), "E97", "Gen A's leave route")
    refused(phone.delete("/v1/users/me"), "E97", "a method users/me does not take")
    refused(phone.request("PATCH", "/v1/workspaces"), "E97", "PATCH")
    refused(phone.post("/v1/users/login", body=b"{not json", content_type="application/json"), "E11", "a body that is not JSON")


# ---------------------------------------------------------------------------------------------
# Accounts (§3.1, §2)


@pytest.mark.timeout(120)
def test_sign_up_email_check_login_refresh_and_me(api, data):
    """The sign-up screen's duplicate check, join (then auto-login), email login, the token
    refresh the apps run on E05, and the settings tab's profile."""
    phone = Phone(api, data)
    address = data.email("signup")

    ok(phone.post("/v1/users/validation/email", {"email": address}), "email check", empty=True)
    refused(phone.post("/v1/users/validation/email", {"email": "not-an-address"}), "E11", "email check, bad address")
    refused(phone.post("/v1/users/validation/email", {}), "E11", "email check, no address")

    device = secrets.token_hex(32)
    joined = check(ok(phone.post("/v1/users/join", {"email": address, "password": PASSWORD, "nickname": data.owner,
                                                    "phone": "010-1234-5678", "deviceToken": device}), "join"),
                   USER_WITH_TOKEN, "join")
    assert (joined["email"], joined["nickname"], joined["phone"]) == (address, data.owner, "010-1234-5678")
    assert joined["profileImage"] is None and joined["provider"] is None
    recent(joined["createdAt"])
    assert joined["token"]["accessToken"] != joined["token"]["refreshToken"]
    phone.signed_in(joined)
    assert ok(phone.get("/v1/workspaces"), "workspaces") == [], "a new account has no workspace (the app offers to create one)"

    refused(phone.post("/v1/users/validation/email", {"email": address}), "E12", "email check, taken")
    refused(phone.post("/v1/users/validation/email", {"email": address.upper()}), "E12", "email check, taken in capitals")
    refused(Phone(api, data).post("/v1/users/join", {"email": address.upper(), "password": PASSWORD, "nickname": data.member,
                                                      "phone": "010-1234-5678"}), "E12", "join with a taken address")
    refused(Phone(api, data).post("/v1/users/join", {"email": "not-an-address", "password": PASSWORD, "nickname": data.member,
                                                      "phone": "010-1234-5678"}), "E11", "join with a bad address")
    refused(Phone(api, data).post("/v1/users/join", {"email": data.email("nameless"), "password": PASSWORD, "nickname": "",
                                                      "phone": ""}), "E11", "join without a nickname")

    # Email login: the same account, a new sign-in of its own.
    again = Phone(api, data)
    login = check(ok(again.post("/v1/users/login", {"email": address, "password": PASSWORD, "deviceToken": device}), "login"),
                  USER_WITH_TOKEN, "login")
    assert login["user_id"] == joined["user_id"] and login["nickname"] == data.owner
    assert login["token"]["accessToken"] not in (joined["token"]["accessToken"], joined["token"]["refreshToken"])
    again.signed_in(login)
    refused(Phone(api, data).post("/v1/users/login", {"email": address, "password": "Wrong-pass-1!"}), "E03", "wrong password")
    refused(Phone(api, data).post("/v1/users/login", {"email": data.email("nobody"), "password": PASSWORD}), "E03", "unknown address")

    me = check(ok(again.get("/v1/users/me"), "me"), MY_PROFILE, "me")
    assert me["user_id"] == joined["user_id"] and me["sesacCoin"] == SIGNUP_COINS
    assert me["email"] == address and me["phone"] == "010-1234-5678"
    assert login["createdAt"] == me["createdAt"]
    ok(again.get("/v1/users/me", token="Bearer " + again.access), "me with Bearer")

    # Refresh, as WSX and PPK send it: the old access token and the refresh token.
    refreshed = ok(again.get("/v1/auth/refresh", headers={"RefreshToken": again.refresh}), "refresh")
    check(refreshed, ACCESS_TOKEN, "refresh")
    assert set(refreshed) == {"accessToken"}, "the refresh token is not rotated: only a new access token"
    old, again.access = again.access, refreshed["accessToken"]
    assert again.access != old
    ok(again.get("/v1/users/me"), "me with the refreshed token")
    refused(again.get("/v1/users/me", token=old), "E02", "the replaced access token")
    second = ok(again.get("/v1/auth/refresh", headers={"RefreshToken": again.refresh}), "refresh again with the same token")
    again.access = second["accessToken"]
    ok(again.get("/v1/users/me"), "me after the second refresh")
    # WSX, having mixed its slots, sends the refresh token in both headers: the refresh token decides.
    mixed = ok(again.get("/v1/auth/refresh", token=again.refresh, headers={"RefreshToken": again.refresh}), "mixed slots")
    again.access = mixed["accessToken"]
    ok(again.get("/v1/users/me"), "me after the mixed refresh")

    # WSX stores the refresh token in its access slot: it gets E02 and signs in again.
    refused(again.get("/v1/users/me", token=again.refresh), "E02", "a refresh token as Authorization")
    refused(again.get("/v1/users/me", token=None), "E02", "no Authorization")
    refused(again.get("/v1/users/me", token="garbage-token"), "E02", "a garbage token")
    refused(again.get("/v1/auth/refresh", headers={"RefreshToken": "garbage-refresh"}), "E06", "a garbage refresh token")
    refused(again.get("/v1/auth/refresh"), "E06", "no refresh token")
    ok(phone.get("/v1/users/me"), "the join's own sign-in still works")


@pytest.mark.timeout(60)
def test_profile_edit_and_other_people(api, data):
    """Settings: nickname and phone (WSX always sends both); another person's profile is a
    teammate's or the caller's, anyone else is E03."""
    phone = join(api, data, data.owner, "profile")
    stranger = join(api, data, data.outsider, "stranger")
    renamed = check(ok(phone.put("/v1/users/me", {"nickname": data.member, "phone": "010-9876-5432"}), "edit me"),
                    USER_PUBLIC, "edit me")
    assert (renamed["user_id"], renamed["nickname"], renamed["phone"]) == (phone.id, data.member, "010-9876-5432")
    cleared = check(ok(phone.put("/v1/users/me", {"nickname": data.member, "phone": ""}), "clear phone"), USER_PUBLIC, "clear phone")
    assert cleared["phone"] is None, "no phone is null"
    assert ok(phone.get("/v1/users/me"), "me")["nickname"] == data.member
    # The contract lists E13 here (WSX labels it "bad request"); docs/api.md chose E11, the
    # code of every other invalid field.
    refused(phone.put("/v1/users/me", {"nickname": "", "phone": ""}), "E11", "an empty nickname")

    own = check(ok(phone.get(f"/v1/users/{phone.id}"), "own profile"), MEMBER, "own profile")
    assert own["nickname"] == data.member and own["email"] == phone.email
    refused(phone.get(f"/v1/users/{stranger.id}"), "E03", "a stranger's profile")
    refused(phone.get("/v1/users/000000000000000000000000"), "E03", "an id of no one")


@pytest.mark.timeout(60)
def test_profile_picture(api, data):
    """`PUT /v1/users/me/image` (multipart `image`, WSX's `WorkSpace_<UUID>.jpeg`): UserPublic
    with `profileImage` a `/static/profiles/…` path the app then loads (§3.1, §8)."""
    phone = join(api, data, data.owner, "picture")
    answer = ok(phone.form("PUT", "/v1/users/me/image", [], [("image", f"WorkSpace_{uuid.uuid4()}.png", PNG, "image/png")]),
                "profile picture")
    check(answer, USER_PUBLIC, "profile picture")
    assert answer["profileImage"] and answer["profileImage"].startswith("/static/profiles/")
    picture = phone.fetch(answer["profileImage"])
    assert picture.status == 200 and picture.body == PNG
    assert ok(phone.get("/v1/users/me"), "me")["profileImage"] == answer["profileImage"]


@pytest.mark.timeout(60)
def test_kakao_and_apple_sign_in(api, outside, data):
    """Kakao (`oauthToken`, believed when Kakao's user-info API knows it) and Apple (`idToken`, an
    RS256 JWT of Apple's keys for the app): the first sign-in makes the account, later ones find it."""
    phone = Phone(api, data)
    kakao_email = data.email("kakao")
    token = outside.kakao_person(data.member, kakao_email)
    first = check(ok(phone.post("/v1/users/login/kakao", {"oauthToken": token, "deviceToken": secrets.token_hex(32)}), "kakao"),
                  USER_WITH_TOKEN, "kakao")
    assert (first["provider"], first["nickname"], first["email"]) == ("kakao", data.member, kakao_email)
    again = ok(phone.post("/v1/users/login/kakao", {"oauthToken": token, "deviceToken": ""}), "kakao again")
    assert again["user_id"] == first["user_id"]
    me = check(ok(phone.signed_in(again).get("/v1/users/me"), "kakao me"), MY_PROFILE, "kakao me")
    assert me["provider"] == "kakao"
    refused(phone.post("/v1/users/login/kakao", {"oauthToken": "not-a-kakao-token", "deviceToken": ""}), "E03", "unknown Kakao token")
    refused(phone.post("/v1/users/login/kakao", {"deviceToken": ""}), "E11", "no oauthToken")
    joined = join(api, data, data.owner, "email-first")
    taken = outside.kakao_person(data.owner, joined.email)
    refused(phone.post("/v1/users/login/kakao", {"oauthToken": taken, "deviceToken": ""}), "E12", "already joined by email")

    subject = f"001234.{uuid.uuid4().hex}.0123"
    apple_email = data.email("apple")
    apple = check(ok(phone.post("/v1/users/login/apple", {"idToken": outside.apple_token(subject, apple_email),
                                                          "nickname": data.outsider, "deviceToken": secrets.token_hex(32)}),
                     "apple"), USER_WITH_TOKEN, "apple")
    assert (apple["provider"], apple["nickname"], apple["email"]) == ("apple", data.outsider, apple_email)
    # Apple gives the name at the first sign-in only.
    later = ok(phone.post("/v1/users/login/apple", {"idToken": outside.apple_token(subject, None)}), "apple again")
    assert later["user_id"] == apple["user_id"] and later["nickname"] == data.outsider
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    for what, forged in [("signed by another key", outside.apple_token(subject, None, key=other_key)),
                         ("for another app", outside.apple_token(subject, None, audience="com.example.other")),
                         ("expired", outside.apple_token(subject, None, lifetime=-60)),
                         ("not a JWT", "a.b.c")]:
        refused(phone.post("/v1/users/login/apple", {"idToken": forged}), "E03", f"Apple token {what}")


# ---------------------------------------------------------------------------------------------
# Dates (§1)


@pytest.mark.timeout(120)
def test_each_object_keeps_one_creation_date(api, data):
    """What a create answers is what every later answer says of the same object: the apps keep
    the answer (Realm) and match later lists against it, and take chats' dates as cursors. Several
    of each, because a date that differs by its rounding differs only for some milliseconds."""
    differing = []
    phones = [join(api, data, data.owner, f"dates{index}") for index in range(6)]
    for phone in phones:
        me = ok(phone.get("/v1/users/me"), "me")
        if me["createdAt"] != phone.user["createdAt"]:
            differing.append(("account: join", phone.user["createdAt"], "me", me["createdAt"]))
    owner = phones[0]
    for index in range(6):
        made = ok(owner.form("POST", "/v1/workspaces", [("name", f"{data.workspace} {index}")]), "create workspace")
        base = f"/v1/workspaces/{made['workspace_id']}"
        detail = ok(owner.get(base), "detail")
        if detail["createdAt"] != made["createdAt"]:
            differing.append(("workspace: POST /v1/workspaces", made["createdAt"], "GET detail", detail["createdAt"]))
        room = ok(owner.post(base + "/dms", {"opponent_id": owner.id}), "a note to oneself")
        [listed] = [item for item in ok(owner.get(base + "/dms"), "DM list") if item["room_id"] == room["room_id"]]
        if listed["createdAt"] != room["createdAt"]:
            differing.append(("DM room: POST …/dms", room["createdAt"], "GET …/dms", listed["createdAt"]))
        chat = ok(owner.form("POST", base + f"/dms/{room['room_id']}/chats", [("content", data.dm)]), "post")
        [read] = ok(owner.get(base + f"/dms/{room['room_id']}/chats"), "read")
        if read["createdAt"] != chat["createdAt"]:
            differing.append(("DM chat: POST …/chats", chat["createdAt"], "GET …/chats", read["createdAt"]))
    assert not differing, "one object, two createdAt:\n" + "\n".join(
        f"  {what} answered {first}, {later} answers {second}" for what, first, later, second in differing)


# ---------------------------------------------------------------------------------------------
# Workspaces (§3.2)


@pytest.mark.timeout(120)
def test_workspace_create_list_detail_edit_delete(team):
    """Create (multipart with the cover WSX always sends) pays its coins; the side menu's list,
    the detail with the first channel named in the app's language; edit and delete by the owner."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    made = check(team.workspace, WORKSPACE, "create workspace")
    assert (made["name"], made["description"], made["owner_id"]) == (data.workspace, data.workspace_description, owner.id)
    assert made["coverImage"].startswith("/static/workspaces/") and made["coverImage"].endswith(".png"), made["coverImage"]
    recent(made["createdAt"])
    assert team.coins == (SIGNUP_COINS, SIGNUP_COINS - WORKSPACE_PRICE), "creating a workspace spends its price in coins"

    def same(shown: dict, where: str) -> None:
        """The workspace as its create answer described it (its createdAt: `test_each_object_keeps_one_creation_date`)."""
        assert {key: shown[key] for key in WORKSPACE if key != "createdAt"} == \
            {key: made[key] for key in WORKSPACE if key != "createdAt"}, where

    for phone in (owner, member):
        listed = check(ok(phone.get("/v1/workspaces"), "workspaces"), [WORKSPACE], "workspaces")
        [entry] = [workspace for workspace in listed if workspace["workspace_id"] == team.wid]
        same(entry, "the side menu's list")
    assert ok(outsider.get("/v1/workspaces"), "outsider's workspaces") == []

    detail = check(ok(member.get(team.path()), "workspace detail"), WORKSPACE_DETAIL, "workspace detail")
    same(detail, "the detail")
    names = [channel["name"] for channel in detail["channels"]]
    assert data.default_channel in names and data.channel in names, names
    assert {person["user_id"]: person["nickname"] for person in detail["workspaceMembers"]} == \
        {owner.id: data.owner, member.id: data.member}
    cover = member.fetch(made["coverImage"])
    assert cover.status == 200 and cover.body == PNG and cover.headers["Content-Type"] == "image/png"
    refused(outsider.get(team.path()), "E13", "a workspace the caller is not in")
    refused(owner.get("/v1/workspaces/000000000000000000000000"), "E13", "a workspace that does not exist")

    # Edit (owner only); a form that changes nothing is E12.
    refused(member.form("PUT", team.path(), [("name", data.workspace_renamed)]), "E14", "a member edits")
    refused(owner.form("PUT", team.path(), [("name", data.workspace), ("description", data.workspace_description)]), "E12",
            "an edit that changes nothing")
    refused(owner.form("PUT", team.path(), [("name", "")]), "E11", "an empty name")
    edited = check(ok(owner.form("PUT", team.path(), [("name", data.workspace_renamed), ("description", data.workspace_description)]),
                      "edit workspace"), WORKSPACE, "edit workspace")
    assert (edited["workspace_id"], edited["name"], edited["coverImage"]) == (team.wid, data.workspace_renamed, made["coverImage"])
    assert ok(member.get(team.path()), "detail after the edit")["name"] == data.workspace_renamed
    restored = ok(owner.form("PUT", team.path(), [("name", data.workspace), ("description", data.workspace_description)]), "restore")
    assert restored["name"] == data.workspace

    # A second workspace without a picture or description: a cover path all the same, null description.
    refused(owner.form("POST", "/v1/workspaces", [("name", data.workspace)]), "E12", "a name the owner already uses")
    refused(owner.form("POST", "/v1/workspaces", [("name", "")]), "E11", "no name")
    refused(owner.form("POST", "/v1/workspaces", [("name", data.workspace_renamed)], [("image", data.document, PDF, "application/pdf")]),
            "E11", "a cover that is no picture")
    plain = check(ok(owner.form("POST", "/v1/workspaces", [("name", data.workspace_renamed)]), "plain workspace"), WORKSPACE, "plain")
    assert plain["description"] is None and plain["coverImage"].startswith("/static/workspaces/")
    default_cover = owner.fetch(plain["coverImage"])
    assert default_cover.status == 200 and default_cover.body.startswith(b"\x89PNG"), "the default cover is a picture"
    assert ok(owner.get(f"/v1/workspaces/{plain['workspace_id']}"), "plain detail")["channels"][0]["name"] == data.default_channel

    refused(member.delete(f"/v1/workspaces/{plain['workspace_id']}"), "E13", "deleting another's workspace one is not in")
    ok(owner.delete(f"/v1/workspaces/{plain['workspace_id']}"), "delete workspace", empty=True)
    refused(owner.get(f"/v1/workspaces/{plain['workspace_id']}"), "E13", "a deleted workspace")
    refused(member.delete(team.path()), "E14", "a member deletes")


@pytest.mark.timeout(120)
def test_invite_members_and_teammates_profiles(team):
    """"팀원 초대" by email (owner only): the invitee comes back as a Member; the member strip and
    a teammate's profile."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    invited = check(team.invited, MEMBER, "invite")
    assert (invited["user_id"], invited["nickname"], invited["email"], invited["profileImage"]) == \
        (member.id, data.member, member.email, None)

    members = check(ok(member.get(team.path("/members")), "members"), [MEMBER], "members")
    assert {person["user_id"]: person["nickname"] for person in members} == {owner.id: data.owner, member.id: data.member}
    refused(owner.post(team.path("/members"), {"email": member.email}), "E12", "inviting a member")
    refused(owner.post(team.path("/members"), {"email": data.email("nobody")}), "E03", "an address without an account")
    refused(owner.post(team.path("/members"), {"email": "not an address"}), "E11", "not an address")
    refused(member.post(team.path("/members"), {"email": outsider.email}), "E14", "a member invites")
    refused(outsider.get(team.path("/members")), "E13", "members of a workspace one is not in")

    teammate = check(ok(owner.get(f"/v1/users/{member.id}"), "teammate"), MEMBER, "teammate")
    assert (teammate["nickname"], teammate["email"]) == (data.member, member.email)
    refused(outsider.get(f"/v1/users/{member.id}"), "E03", "no workspace in common")


@pytest.mark.timeout(120)
def test_search_finds_channels_and_members(team):
    """The search tab: channels and members whose names hold the keyword (any letter case)."""
    data, member = team.data, team.member
    found = check(ok(member.get(team.path("/search") + query(keyword=data.channel_keyword)), "search channels"),
                  WORKSPACE_DETAIL, "search")
    assert found["workspace_id"] == team.wid
    assert team.channel["channel_id"] in [channel["channel_id"] for channel in found["channels"]]
    assert all(data.channel_keyword.lower() in channel["name"].lower() for channel in found["channels"])
    assert found["workspaceMembers"] == []
    people = check(ok(member.get(team.path("/search") + query(keyword=data.member_keyword)), "search members"),
                   WORKSPACE_DETAIL, "search")
    assert [person["user_id"] for person in people["workspaceMembers"]] == [member.id] and people["channels"] == []
    refused(member.get(team.path("/search") + query(keyword="")), "E11", "an empty keyword")
    refused(member.get(team.path("/search")), "E11", "no keyword")
    refused(team.outsider.get(team.path("/search") + query(keyword=data.channel_keyword)), "E13", "search by an outsider")


@pytest.mark.timeout(120)
def test_transfer_ownership_and_exit(team):
    """"워크스페이스 관리자 변경" and "워크스페이스 나가기": the owner cannot leave before handing
    the workspace over (E15); afterwards the new owner deletes it."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    name = data.workspace + " 2"
    other = ok(owner.form("POST", "/v1/workspaces", [("name", name)]), "second workspace")
    base = f"/v1/workspaces/{other['workspace_id']}"
    ok(owner.post(base + "/members", {"email": member.email}), "invite")
    accept_on_web(member, name)
    assert other["workspace_id"] in [workspace["workspace_id"] for workspace in ok(member.get("/v1/workspaces"), "list")]

    refused(owner.get(base + "/exit"), "E15", "the owner leaves")
    refused(member.put(base + "/transfer/ownership", {"owner_id": owner.id}), "E14", "a member transfers")
    refused(owner.put(base + "/transfer/ownership", {"owner_id": owner.id}), "E11", "a transfer to oneself")
    refused(owner.put(base + "/transfer/ownership", {}), "E11", "no owner_id")
    refused(owner.put(base + "/transfer/ownership", {"owner_id": outsider.id}), "E13", "a transfer to a non-member")
    handed = check(ok(owner.put(base + "/transfer/ownership", {"owner_id": member.id}), "transfer"), WORKSPACE, "transfer")
    assert handed["owner_id"] == member.id and handed["workspace_id"] == other["workspace_id"]
    refused(member.get(base + "/exit"), "E15", "the new owner leaves")
    refused(owner.delete(base), "E14", "the former owner deletes")

    left = check(ok(owner.get(base + "/exit"), "exit"), [WORKSPACE], "exit")
    ids = [workspace["workspace_id"] for workspace in left]
    assert other["workspace_id"] not in ids and team.wid in ids, "the answer is the workspaces still mine"
    refused(owner.get(base), "E13", "a workspace one left")
    ok(member.delete(base), "delete", empty=True)
    assert other["workspace_id"] not in [workspace["workspace_id"] for workspace in ok(member.get("/v1/workspaces"), "list")]


# ---------------------------------------------------------------------------------------------
# Channels (§3.3)


@pytest.mark.timeout(120)
def test_channels_create_browse_join_edit_transfer_exit_delete(team):
    """"채널 생성" (WSX multipart, PPK JSON), "채널 탐색" and joining by reading, the settings
    screen's edit, owner change, leaving and deleting, with every refusal on the way."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    channel = check(team.channel, CHANNEL, "create channel (multipart)")
    assert (channel["name"], channel["description"], channel["owner_id"]) == (data.channel, data.channel_description, owner.id)
    assert channel["coverImage"].startswith("/static/channels/") and channel["coverImage"].endswith(".png"), channel["coverImage"]
    recent(channel["createdAt"])
    cover = member.fetch(channel["coverImage"])
    assert cover.status == 200 and cover.headers["Content-Type"] == "image/png"

    side = check(ok(owner.post(team.path("/channels"), {"name": data.side_channel}), "create channel (JSON)"), CHANNEL, "create")
    assert side["description"] is None and side["coverImage"] is None and side["owner_id"] == owner.id
    refused(owner.post(team.path("/channels"), {"name": data.side_channel.upper()}), "E12", "a duplicate channel name")
    refused(owner.form("POST", team.path("/channels"), [("name", "")]), "E11", "no channel name")
    refused(outsider.post(team.path("/channels"), {"name": data.side_channel_renamed}), "E13", "an outsider creates")

    browse = check(ok(member.get(team.path("/channels")), "channels"), [CHANNEL], "channels")
    assert {data.default_channel, data.channel, data.side_channel} <= {item["name"] for item in browse}
    mine = check(ok(member.get(team.path("/my-channels")), "my channels"), [CHANNEL], "my channels")
    assert data.default_channel in [item["name"] for item in mine] and side["channel_id"] not in [item["channel_id"] for item in mine]
    # Joining is implicit: reading the chats of a channel joins it.
    assert ok(member.get(team.channel_path(side, "/chats")), "read side channel") == []
    assert side["channel_id"] in [item["channel_id"] for item in ok(member.get(team.path("/my-channels")), "my channels")]

    detail = check(ok(member.get(team.channel_path(side)), "channel detail"), CHANNEL_DETAIL, "channel detail")
    assert {key: detail[key] for key in CHANNEL} == side
    assert {person["user_id"] for person in detail["channelMembers"]} == {owner.id, member.id}
    refused(outsider.get(team.channel_path(side)), "E13", "an outsider's channel detail")
    refused(owner.get(team.channel_path("000000000000000000000000")), "E13", "a channel that does not exist")

    refused(member.form("PUT", team.channel_path(side), [("name", data.side_channel_renamed)]), "E14", "a member edits")
    refused(owner.form("PUT", team.channel_path(side), [("name", data.side_channel)]), "E12", "an edit that changes nothing")
    refused(owner.form("PUT", team.channel_path(side), [("name", data.channel)]), "E12", "a name another channel has")
    edited = check(ok(owner.form("PUT", team.channel_path(side), [("name", data.side_channel_renamed), ("description", data.chat)],
                                 [("image", data.picture, PNG, "image/png")]), "edit channel"), CHANNEL, "edit channel")
    assert (edited["channel_id"], edited["name"], edited["description"]) == (side["channel_id"], data.side_channel_renamed, data.chat)
    assert edited["coverImage"].startswith("/static/channels/") and edited["coverImage"].endswith(".png")
    assert member.fetch(edited["coverImage"]).status == 200

    general = team.default_channel(member)
    refused(member.get(team.channel_path(general, "/exit")), "E11", "leaving the default channel")
    refused(owner.delete(team.channel_path(general)), "E11", "deleting the default channel")
    refused(owner.put(team.channel_path(general, "/transfer/ownership"), {"owner_id": member.id}), "E11", "the default channel's owner")
    refused(owner.get(team.channel_path(side, "/exit")), "E15", "the channel's owner leaves")
    refused(member.put(team.channel_path(side, "/transfer/ownership"), {"owner_id": member.id}), "E14", "a member transfers")
    refused(owner.put(team.channel_path(side, "/transfer/ownership"), {"owner_id": "000000000000000000000000"}), "E13", "no one")
    refused(owner.put(team.channel_path(side, "/transfer/ownership"), {"owner_id": outsider.id}), "E11", "not in the channel")

    handed = check(ok(owner.put(team.channel_path(side, "/transfer/ownership"), {"owner_id": member.id}), "channel transfer"),
                   CHANNEL, "channel transfer")
    assert handed["owner_id"] == member.id
    refused(member.get(team.path("/exit")), "E15", "a channel's owner leaves the workspace")
    back = ok(member.put(team.channel_path(side, "/transfer/ownership"), {"owner_id": owner.id}), "transfer back")
    assert back["owner_id"] == owner.id
    left = check(ok(member.get(team.channel_path(side, "/exit")), "channel exit"), [CHANNEL], "channel exit")
    assert side["channel_id"] not in [item["channel_id"] for item in left] and general["channel_id"] in [item["channel_id"] for item in left]
    refused(member.delete(team.channel_path(side)), "E14", "a member deletes")
    ok(owner.delete(team.channel_path(side)), "delete channel", empty=True)
    refused(owner.get(team.channel_path(side)), "E13", "a deleted channel")


# ---------------------------------------------------------------------------------------------
# Chats, files, cursors (§3.3, §7, §8)


@pytest.mark.timeout(120)
def test_channel_chats_with_files_and_every_cursor_form(team):
    """Sending text with a PDF and a PNG, text alone, files alone; the history in order; and the
    tail after each `cursor_date` form the apps send."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    room = ok(owner.post(team.path("/channels"), {"name": data.chat_channel}), "chat channel")
    refused(member.form("POST", team.channel_path(room, "/chats"), [("content", data.reply)]), "E13", "posting before joining")
    assert ok(member.get(team.channel_path(room, "/chats")), "first read") == []

    first = check(ok(owner.form("POST", team.channel_path(room, "/chats"), [("content", data.chat)],
                                [("files", data.document, PDF, "application/pdf"), ("files", data.picture, PNG, "image/png")]),
                     "post with files"), CHANNEL_CHAT, "post with files")
    assert (first["channel_id"], first["channelName"], first["content"]) == (room["channel_id"], room["name"], data.chat)
    assert first["user"]["user_id"] == owner.id and first["user"]["nickname"] == data.owner
    recent(first["createdAt"])
    document, picture = first["files"]
    assert document.startswith("/static/channelChats/") and document.endswith(".pdf"), document
    assert picture.startswith("/static/channelChats/") and picture.endswith(".png"), picture
    stem = data.document.rsplit(".", 1)[0]
    assert document.rsplit("/", 1)[1].startswith(stem), f"{document}: the app shows the name from the path"

    time.sleep(1.1)  # the zoneless cursor (Sooda) has whole seconds only
    second = check(ok(member.form("POST", team.channel_path(room, "/chats"), [("content", data.reply)]), "post text"),
                   CHANNEL_CHAT, "post text")
    assert second["files"] == [] and second["user"]["user_id"] == member.id
    third = check(ok(owner.form("POST", team.channel_path(room, "/chats"), [], [("files", data.picture, PNG, "image/png")]),
                     "post files alone"), CHANNEL_CHAT, "post files alone")
    assert third["content"] == "", "content is a string even without text"
    posted = [first, second, third]

    history = check(ok(member.get(team.channel_path(room, "/chats")), "history"), [CHANNEL_CHAT], "history")
    assert history == posted, "the whole history, ascending, each chat as its post answered it"
    assert len({chat["chat_id"] for chat in history}) == 3
    start = moment(first["createdAt"])
    for what, cursor, expected in [
            ("empty", "", posted),
            ("…SSSZ", first["createdAt"], [second, third]),
            ("…SSSZ of the last", third["createdAt"], []),
            ("…SSS+0000", with_offset(first["createdAt"]), [second, third]),
            ("zoneless Korean time", zoneless_korean(start.replace(microsecond=0) - datetime.timedelta(seconds=1)), posted),
            ("zoneless Korean time, a second on", zoneless_korean(start.replace(microsecond=0) + datetime.timedelta(seconds=1)),
             [second, third])]:
        tail = ok(member.get(team.channel_path(room, "/chats") + query(cursor_date=cursor)), f"cursor {what}")
        assert [chat["chat_id"] for chat in tail] == [chat["chat_id"] for chat in expected], f"cursor_date {what} = {cursor!r}"
    # PPK's `+0000` as URLComponents leaves it (an unescaped `+`).
    raw = ok(member.get(team.channel_path(room, "/chats") + "?cursor_date=" + with_offset(first["createdAt"])), "raw +0000")
    assert [chat["chat_id"] for chat in raw] == [second["chat_id"], third["chat_id"]]
    refused(member.get(team.channel_path(room, "/chats") + query(cursor_date="yesterday")), "E11", "a cursor that is no date")

    refused(owner.form("POST", team.channel_path(room, "/chats"), [("content", "   ")]), "E11", "an empty post")
    refused(owner.form("POST", team.channel_path(room, "/chats"), [("content", data.chat)],
                       [("files", f"{index}.png", PNG, "image/png") for index in range(6)]), "E11", "six files")
    refused(outsider.get(team.channel_path(room, "/chats")), "E13", "an outsider reads")
    refused(outsider.form("POST", team.channel_path(room, "/chats"), [("content", data.chat)]), "E13", "an outsider posts")
    refused(owner.get(team.channel_path("000000000000000000000000", "/chats")), "E13", "a channel that does not exist")
    assert len(ok(member.get(team.channel_path(room, "/chats")), "history after the refusals")) == 3, "no refusal posted anything"


@pytest.mark.timeout(120)
def test_static_files_reach_members_only(team):
    """A chat's files as the apps open them: `GET /v1/static/…` with the key and the token, the
    bytes as sent, `nosniff`; a non-member is refused."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    general = team.default_channel()
    chat = ok(owner.form("POST", team.channel_path(general, "/chats"), [("content", data.chat)],
                         [("files", data.document, PDF, "application/pdf"), ("files", data.picture, PNG, "image/png")]), "post")
    for path, body, mime in zip(chat["files"], (PDF, PNG), ("application/pdf", "image/png")):
        for phone in (owner, member):
            reply = phone.fetch(path)
            assert reply.status == 200, f"{path}: {reply}"
            assert reply.body == body, f"{path}: not the bytes sent"
            assert reply.headers["Content-Type"].startswith(mime), reply.headers["Content-Type"]
            assert reply.headers["X-Content-Type-Options"] == "nosniff"
        refused(outsider.fetch(path), "E13", f"an outsider fetches {path}")
        refused(member.fetch(path, token=None), "E02", "a file without a token")
        refused(member.fetch(path, key=None), "E01", "a file without the key")
    refused(member.fetch("/static/channelChats/nothing_000000000000000000000000.pdf"), "E13", "a file that does not exist")

    # PPK's form: `content` always sent (empty beside a picture), the picture named after the channel.
    photo = check(ok(member.form("POST", team.channel_path(general, "/chats"), [("content", "")],
                                 [("files", f"{general['channel_id']}.png", PNG, "image/png")]), "PPK post"), CHANNEL_CHAT, "PPK")
    assert photo["content"] == "" and len(photo["files"]) == 1 and photo["files"][0].endswith(".png")
    assert owner.fetch(photo["files"][0]).body == PNG


@pytest.mark.timeout(120)
def test_unread_counts_after_every_date_form(team):
    """PPK's home badges: `{channel_id, name, count}` of chats after `after` (wsx leaves out the
    caller's own, docs/api.md)."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    room = ok(owner.post(team.path("/channels"), {"name": data.unread_channel}), "unread channel")
    ok(member.get(team.channel_path(room, "/chats")), "join by reading")
    mine = [ok(owner.form("POST", team.channel_path(room, "/chats"), [("content", f"{data.chat} {index}")]), "post")
            for index in (1, 2)]
    ok(member.form("POST", team.channel_path(room, "/chats"), [("content", data.reply)]), "member's post")

    def unread(phone: Phone, **after: str) -> int:
        answer = check(ok(phone.get(team.channel_path(room, "/unreads") + (query(**after) if after else "")), "unreads"),
                       CHANNEL_UNREAD, "unreads")
        assert (answer["channel_id"], answer["name"]) == (room["channel_id"], room["name"])
        return answer["count"]

    assert unread(member, after=room["createdAt"]) == 2, "the owner's two chats"
    assert unread(owner, after=room["createdAt"]) == 1, "the member's one chat"
    assert unread(member) == 2 and unread(member, after="") == 2, "no date: from the beginning"
    assert unread(member, after=mine[0]["createdAt"]) == 1
    assert unread(member, after=with_offset(mine[0]["createdAt"])) == 1
    assert unread(member, after=zoneless_korean(moment(room["createdAt"]).replace(microsecond=0))) == 2
    assert unread(member, after=mine[1]["createdAt"]) == 0
    refused(member.get(team.channel_path(room, "/unreads") + query(after="not a date")), "E11", "after that is no date")
    refused(outsider.get(team.channel_path(room, "/unreads") + query(after=room["createdAt"])), "E13", "an outsider's unreads")


# ---------------------------------------------------------------------------------------------
# DMs (§3.4)


@pytest.mark.timeout(120)
def test_direct_messages(team):
    """Tap a member → open (or find) the room; send with a file; the room list WSX polls; the
    room's chats after a cursor; PPK's DM badge."""
    data, owner, member, outsider = team.data, team.owner, team.member, team.outsider
    room = check(ok(owner.post(team.path("/dms"), {"opponent_id": member.id}), "open DM"), DM_ROOM, "open DM")
    assert room["user"]["user_id"] == member.id and room["user"]["nickname"] == data.member
    assert ok(owner.post(team.path("/dms"), {"opponent_id": member.id}), "open again")["room_id"] == room["room_id"]
    theirs = check(ok(member.post(team.path("/dms"), {"opponent_id": owner.id}), "open from the other side"), DM_ROOM, "DM")
    assert theirs["room_id"] == room["room_id"] and theirs["user"]["user_id"] == owner.id
    refused(owner.post(team.path("/dms"), {}), "E11", "no opponent_id")
    refused(owner.post(team.path("/dms"), {"opponent_id": "000000000000000000000000"}), "E13", "an opponent that is no one")
    refused(owner.post(team.path("/dms"), {"opponent_id": outsider.id}), "E13", "an opponent outside the workspace")

    chats_path = team.path(f"/dms/{room['room_id']}/chats")
    before = check(ok(member.get(chats_path), "DM history"), [DM_CHAT], "DM history")
    sent = check(ok(owner.form("POST", chats_path, [("content", data.dm)], [("files", data.document, PDF, "application/pdf")]),
                    "send DM"), DM_CHAT, "send DM")
    assert (sent["room_id"], sent["content"], sent["user"]["user_id"]) == (room["room_id"], data.dm, owner.id)
    [document] = sent["files"]
    assert document.startswith("/static/dmChats/") and document.endswith(".pdf"), document
    recent(sent["createdAt"])
    reply = check(ok(member.form("POST", chats_path, [("content", data.reply)]), "reply DM"), DM_CHAT, "reply DM")
    assert reply["files"] == [] and reply["user"]["user_id"] == member.id

    history = check(ok(member.get(chats_path), "DM history"), [DM_CHAT], "DM history")
    assert history == before + [sent, reply], "ascending, each as its post answered it"
    assert ok(member.get(chats_path + query(cursor_date=sent["createdAt"])), "after the first") == [reply]
    assert ok(member.get(chats_path + query(cursor_date=with_offset(sent["createdAt"]))), "after, +0000") == [reply]
    assert ok(member.get(chats_path + query(cursor_date="")), "empty cursor") == history
    assert ok(member.get(chats_path + query(cursor_date=reply["createdAt"])), "after the last") == []

    rooms = check(ok(member.get(team.path("/dms")), "DM list"), [DM_ROOM], "DM list")
    assert [(item["room_id"], item["user"]["user_id"]) for item in rooms if item["room_id"] == room["room_id"]] == \
        [(room["room_id"], owner.id)], "the other person, from the caller's side"
    unread = check(ok(member.get(team.path(f"/dms/{room['room_id']}/unreads") + query(after=room["createdAt"])), "DM unreads"),
                   DM_UNREAD, "DM unreads")
    assert unread["room_id"] == room["room_id"]
    assert unread["count"] == sum(1 for chat in history if chat["user"]["user_id"] == owner.id)
    assert ok(member.get(team.path(f"/dms/{room['room_id']}/unreads") + query(after=sent["createdAt"])), "after")["count"] == 0
    everything = ok(member.get(team.path(f"/dms/{room['room_id']}/unreads")), "no after (WSX omits it)")
    assert everything == {"room_id": room["room_id"], "count": unread["count"]}

    assert member.fetch(document).body == PDF
    refused(outsider.fetch(document), "E13", "an outsider fetches a DM's file")
    refused(outsider.get(team.path("/dms")), "E13", "an outsider's DM list")
    refused(outsider.get(chats_path), "E13", "an outsider reads the room")
    refused(outsider.form("POST", chats_path, [("content", data.dm)]), "E13", "an outsider posts to the room")
    refused(member.get(team.path("/dms/000000000000000000000000/chats")), "E13", "a room that does not exist")
    refused(member.form("POST", chats_path, []), "E11", "an empty DM")


# ---------------------------------------------------------------------------------------------
# The coin store (§3.5, §9)


@pytest.mark.timeout(120)
def test_coin_store_lists_packs_and_validates_payments(api, outside, data):
    """The 코인샵: the packs, then a payment the app made at iamport validated and credited once;
    every payment iamport does not vouch for is refused, and iamport failing is E99."""
    phone = join(api, data, data.owner, "buyer")
    items = check(ok(phone.get("/v1/store/item/list"), "items"), [STORE_ITEM], "items")
    assert [(item["item"], item["amount"]) for item in items] == [("10 Coin", "100"), ("50 Coin", "500"), ("100 Coin", "1000")]

    coins = ok(phone.get("/v1/users/me"), "me")["sesacCoin"]
    merchant = f"ios_{KEY}_{int(time.time())}_{data.key}"
    imp_uid = outside.pay(merchant, 500)
    valid = check(ok(phone.post("/v1/store/pay/validation", {"imp_uid": imp_uid, "merchant_uid": merchant}), "validation"),
                  PAY_VALIDATION, "validation")
    assert (valid["merchant_uid"], valid["buyer_id"], valid["price"], valid["sesacCoin"]) == (merchant, phone.id, 500, 50)
    recent(valid["paidAt"], "paidAt")
    coins += 50
    assert ok(phone.get("/v1/users/me"), "me")["sesacCoin"] == coins, "the app adds sesacCoin to the balance; so does the server"

    refused(phone.post("/v1/store/pay/validation", {"imp_uid": imp_uid, "merchant_uid": merchant}), "E82", "a payment credited")
    other = join(api, data, data.member, "other-buyer")
    refused(other.post("/v1/store/pay/validation", {"imp_uid": imp_uid, "merchant_uid": merchant}), "E82", "another's payment")
    refused(phone.post("/v1/store/pay/validation", {"imp_uid": "imp_000000000000", "merchant_uid": merchant + "x"}), "E81",
            "a payment iamport does not know")
    for what, status, amount in [("another price", "paid", 300), ("not confirmed", "ready", 100), ("declined", "failed", 100)]:
        merchant_uid = f"ios_{KEY}_{uuid.uuid4().hex}"
        refused(phone.post("/v1/store/pay/validation", {"imp_uid": outside.pay(merchant_uid, amount, status),
                                                        "merchant_uid": merchant_uid}), "E82", what)
    elsewhere = outside.pay(f"ios_{KEY}_{uuid.uuid4().hex}", 100)
    refused(phone.post("/v1/store/pay/validation", {"imp_uid": elsewhere, "merchant_uid": f"ios_{KEY}_mine"}), "E82",
            "a merchant id that is not the payment's")
    refused(phone.post("/v1/store/pay/validation", {"merchant_uid": merchant}), "E11", "no imp_uid")
    broken = outside.pay(f"ios_{KEY}_{uuid.uuid4().hex}", 100)
    outside.broken.add(broken)
    refused(phone.post("/v1/store/pay/validation", {"imp_uid": broken, "merchant_uid": outside.payments[broken]["merchant_uid"]}),
            "E99", "iamport answering garbage")
    assert ok(phone.get("/v1/users/me"), "me")["sesacCoin"] == coins, "no refusal credited anything"


# ---------------------------------------------------------------------------------------------
# The second server: time, closed doors, empty purses


@pytest.mark.timeout(60)
def test_tokens_expire_e05_then_e06(strict):
    """An access token past `--api-access-ttl` is E05, which the apps answer with a refresh; a
    refresh token unused past `--api-refresh-ttl` is E06, after which the app signs in again."""
    server, first = strict
    phone = sign_in(server, KOREAN, first.email)
    ok(phone.get("/v1/users/me"), "me")
    time.sleep(STRICT_ACCESS_TTL + 0.5)
    refused(phone.get("/v1/users/me"), "E05", "an expired access token")
    refreshed = check(ok(phone.get("/v1/auth/refresh", headers={"RefreshToken": phone.refresh}), "refresh"), ACCESS_TOKEN, "refresh")
    old, phone.access = phone.access, refreshed["accessToken"]
    ok(phone.get("/v1/users/me"), "me with the new token")
    refused(phone.get("/v1/users/me", token=old), "E02", "the expired token after a refresh")
    time.sleep(STRICT_REFRESH_TTL + 0.5)
    refused(phone.get("/v1/auth/refresh", headers={"RefreshToken": phone.refresh}), "E06", "an expired refresh token")
    ok(sign_in(server, KOREAN, first.email).get("/v1/users/me"), "signed in again")


@pytest.mark.timeout(60)
def test_sign_up_closed_is_e01(strict, outside):
    """With sign-up by invitation, a join from the app, and a first Kakao sign-in, are E01."""
    server, _ = strict
    phone = Phone(server, ENGLISH)
    address = ENGLISH.email("closed")
    refused(phone.post("/v1/users/join", {"email": address, "password": PASSWORD, "nickname": ENGLISH.member,
                                          "phone": "010-1234-5678"}), "E01", "join while sign-up is closed")
    refused(phone.post("/v1/users/login", {"email": address, "password": PASSWORD}), "E03", "no account was made")
    refused(phone.post("/v1/users/login/kakao", {"oauthToken": outside.kakao_person(ENGLISH.member, ENGLISH.email("kakao")),
                                                 "deviceToken": ""}), "E01", "a first Kakao sign-in while sign-up is closed")


@pytest.mark.timeout(60)
def test_not_enough_coins_is_e21(strict):
    """A workspace dearer than the coins one has is E21, and nothing is spent."""
    server, first = strict
    phone = sign_in(server, KOREAN, first.email)
    assert ok(phone.get("/v1/users/me"), "me")["sesacCoin"] == STRICT_SIGNUP_COINS
    refused(phone.form("POST", "/v1/workspaces", [("name", KOREAN.workspace)], [("image", "WorkSpaceX_logo.png", PNG, "image/png")]),
            "E21", "not enough coins")
    phone = sign_in(server, KOREAN, first.email)  # the access tokens here live two seconds
    assert ok(phone.get("/v1/users/me"), "me")["sesacCoin"] == STRICT_SIGNUP_COINS
    assert ok(phone.get("/v1/workspaces"), "workspaces") == []


@pytest.mark.timeout(60)
def test_too_many_failed_sign_ins_is_e98(strict):
    """Past `--login-max-failures` wrong passwords for one address, sign-in is E98 for a while."""
    server, first = strict
    phone = Phone(server, KOREAN)
    target = KOREAN.email("guessed")
    for attempt in range(2):
        refused(phone.post("/v1/users/login", {"email": target, "password": f"Guess-{attempt}!"}), "E03", f"guess {attempt + 1}")
    refused(phone.post("/v1/users/login", {"email": target, "password": PASSWORD}), "E98", "a guess past the limit")
    ok(phone.post("/v1/users/login", {"email": first.email, "password": PASSWORD}), "another account signs in")


@pytest.mark.timeout(60)
def test_no_secret_reaches_the_log(api, outside):
    """Logs travel further than the database: the key, access and refresh tokens (sent and
    answered), passwords, device tokens, and Kakao's and Apple's tokens never reach the server's
    log, even at `trace`. Whatever else ran before, this test signs in, refreshes, reads and signs
    in with Kakao itself, so there is always something to look for."""
    phone = join(api, ENGLISH, "Log Watcher", "log-watcher")
    again = sign_in(api, ENGLISH, phone.email)
    refreshed = ok(again.get("/v1/auth/refresh", headers={"RefreshToken": again.refresh}), "refresh")["accessToken"]
    SENT_SECRETS.add(refreshed)
    ok(again.get("/v1/users/me", token=refreshed), "me with the refreshed token")
    refused(again.get("/v1/users/me", token="garbage-token-for-the-log"), "E02", "a garbage token")
    SENT_SECRETS.add("garbage-token-for-the-log")
    kakao = outside.kakao_person("Log Watcher", ENGLISH.email("log-watcher-kakao"))
    ok(Phone(api, ENGLISH).post("/v1/users/login/kakao", {"oauthToken": kakao, "deviceToken": secrets.token_hex(32)}), "kakao")

    log = api.log.read_text(errors="replace")
    assert '/v1/auth/refresh' in log and '/v1/users/login/kakao' in log, "the log has the requests, at trace"
    leaked = sorted(secret for secret in SENT_SECRETS if secret in log)
    assert leaked == [], f"{len(leaked)} secrets in the log, e.g. {leaked[0][:12]}… ({len(SENT_SECRETS)} looked for)"
