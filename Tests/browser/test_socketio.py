"""The apps' live updates over Socket.IO (issue 35), with a real client: python-socketio joins a
channel's namespace with an access token (long-polling) and receives `channel` for a post from
the web and for one from an app, the sender's own included; a non-member is refused; a member
removed from the channel is disconnected."""

import queue
import re
import subprocess

import pytest
import requests
import socketio

from conftest import STARTUP_TIMEOUT, _stop, _wait_for_ready_line, wsx_binary
from test_api_contract import KEY, request

PASSWORD = "Socket-pass-1"


@pytest.fixture(scope="module")
def api_base(tmp_path_factory):
    root = tmp_path_factory.mktemp("socketio")
    with open(root / "wsx-web.log", "wb") as log:
        process = subprocess.Popen(
            [str(wsx_binary()), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(root / "data"),
             "--bcrypt-cost", "4", "--api-key", KEY, "--signup", "open", "--workspace-price", "0"],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
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


def listen(base: str, namespace: str, token: str) -> tuple[socketio.Client, "queue.Queue[dict]"]:
    """A client joined to `namespace` (polling, as the apps' library starts), and what it hears."""
    heard: "queue.Queue[dict]" = queue.Queue()
    client = socketio.Client(reconnection=False)
    client.on("channel", heard.put, namespace=namespace)
    client.on("dm", heard.put, namespace=namespace)
    client.on("disconnect", lambda *_: heard.put({"disconnected": True}), namespace=namespace)
    client.connect(base, namespaces=[namespace], transports=["polling"], auth={"token": token}, wait_timeout=10)
    return client, heard


@pytest.mark.timeout(120)
def test_channel_events_reach_members_and_no_one_else(api_base):
    owner_token, owner = join(api_base, "소켓주인@example.com", "소켓 주인")
    member_token, member = join(api_base, "socket-member@example.com", "멤버")
    outsider_token, _ = join(api_base, "socket-outsider@example.com", "외부인")
    status, workspace = request(api_base, "POST", "/v1/workspaces", {"name": "실시간 팀"}, owner_token)
    assert status == 200, workspace
    wid = workspace["workspace_id"]
    # The member joins as people do: the owner invites them on the members page (no mail here:
    # it shows the link) and they accept it.
    web = WebBrowser(api_base, "소켓주인@example.com")
    workspace_id = re.search(r'href="/w/(\d+)"', web.page("/workspaces")).group(1)
    invited = web.submit(f"/w/{workspace_id}/members", {"email": "socket-member@example.com"})
    link = re.search(r"/invite/[A-Za-z0-9_-]{43}", invited.text).group(0)
    member_web = WebBrowser(api_base, "socket-member@example.com")
    accept = re.search(r'id="accept-invite-form"', member_web.page(link)) and \
        re.search(r'action="([^"]+)" class="inline-form" id="accept-invite-form"', member_web.page(link)).group(1)
    member_web.submit(accept, {}, page=link)
    status, channel = request(api_base, "POST", f"/v1/workspaces/{wid}/channels", {"name": "소식"}, owner_token)
    assert status == 200, channel
    namespace = f"/ws-channel-{channel['channel_id']}"

    owner_client, heard = listen(api_base, namespace, owner_token)
    try:
        status, posted = request(api_base, "POST", f"/v1/workspaces/{wid}/channels/{channel['channel_id']}/chats",
                                 {"content": "앱에서 보낸 글"}, owner_token)
        assert status == 200, posted
        chat = heard.get(timeout=15)
        assert chat["chat_id"] == posted["chat_id"] and chat["content"] == "앱에서 보낸 글", "the sender's own post comes back"
        assert chat["channel_id"] == channel["channel_id"] and chat["channelName"] == "소식"
        assert chat["user"]["user_id"] == owner["user_id"]

        # The member reads the channel (which joins it) and listens too; a post from the web
        # reaches both, and so does one from the member's app.
        status, _ = request(api_base, "GET", f"/v1/workspaces/{wid}/channels/{channel['channel_id']}/chats", token=member_token)
        assert status == 200
        member_client, member_heard = listen(api_base, namespace, member_token)
        channel_id = re.search(r'data-room-name="(\d+)">소식</a>', web.page(f"/w/{workspace_id}/channels")).group(1)
        web.submit(f"/w/{workspace_id}/c/{channel_id}/messages", {"content": "웹에서 보낸 글"}, page=f"/w/{workspace_id}/c/{channel_id}")
        assert heard.get(timeout=15)["content"] == "웹에서 보낸 글"
        assert member_heard.get(timeout=15)["content"] == "웹에서 보낸 글"
        status, _ = request(api_base, "POST", f"/v1/workspaces/{wid}/channels/{channel['channel_id']}/chats",
                            {"content": "멤버의 글"}, member_token)
        assert status == 200
        assert heard.get(timeout=15)["user"]["user_id"] == member["user_id"]
        assert member_heard.get(timeout=15)["content"] == "멤버의 글", "the sender's own post comes back"

        # Removed from the workspace (so from the channel): the member's socket is disconnected.
        member_id = re.search(r'action="/w/' + workspace_id + r'/members/(\d+)/remove"', web.page(f"/w/{workspace_id}/members")).group(1)
        web.submit(f"/w/{workspace_id}/members/{member_id}/remove", {"confirm": "yes"}, page=f"/w/{workspace_id}/members")
        assert member_heard.get(timeout=15) == {"disconnected": True}
        member_client.disconnect()

        with pytest.raises(socketio.exceptions.ConnectionError):
            listen(api_base, namespace, outsider_token)[0].disconnect()
        with pytest.raises(socketio.exceptions.ConnectionError):
            listen(api_base, namespace, "not-a-token")[0].disconnect()
        with pytest.raises(socketio.exceptions.ConnectionError):
            listen(api_base, f"/ws-channel-000000000000000000000000", owner_token)[0].disconnect()
    finally:
        owner_client.disconnect()
