"""A Slack export imported with `wsx-web import slack` into the data folder of the running server,
seen in Korean without a restart: the channels in the sidebar, #general with its formatting,
link, picture, the line standing for a file the export did not hold, reactions and a thread;
then a person who had no account here follows their invitation, chooses a password on the
claim form (a mismatch is refused first), and lands in the workspace signed in."""

import pathlib
import re
import subprocess
import uuid
import zipfile

from playwright.sync_api import Page, expect

from conftest import (REPO, invite_path, login, messages_with, path_of, signup, submit, wsx_binary)
from test_accessibility import serious_violations

EXPORT = REPO / "Tests" / "Fixtures" / "slack-export"
OWNER_EMAIL = "mina@example.com"  # U01MINA in the export's users.json
OWNER_PASSWORD = "correct horse battery"
INVITED_EMAIL = "jiho@example.com"  # U03JIHO: no account here, so imported without a password
INVITED_PASSWORD = "jiho's new password"


def zip_export(target: pathlib.Path) -> pathlib.Path:
    """The fixture folder as Slack's export zip: every file, named relative to the folder."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(EXPORT.rglob("*")):
            if file.is_file():
                archive.write(file, file.relative_to(EXPORT).as_posix())
    return target


def sign_up_or_in(page: Page, email: str, nickname: str, password: str) -> None:
    """Signs up; when the address has an account already (the test ran before in this
    session), signs in instead."""
    response = signup(page, email, nickname, password)
    if path_of(page).startswith("/signup"):
        expect(page.locator("main")).to_contain_text("이미 가입된 이메일입니다.")
        response = login(page, email, password)
    assert response is not None and response.status == 200, response and response.status
    expect(page.locator("a.viewer-name")).to_have_text(nickname)


def import_export(archive: pathlib.Path, workspace: str, data: pathlib.Path) -> str:
    """Runs the import against the running server's data folder; returns what it printed."""
    result = subprocess.run(
        [str(wsx_binary()), "import", "slack", str(archive), "--workspace", workspace, "--owner", OWNER_EMAIL,
         "--data-dir", str(data)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "the server running on" in result.stdout, result.stdout
    return result.stdout


def collect_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    return errors


def test_import_a_slack_export_into_the_running_server_and_claim_an_account(new_context, server_data, tmp_path):
    archive = zip_export(tmp_path / "slack-export.zip")
    workspace_name = f"Slack 가져오기 {uuid.uuid4().hex[:8]}"

    mina = new_context("ko-KR").new_page()
    errors = collect_errors(mina)
    sign_up_or_in(mina, OWNER_EMAIL, "민아", OWNER_PASSWORD)

    output = import_export(archive, workspace_name, server_data)
    printed = re.search(r'into workspace (\d+) "', output)
    assert printed, output

    # The workspace is there without a restart, with the export's channels.
    mina.goto("/workspaces")
    with mina.expect_navigation():
        mina.locator("main").get_by_role("link", name=workspace_name, exact=True).click()
    assert path_of(mina) == f"/w/{printed.group(1)}"
    workspace = int(printed.group(1))
    channels = mina.locator("#sidebar-channels")
    for name in ("general", "개발", "leadership"):
        expect(channels.locator(".room-name", has_text=re.compile(f"^{name}$"))).to_have_count(1)
    expect(mina.locator("#sidebar-archived .room-name", has_text="random")).to_have_count(1)

    # #general: Slack's formatting, link, picture, missing file, reactions and thread.
    with mina.expect_navigation():
        channels.get_by_role("link", name="general").click()
    assert re.fullmatch(rf"/w/{workspace}/c/\d+", path_of(mina)), mina.url
    welcome = messages_with(mina, "안녕하세요 여러분!")
    expect(welcome.locator(".message-body")).to_have_text("안녕하세요 여러분! 환영합니다 👋")
    expect(welcome.locator(".message-body strong")).to_have_text("환영합니다")
    checklist = messages_with(mina, "Release checklist")
    expect(checklist.get_by_role("link", name="the wiki")).to_have_attribute("href", "https://example.com/wiki/release")
    picture = messages_with(mina, "화이트보드 사진").locator("img.thumbnail")
    expect(picture).to_have_attribute("alt", "whiteboard.jpg")
    picture.scroll_into_view_if_needed()
    expect(picture).to_be_visible()
    mina.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=picture.element_handle())
    expect(messages_with(mina, "설계안 공유합니다")).to_contain_text("📎 설계안.pdf — 내보낸 파일에 들어 있지 않습니다")
    chips = checklist.locator("form.reactions button.reaction")
    expect(chips).to_have_count(2)  # the custom :partyparrot: is not kept
    expect(chips.nth(0)).to_have_text("👍 2")
    expect(chips.nth(1)).to_have_text("🎉 1")
    summary = checklist.locator(".thread-summary")
    expect(summary.locator(".thread-count .local-text[lang=ko]")).to_have_text("답글 2개")

    # The thread, in the side panel.
    summary.click()
    frame = mina.frame_locator("#thread-panel iframe")
    expect(frame.locator("#thread-divider")).to_have_text("답글 2개")
    expect(frame.locator("#message-list li.message").first).to_contain_text("Release checklist")
    expect(frame.locator("#message-list li.message", has_text="확인했어요")).to_have_count(1)

    # The invitation of 이지호, who had no account here, on the members page with its link.
    mina.goto(f"/w/{workspace}/members")
    row = mina.locator("#pending-invites li", has_text=INVITED_EMAIL)
    expect(row).to_have_count(1)
    link = row.locator("input[readonly]").input_value()

    # 이지호 follows it signed out: the claim form, naming them.
    jiho = new_context("ko-KR").new_page()
    errors += collect_errors(jiho)
    jiho.goto(invite_path(link))
    form = jiho.locator("form#claim-form")
    expect(form).to_be_visible()
    expect(jiho.locator("#invitation")).to_contain_text("이지호")
    expect(jiho.locator("#invitation .invite-workspace")).to_have_text(workspace_name)
    expect(form.locator("#claim-email")).to_have_value(INVITED_EMAIL)
    expect(jiho.locator("#invitation input[name=nickname]")).to_have_count(0)  # not the sign-up form
    problems = serious_violations(jiho)
    assert not problems, "\n".join(problems)

    # Passwords that do not match: refused, and nobody is signed in.
    form.locator("input[name=password]").fill(INVITED_PASSWORD)
    form.locator("input[name=password_confirm]").fill(INVITED_PASSWORD + "!")
    response = submit(jiho, "form#claim-form")
    assert response is not None and response.status == 422, response and response.status
    expect(form.locator(".field-error")).to_have_text("비밀번호 확인이 일치하지 않습니다.")
    expect(jiho.locator("a.viewer-name")).to_have_count(0)
    assert "signed-in" not in (jiho.locator("body").get_attribute("class") or "")
    problems = serious_violations(jiho)
    assert not problems, "\n".join(problems)

    # A good one: in the workspace, signed in as 이지호.
    form.locator("input[name=password]").fill(INVITED_PASSWORD)
    form.locator("input[name=password_confirm]").fill(INVITED_PASSWORD)
    response = submit(jiho, "form#claim-form")
    assert response is not None and response.status == 200, response and response.status
    assert path_of(jiho) == f"/w/{workspace}", jiho.url
    expect(jiho.locator("a.viewer-name")).to_have_text("이지호")
    expect(jiho.locator("main p.flash[role=status]")).to_contain_text("워크스페이스에 참여했습니다.")
    with jiho.expect_navigation():
        jiho.locator("#sidebar-channels").get_by_role("link", name="개발").click()
    expect(messages_with(jiho, "코드 리뷰 부탁드려요")).to_have_count(1)

    # The invitation is used: no longer pending.
    mina.goto(f"/w/{workspace}/members")
    expect(mina.locator("#pending-invites li", has_text=INVITED_EMAIL)).to_have_count(0)

    assert not errors, "\n".join(errors)
