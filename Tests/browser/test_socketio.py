"""The apps' live updates over Socket.IO (issue 35), with a real client: python-socketio joins a
channel's namespace with an access token (long-polling, then upgraded to a WebSocket as the
apps' library does, or on a WebSocket from the start) and receives `channel` for a post from
the web and for one from an app, the sender's own included; a non-member is refused; a member
removed from the channel is disconnected. Under `--socket-io-unauthenticated` a token-less
socket joins a public channel by its opaque id, never a private one."""

import json
import queue
import re
import subprocess

import pytest
import requests
import socketio

from conftest import STARTUP_TIMEOUT, _stop, _wait_for_ready_line, wsx_binary
from test_api_contract import KEY, request

PASSWORD = "Socket-pass-1"


def start_server(root, *flags: str):
    with open(root / "wsx-web.log", "wb") as log:
        process = subprocess.Popen(
            [str(wsx_binary()), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(root / "data"),
             "--bcrypt-cost", "4", "--api-key", KEY, "--signup", "open", "--workspace-price", "0", *flags],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
    return process


@pytest.fixture(scope="module")
def api_server(tmp_path_factory):
    """The server, logging everything it can (`test_no_token_reaches_the_log` reads it), and its log."""
    root = tmp_path_factory.mktemp("socketio")
    process = start_server(root, "--log-level", "trace")
    try:
        yield _wait_for_ready_line(process, STARTUP_TIMEOUT), root / "wsx-web.log"
    finally:
        _stop(process)


@pytest.fixture(scope="module")
def api_base(api_server):
    return api_server[0]


@pytest.fixture(scope="module")
def open_base(tmp_path_factory):
    """A server whose sockets may join without a token."""
    process = start_server(tmp_path_factory.mktemp("socketio-open"), "--socket-io-unauthenticated")
    try:
        yield _wait_for_ready_line(process, STARTUP_TIMEOUT)
    finally:
        _stop(process)


def join(base: str, email: str, nickname: str) -> tuple[str, dict]:
    status, user = request(base, "POST", "/v1/users/join", {"email": email, "password": PASSWORD, "nickname": nickname})
    assert status == 200, user
    return user["token"]["accessToken"], user


class WebBrowser:
    """A person on the web pages, as a browser without scripts: signed in by the form, posting forms
    with the CSRF token of the page they came from."""

    def __init__(self, base: str, email: str):
        self.base, self.http = base, requests.Session()
        self.submit("/login", {"email": email, "password": PASSWORD})

    def page(self, path: str) -> str:
        reply = self.http.get(self.base + path, timeout=30)
        assert reply.status_code == 200, (path, reply.status_code)
        return reply.text

    def submit(self, path: str, fields: dict, page: str | None = None) -> requests.Response:
        token = re.search(r'name="_csrf" value="([^"]+)"', self.page(page or path)).group(1)
        reply = self.http.post(self.base + path, data={"_csrf": token, **fields}, timeout=30, allow_redirects=False)
        assert reply.status_code in (200, 303), (path, reply.status_code, reply.text[-500:])
        return reply


def listen(base: str, namespace: str, token: str | None,
           transports: list[str] = ["polling"]) -> tuple[socketio.Client, "queue.Queue[dict]"]:
    """A client joined to `namespace` (polling first, as the apps' library starts, unless told
    otherwise), and what it hears."""
    heard: "queue.Queue[dict]" = queue.Queue()
    client = socketio.Client(reconnection=False)
    client.on("channel", heard.put, namespace=namespace)
    client.on("dm", heard.put, namespace=namespace)
    client.on("disconnect", lambda *_: heard.put({"disconnected": True}), namespace=namespace)
    client.connect(base, namespaces=[namespace], transports=transports, auth={"token": token} if token else None,
                   wait_timeout=10)
    return client, heard


# Each run: the transports its clients use, and the people, team and posts, in Korean or English.
RUNS = {
    "polling-ko": (["polling"], dict(owner="소켓주인@example.com", owner_name="소켓 주인", member="socket-member@example.com",
                                     member_name="멤버", outsider="socket-outsider@example.com", outsider_name="외부인",
                                     team="실시간 팀", channel="소식", app_post="앱에서 보낸 글", web_post="웹에서 보낸 글",
                                     member_post="멤버의 글")),
    "upgrade-en": (["polling", "websocket"], dict(owner="ws-owner@example.com", owner_name="Socket Owner",
                                                  member="ws-member@example.com", member_name="Member",
                                                  outsider="ws-outsider@example.com", outsider_name="Outsider",
                                                  team="Live team", channel="news", app_post="Sent from the app",
                                                  web_post="Sent from the web", member_post="The member's post")),
    "websocket-ko": (["websocket"], dict(owner="웹소켓주인@example.com", owner_name="웹소켓 주인", member="ws-only-member@example.com",
                                         member_name="회원", outsider="ws-only-outsider@example.com", outsider_name="남",
                                         team="웹소켓 팀", channel="공지", app_post="앱 글 👋", web_post="웹 글",
                                         member_post="회원의 글")),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("run", RUNS)
def test_channel_events_reach_members_and_no_one_else(api_base, run):
    transports, data = RUNS[run]
    owner_token, owner = join(api_base, data["owner"], data["owner_name"])
    member_token, member = join(api_base, data["member"], data["member_name"])
    outsider_token, _ = join(api_base, data["outsider"], data["outsider_name"])
    status, workspace = request(api_base, "POST", "/v1/workspaces", {"name": data["team"]}, owner_token)
    assert status == 200, workspace
    wid = workspace["workspace_id"]
    # The member joins as people do: the owner invites them on the members page (no mail here:
    # it shows the link) and they accept it.
    web = WebBrowser(api_base, data["owner"])
    workspace_id = re.search(r'href="/w/(\d+)"[^>]*>[^<]*' + re.escape(data["team"]), web.page("/workspaces")).group(1)
    invited = web.submit(f"/w/{workspace_id}/members", {"email": data["member"]})
    link = re.search(r"/invite/[A-Za-z0-9_-]{43}", invited.text).group(0)
    member_web = WebBrowser(api_base, data["member"])
    accept = re.search(r'id="accept-invite-form"', member_web.page(link)) and \
        re.search(r'action="([^"]+)" class="inline-form" id="accept-invite-form"', member_web.page(link)).group(1)
    member_web.submit(accept, {}, page=link)
    status, channel = request(api_base, "POST", f"/v1/workspaces/{wid}/channels", {"name": data["channel"]}, owner_token)
    assert status == 200, channel
    namespace = f"/ws-channel-{channel['channel_id']}"

    owner_client, heard = listen(api_base, namespace, owner_token, transports)
    try:
        status, posted = request(api_base, "POST", f"/v1/workspaces/{wid}/channels/{channel['channel_id']}/chats",
                                 {"content": data["app_post"]}, owner_token)
        assert status == 200, posted
        assert owner_client.transport() == transports[-1], "the socket ends on the last transport it offered"
        chat = heard.get(timeout=15)
        assert chat["chat_id"] == posted["chat_id"] and chat["content"] == data["app_post"], "the sender's own post comes back"
        assert chat["channel_id"] == channel["channel_id"] and chat["channelName"] == data["channel"]
        assert chat["user"]["user_id"] == owner["user_id"]

        # The member reads the channel (which joins it) and listens too; a post from the web
        # reaches both, and so does one from the member's app.
        status, _ = request(api_base, "GET", f"/v1/workspaces/{wid}/channels/{channel['channel_id']}/chats", token=member_token)
        assert status == 200
        member_client, member_heard = listen(api_base, namespace, member_token, transports)
        channel_id = re.search(r'data-room-name="(\d+)">' + re.escape(data["channel"]) + '</a>', web.page(f"/w/{workspace_id}/channels")).group(1)
        web.submit(f"/w/{workspace_id}/c/{channel_id}/messages", {"content": data["web_post"]}, page=f"/w/{workspace_id}/c/{channel_id}")
        assert heard.get(timeout=15)["content"] == data["web_post"]
        assert member_heard.get(timeout=15)["content"] == data["web_post"]
        status, _ = request(api_base, "POST", f"/v1/workspaces/{wid}/channels/{channel['channel_id']}/chats",
                            {"content": data["member_post"]}, member_token)
        assert status == 200
        assert heard.get(timeout=15)["user"]["user_id"] == member["user_id"]
        assert member_heard.get(timeout=15)["content"] == data["member_post"], "the sender's own post comes back"

        # Removed from the workspace (so from the channel): the member's socket is disconnected.
        member_id = re.search(r'action="/w/' + workspace_id + r'/members/(\d+)/remove"', web.page(f"/w/{workspace_id}/members")).group(1)
        web.submit(f"/w/{workspace_id}/members/{member_id}/remove", {"confirm": "yes"}, page=f"/w/{workspace_id}/members")
        assert member_heard.get(timeout=15) == {"disconnected": True}
        member_client.disconnect()

        with pytest.raises(socketio.exceptions.ConnectionError):
            listen(api_base, namespace, outsider_token, transports)[0].disconnect()
        with pytest.raises(socketio.exceptions.ConnectionError):
            listen(api_base, namespace, "not-a-token", transports)[0].disconnect()
        with pytest.raises(socketio.exceptions.ConnectionError):
            listen(api_base, f"/ws-channel-000000000000000000000000", owner_token)[0].disconnect()
    finally:
        owner_client.disconnect()


@pytest.mark.timeout(120)
def test_a_socket_without_a_token_joins_a_public_channel_only_when_the_server_allows_it(open_base, api_base):
    # By default a socket without a token is refused, even to a channel it names rightly.
    token, _ = join(api_base, "no-token-owner@example.com", "토큰 없는 주인")
    status, workspace = request(api_base, "POST", "/v1/workspaces", {"name": "닫힌 팀"}, token)
    assert status == 200, workspace
    status, channel = request(api_base, "POST", f"/v1/workspaces/{workspace['workspace_id']}/channels", {"name": "닫힌 방"}, token)
    assert status == 200, channel
    with pytest.raises(socketio.exceptions.ConnectionError):
        listen(api_base, f"/ws-channel-{channel['channel_id']}", None)[0].disconnect()

    # Under --socket-io-unauthenticated the opaque id alone admits to a public channel.
    token, _ = join(open_base, "open-owner@example.com", "열린 주인")
    status, workspace = request(open_base, "POST", "/v1/workspaces", {"name": "Open team"}, token)
    assert status == 200, workspace
    wid = workspace["workspace_id"]
    status, channel = request(open_base, "POST", f"/v1/workspaces/{wid}/channels", {"name": "open news"}, token)
    assert status == 200, channel
    client, heard = listen(open_base, f"/ws-channel-{channel['channel_id']}", None, ["polling", "websocket"])
    try:
        status, posted = request(open_base, "POST", f"/v1/workspaces/{wid}/channels/{channel['channel_id']}/chats",
                                 {"content": "Heard without a token"}, token)
        assert status == 200, posted
        assert heard.get(timeout=15)["chat_id"] == posted["chat_id"]
    finally:
        client.disconnect()

    # A private channel still needs a member's token.
    web = WebBrowser(open_base, "open-owner@example.com")
    workspace_id = re.search(r'href="/w/(\d+)"', web.page("/workspaces")).group(1)
    web.submit(f"/w/{workspace_id}/channels", {"name": "private room", "description": "", "visibility": "private"})
    status, channels = request(open_base, "GET", f"/v1/workspaces/{wid}/channels", token=token)
    assert status == 200, channels
    private = next(c for c in channels if c["name"] == "private room")
    with pytest.raises(socketio.exceptions.ConnectionError):
        listen(open_base, f"/ws-channel-{private['channel_id']}", None)[0].disconnect()
    client, _ = listen(open_base, f"/ws-channel-{private['channel_id']}", token)
    client.disconnect()


@pytest.mark.timeout(120)
def test_no_token_reaches_the_log(api_server):
    """A socket's access token, in the handshake's `auth`, the `token` query parameter or
    `Authorization`, on either transport, never reaches the server's log, even at `trace`."""
    base, log_path = api_server
    token, _ = join(base, "log-socket@example.com", "로그 주인")
    status, workspace = request(base, "POST", "/v1/workspaces", {"name": "로그 팀"}, token)
    assert status == 200, workspace
    status, channel = request(base, "POST", f"/v1/workspaces/{workspace['workspace_id']}/channels", {"name": "기록"}, token)
    assert status == 200, channel
    namespace = f"/ws-channel-{channel['channel_id']}"
    for transports in (["polling"], ["polling", "websocket"], ["websocket"]):
        listen(base, namespace, token, transports)[0].disconnect()

    # The token in the query and in Authorization, as other clients send it.
    http = requests.Session()
    http.trust_env = False
    polling = f"{base}/socket.io/?EIO=4&transport=polling&token={token}"
    opened = http.get(polling, headers={"Authorization": token}, timeout=10)
    assert opened.status_code == 200 and opened.text.startswith("0"), opened.text
    session = f"{polling}&sid={json.loads(opened.text[1:])['sid']}"
    assert http.post(session, data=f"40{namespace},", timeout=10).status_code == 200
    connected = http.get(session, timeout=10).text
    assert connected.startswith(f"40{namespace},") and '"sid"' in connected, connected

    log = log_path.read_text(errors="replace")
    assert "/socket.io" in log, "the log has the requests, at trace"
    assert token not in log
    assert KEY not in log
