"""Trust, as a person sees it in the browser: an administrator deactivates someone whose open tab
is signed out at once and who cannot sign in again; a server that takes sign-ups by invitation
refuses a stranger with a clear page and lets the invited in; two-step sign-in with an
authenticator app (pyotp stands in for the phone), its recovery codes each working once.
"""

import pathlib
import re
import subprocess
import time

import pyotp
import pytest
from playwright.sync_api import Page, expect

from conftest import (
    PASSWORD, STARTUP_TIMEOUT, _stop, _wait_for_ready_line, create_workspace, invite, invite_path, login,
    logout, path_of, signup, submit, unique_email, unique_name, wait_until_live, wsx_binary,
)

pytestmark = pytest.mark.timeout(300)


def run_wsx(*arguments: str) -> subprocess.CompletedProcess:
    """Runs an operator command of the binary under test."""
    return subprocess.run([str(wsx_binary()), *arguments], capture_output=True, text=True, timeout=60)


def promote(server_data: pathlib.Path, email: str) -> None:
    done = run_wsx("user", "promote", "--email", email, "--data-dir", str(server_data))
    assert done.returncode == 0, done.stderr


def test_an_administrator_deactivates_a_member_whose_open_tab_is_signed_out_at_once(new_context, server_data):
    admin = new_context("ko-KR").new_page()
    admin_email = unique_email("admin")
    signup(admin, admin_email, "관리자")
    promote(server_data, admin_email)
    workspace_name = unique_name("회사")
    workspace_id = create_workspace(admin, workspace_name)

    member = new_context("ko-KR").new_page()
    member_email = unique_email("leaver")
    signup(member, member_email, "퇴사자")
    link = invite(admin, workspace_id, member_email)
    member.goto(invite_path(link))
    with member.expect_navigation():
        member.locator("#accept-invite-form button[type=submit]").click()
    member.goto(f"/w/{workspace_id}")
    wait_until_live(member)

    admin.goto(f"/admin?q={member_email}")
    row = admin.locator(f"#account-table tr[data-state=active]", has_text=member_email)
    expect(row).to_have_count(1)
    with admin.expect_navigation():
        row.get_by_role("button", name="비활성화").click()
    expect(admin.locator("#account-table tr", has_text=member_email)).to_have_attribute("data-state", "deactivated")

    # The member's open tab, untouched, ends up on the login page by itself.
    member.wait_for_url(re.compile(r"/login"), timeout=15_000)
    login(member, member_email)
    expect(member.locator("main .form-error")).to_have_text(
        "이 서버의 관리자가 비활성화한 계정입니다. 다시 쓰려면 관리자에게 문의하세요.")
    assert path_of(member).startswith("/login")


@pytest.fixture
def invite_only_server(tmp_path):
    """A server of its own with the default sign-up policy (by invitation); yields its address."""
    data = tmp_path / "data"
    data.mkdir()
    log = open(tmp_path / "wsx-web.log", "wb")
    process = subprocess.Popen(
        [str(wsx_binary()), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data), "--bcrypt-cost", "4",
         "--link-previews", "off"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        yield _wait_for_ready_line(process, STARTUP_TIMEOUT)
    finally:
        _stop(process)
        log.close()


def test_sign_up_by_invitation_refuses_a_stranger_and_lets_the_invited_in(browser, invite_only_server):
    def fresh(locale="ko-KR") -> Page:
        context = browser.new_context(base_url=invite_only_server, locale=locale,
                                      extra_http_headers={"Accept-Language": f"{locale},ko;q=0.9"})
        context.set_default_timeout(10_000)
        return context.new_page()

    # The server's first account is made on the form, and is its administrator.
    founder = fresh()
    founder_email = unique_email("founder")
    signup(founder, founder_email, "창업자")
    assert path_of(founder) == "/workspaces"
    expect(founder.locator("a.admin-link")).to_have_text("관리")

    stranger = fresh()
    stranger.goto("/signup")
    expect(stranger.locator("#signup-policy")).to_have_text(
        "이 서버는 초대받은 사람만 가입할 수 있습니다. 팀원에게 초대나 워크스페이스 참여 링크를 부탁하세요.")
    expect(stranger.locator("input[name=password_confirm]")).to_have_count(0)

    workspace_id = create_workspace(founder, unique_name("초대팀"))
    invited_email = unique_email("invited")
    link = invite(founder, workspace_id, invited_email)
    invited = fresh()
    invited.goto(invite_path(link))
    # The address is the invited one, fixed in the form.
    expect(invited.locator("#invitation input[name=email]")).to_have_value(invited_email)
    invited.fill("#invitation input[name=nickname]", "새식구")
    invited.fill("#invitation input[name=password]", PASSWORD)
    invited.fill("#invitation input[name=password_confirm]", PASSWORD)
    submit(invited, "#invitation form.stack-form")
    assert path_of(invited) == f"/w/{workspace_id}"
    for context in (founder.context, stranger.context, invited.context):
        context.close()


def test_two_step_sign_in_with_an_authenticator_app_and_a_recovery_code_used_once(new_context):
    page = new_context("ko-KR").new_page()
    email = unique_email("totp")
    signup(page, email, "이단계")
    page.goto("/profile")
    page.get_by_role("link", name="2단계 로그인 관리").click()
    submit(page, "#two-step-start-form")
    expect(page.locator("#two-step-qr svg")).to_be_visible()
    secret = page.locator("#two-step-secret").text_content().replace(" ", "")
    authenticator = pyotp.TOTP(secret)
    assert authenticator.provisioning_uri(email).startswith("otpauth://totp/")
    page.fill("#enable-code", authenticator.now())
    submit(page, "#two-step-enable-form")
    codes = page.locator("#recovery-codes code").all_text_contents()
    assert len(codes) == 10 and len(set(codes)) == 10, codes

    logout(page)
    login(page, email)
    assert path_of(page) == "/login/2fa"
    page.fill("#code", "000000")
    submit(page, "#two-step-form")
    expect(page.locator("#two-step-error")).to_have_text("코드가 맞지 않습니다.")
    # The code of the next 30 seconds (a code already used to turn it on works only once).
    page.fill("#code", authenticator.at(time.time() + 30))
    submit(page, "#two-step-form")
    assert path_of(page) == "/workspaces"

    logout(page)
    login(page, email)
    page.fill("#code", codes[0])
    submit(page, "#two-step-form")
    assert path_of(page) == "/workspaces"
    expect(page.locator(".flash")).to_contain_text("복구 코드로 로그인했습니다.")

    logout(page)
    login(page, email)
    page.fill("#code", codes[0])
    submit(page, "#two-step-form")
    assert path_of(page) == "/login/2fa"
    expect(page.locator("#two-step-error")).to_have_text("코드가 맞지 않습니다.")
