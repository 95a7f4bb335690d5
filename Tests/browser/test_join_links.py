"""The owner's side of getting people in, in Korean at phone and desktop widths: a pending
invitation's link copied with its button, revoked with a form; a join link made with an expiry
and a use limit, copied, and used by someone new in one click after signing up through it."""

import pytest
from playwright.sync_api import expect

from conftest import create_workspace, invite, set_width, signup, submit, unique_email, unique_name


@pytest.mark.parametrize("width", [390, 1280])
def test_invitations_and_join_link(new_context, server, width):
    owner_context = new_context("ko-KR")
    owner_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    owner = owner_context.new_page()
    set_width(owner, width)
    signup(owner, unique_email("owner"), "민아")
    name = unique_name("디자인팀")
    workspace = create_workspace(owner, name)

    # A pending invitation: listed with its link, copied by its button, then revoked.
    guest = unique_email("guest")
    link = invite(owner, workspace, guest)
    owner.goto(f"/w/{workspace}/members")
    row = owner.locator("#pending-invites li", has_text=guest)
    expect(row.locator("input[readonly]")).to_have_value(link)
    row.get_by_role("button", name="링크 복사").click()
    expect(row.locator(".copy-button")).to_have_text("복사했습니다")
    assert owner.evaluate("navigator.clipboard.readText()") == link
    with owner.expect_navigation():
        row.get_by_role("button", name="초대 취소").click()
    expect(owner.locator("p.notice[role=status]")).to_contain_text("초대를 취소했습니다")
    expect(owner.locator("#pending-invites li", has_text=guest)).to_have_count(0)

    # A join link for two people, for 30 days.
    owner.select_option("#join-expiry", "30d")
    owner.fill("#join-max-uses", "2")
    submit(owner, "#join-link-form")
    expect(owner.locator("p.notice[role=status]")).to_have_text("참여 링크를 만들었습니다.")
    expect(owner.locator("#join-link p.hint")).to_contain_text("2번 중 0번 사용")
    join_url = owner.input_value("#join-link-url")
    owner.locator("#join-link .copy-button").click()
    assert owner.evaluate("navigator.clipboard.readText()") == join_url

    # Someone new opens it signed out, signs up through it, and is in: signing up was the click.
    newcomer = new_context("ko-KR").new_page()
    set_width(newcomer, width)
    newcomer.goto(join_url)
    expect(newcomer.locator(".invite-workspace")).to_have_text(name)
    expect(newcomer.locator(".invite-from")).to_have_text("민아님이 참여 링크를 공유했습니다")
    with newcomer.expect_navigation():
        newcomer.get_by_role("link", name="가입하고 참여하기").click()
    newcomer.fill("input[name=email]", unique_email("new"))
    newcomer.fill("input[name=nickname]", "준")
    newcomer.fill("input[name=password]", "correct horse battery")
    newcomer.fill("input[name=password_confirm]", "correct horse battery")
    submit(newcomer)
    assert newcomer.url.endswith(f"/w/{workspace}"), newcomer.url
    expect(newcomer.locator(".flash")).to_be_visible()
    owner.goto(f"/w/{workspace}/members")
    expect(owner.locator("#member-table")).to_contain_text("준")
    expect(owner.locator("#join-link p.hint")).to_contain_text("2번 중 1번 사용")
    # Nothing sideways on a phone.
    assert owner.evaluate("document.documentElement.scrollWidth") <= width
