"""The apps' API (`/v1`) as outside tools see it: its OpenAPI document is valid, and
schemathesis, fuzzing every operation the document lists, meets no server error and no answer
the document does not describe (issue 35). A server of its own, with the API on and the
password hashing cheap (`--bcrypt-cost 4`), as the issue says."""

import json
import pathlib
import subprocess
import sys
import urllib.request

import pytest
from openapi_spec_validator import validate

from conftest import STARTUP_TIMEOUT, _stop, _wait_for_ready_line, wsx_binary

KEY = "contract-test-key"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


@pytest.fixture(scope="module")
def api_server(tmp_path_factory):
    """A server with `/v1` on; yields its base URL and its log's path."""
    root = tmp_path_factory.mktemp("api")
    log_path = root / "wsx-web.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(wsx_binary()), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(root / "data"),
             "--bcrypt-cost", "4", "--api-key", KEY, "--signup", "open", "--payments", "sandbox",
             # The fuzzer posts, uploads, invites and signs up in bulk from one address: those
             # limits are lifted by their flags.
             "--post-burst", "0", "--upload-bytes-per-minute", "0", "--searches-per-minute", "0",
             "--invitations-per-hour", "0", "--signup-max-per-ip", "100000", "--workspace-price", "0"],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        yield _wait_for_ready_line(process, STARTUP_TIMEOUT), log_path
    finally:
        _stop(process)


def request(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict | list]:
    headers = {"SesacKey": KEY, "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = token
    data = json.dumps(body).encode() if body is not None else None
    call = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(call, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@pytest.mark.timeout(60)
def test_openapi_document_is_valid_and_lists_every_route(api_server):
    base, _ = api_server
    with urllib.request.urlopen(base + "/v1/openapi.json", timeout=30) as response:
        assert response.status == 200 and response.headers["Content-Type"].startswith("application/json")
        document = json.load(response)
    validate(document)
    assert document["openapi"].startswith("3.1")
    operations = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    for route in [("POST", "/v1/users/join"), ("GET", "/v1/auth/refresh"), ("GET", "/v1/workspaces/{workspace_id}/channels/{channel_id}/chats"),
                  ("POST", "/v1/workspaces/{workspace_id}/dms/{room_id}/chats"), ("POST", "/v1/store/pay/validation"),
                  ("GET", "/v1/static/{bucket}/{file}")]:
        assert route in operations
    # The document needs no key (tools read it first); everything else does.
    status, answer = request(base, "GET", "/v1/users/me")
    assert status == 400 and answer == {"errorCode": "E02"}


@pytest.mark.timeout(900)
def test_schemathesis_meets_no_server_error_and_no_undocumented_answer(api_server, tmp_path):
    base, log_path = api_server
    status, joined = request(base, "POST", "/v1/users/join",
                             {"email": "퍼저@example.com", "password": "Fuzz-pass-1", "nickname": "퍼저", "phone": ""})
    assert status == 200, joined
    token = joined["token"]["accessToken"]
    # Something for the fuzzer to find, in Korean and in English: a workspace, a channel with a chat.
    for team, room, content in (("퍼징 팀", "시험", "첫 글"), ("Fuzzing team", "trials", "The first post")):
        status, workspace = request(base, "POST", "/v1/workspaces", {"name": team}, token)
        assert status == 200, workspace
        status, channel = request(base, "POST", f"/v1/workspaces/{workspace['workspace_id']}/channels", {"name": room}, token)
        assert status == 200, channel
        status, chat = request(base, "POST", f"/v1/workspaces/{workspace['workspace_id']}/channels/{channel['channel_id']}/chats",
                               {"content": content}, token)
        assert status == 200, chat

    st = pathlib.Path(sys.executable).with_name("st")
    result = subprocess.run(
        [str(st), "run", base + "/v1/openapi.json", "--url", base, "--checks", CHECKS, "--max-examples", "20",
         "-H", f"SesacKey: {KEY}", "-H", f"Authorization: {token}", "--no-color"],
        # Its cache of examples goes to a folder of the test's own, not the checkout.
        capture_output=True, text=True, timeout=840, cwd=tmp_path)
    report = result.stdout[-6000:] + result.stderr[-2000:]
    assert result.returncode == 0, report
    assert "passed" in result.stdout, report
    assert "API request failed" not in log_path.read_text(errors="replace"), "the server logged a failed request"
