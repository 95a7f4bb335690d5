"""Workspaces as people see them in the browser: creating one (and running out of coins), inviting
an existing account and an unknown address, handing the workspace over and leaving it, and the live
notices on open pages when a channel is renamed or deleted or a member is removed."""

import re
import uuid
from urllib.parse import urlparse

from playwright.sync_api import Page, expect

from conftest import (
    PASSWORD, create_workspace, invite, not_reloaded, path_of, signup, submit, unique_email,
    unique_name, wait_until_live,
)

NOT_FOUND_TITLE = "Page not found"


# ---------------------------------------------------------------------------------------------
# Helpers: what a person does


def id_in_path(page: Page, pattern: str) -> int:
    match = re.search(pattern, path_of(page))
    assert match, f"{pattern} not in {page.url}"
    return int(match.group(1))


def workspace_id_of(page: Page) -> int:
    return id_in_path(page, r"^/w/(\d+)")


def channel_id_of(page: Page) -> int:
    return id_in_path(page, r"^/w/\d+/c/(\d+)")


def flash(page: Page):
    return page.locator("main .flash")


def confirm(page: Page, heading: str):
    """On the confirmation page: checks what it asks, then presses its button."""
    expect(page.locator("main h1")).to_have_text(heading)
    return submit(page, "#confirm-form")


def channel_title(name: str) -> re.Pattern:
    """A channel page's header text: the name, possibly after a "#" sigil."""
    return re.compile(rf"^#?\s*{re.escape(name)}$")


def create_channel(page: Page, workspace_id: int, name: str) -> int:
    page.goto(f"/w/{workspace_id}/channels")
    page.fill("#create-channel-form input[name=name]", name)
    submit(page, "#create-channel-form")
    expect(page.locator("h1")).to_have_text(channel_title(name))
    return channel_id_of(page)


def join_channel(page: Page, workspace_id: int, channel_id: int) -> None:
    page.goto(f"/w/{workspace_id}/channels")
    with page.expect_navigation():
        page.locator(f"#channel-directory li[data-channel='{channel_id}'] button[type=submit]").click()
    assert path_of(page) == f"/w/{workspace_id}/c/{channel_id}"


def default_channel_link(page: Page, workspace_id: int, name: str = "general"):
    """The default channel's link on the workspace home (opens the home page)."""
    page.goto(f"/w/{workspace_id}")
    return page.locator("#home-channels a", has_text=name)


def notice_of(page: Page):
    """The notice a form leaves on the members page (not the hidden live notice)."""
    return page.locator("main p.notice[role=status]")


def member_row(page: Page, email: str):
    return page.locator("#member-table tbody tr", has_text=email)


def sidebar_workspace(page: Page, workspace_id: int):
    return page.locator(f"#sidebar .workspace-list a[data-workspace-name='{workspace_id}']")


def owner_with_workspace_and_member(new_context, prefix: str):
    """A signs up and creates a workspace; B (an existing account) is invited by email.
    Returns (a_page, b_page, workspace_id, workspace_name, b_email)."""
    a = new_context("en-US").new_page()
    signup(a, unique_email(f"{prefix}-a"), "Alice")
    b_email = unique_email(f"{prefix}-b")
    b = new_context("en-US").new_page()
    signup(b, b_email, "Bob")
    name = unique_name("Team")
    workspace_id = create_workspace(a, name)
    invite(a, workspace_id, b_email)
    expect(notice_of(a)).to_have_text("Bob was added to the workspace.")
    return a, b, workspace_id, name, b_email


# ---------------------------------------------------------------------------------------------
# The scenario


def test_invite_transfer_ownership_and_leave(new_context):
    a = new_context("en-US").new_page()
    a_email = unique_email("founder")
    signup(a, a_email, "Alice")
    b = new_context("en-US").new_page()
    b_email = unique_email("successor")
    signup(b, b_email, "Bob")

    # A creates a workspace and lands on its home, with the default channel.
    name = unique_name("Acme")
    workspace_id = create_workspace(a, name, "Where Acme talks")
    expect(flash(a)).to_have_text("Workspace created.")
    expect(a.locator("main h1")).to_have_text(name)
    expect(a.locator("#home-channels a")).to_have_text(["general"])
    expect(sidebar_workspace(a, workspace_id)).to_have_text(name)
    expect(a.locator(f"a[href='/w/{workspace_id}/audit']")).to_be_visible()

    # A invites B, who already has an account: B is a member at once.
    invite(a, workspace_id, b_email)
    expect(notice_of(a)).to_have_text("Bob was added to the workspace.")
    expect(member_row(a, b_email)).to_contain_text("Member")
    expect(member_row(a, a_email)).to_contain_text("Owner")
    expect(a.locator("#invite-link")).to_have_count(0)

    # B sees the workspace in the sidebar, and its default channel.
    b.goto("/workspaces")
    expect(sidebar_workspace(b, workspace_id)).to_have_text(name)
    with b.expect_navigation():
        sidebar_workspace(b, workspace_id).click()
    expect(b.locator("main h1")).to_have_text(name)
    general = b.locator("#home-channels a", has_text="general")
    expect(general).to_have_count(1)
    with b.expect_navigation():
        general.click()
    general_id = channel_id_of(b)
    expect(b.locator("h1")).to_have_text(channel_title("general"))
    expect(b.locator("#sidebar-channels a", has_text="general")).to_be_visible()

    # B is a plain member: no invite form, no activity log, no say over the default channel.
    b.goto(f"/w/{workspace_id}/members")
    expect(b.locator("#member-table")).to_be_visible()
    expect(b.locator("#invite-form")).to_have_count(0)
    assert b.goto(f"/w/{workspace_id}/audit").status == 403
    b.goto(f"/w/{workspace_id}/c/{general_id}/settings")
    expect(b.locator("#channel-settings-form")).to_have_count(0)

    # A hands the workspace to B through the settings page and the confirmation page.
    a.goto(f"/w/{workspace_id}/settings")
    expect(a.locator("#workspace-settings-form")).to_be_visible()
    a.locator("#workspace-transfer-form select[name=owner_id]").select_option(label="Bob")
    submit(a, "#workspace-transfer-form")
    confirm(a, f"Transfer “{name}” to Bob?")
    assert path_of(a) == f"/w/{workspace_id}/settings"
    expect(flash(a)).to_have_text("Ownership transferred.")
    expect(a.locator("#workspace-settings-form")).to_have_count(0)
    expect(a.locator("#workspace-transfer-form")).to_have_count(0)
    expect(a.locator(f"form[action='/w/{workspace_id}/leave'] button")).to_be_visible()

    # B now owns it: the invite form, the activity log, and the default channel's settings.
    b.goto(f"/w/{workspace_id}/members")
    expect(b.locator("#invite-form")).to_be_visible()
    expect(member_row(b, b_email)).to_contain_text("Owner")
    expect(member_row(b, a_email)).to_contain_text("Member")
    b.goto(f"/w/{workspace_id}")
    expect(b.locator(f"a[href='/w/{workspace_id}/audit']")).to_be_visible()
    audit = b.goto(f"/w/{workspace_id}/audit")
    assert audit.status == 200
    expect(b.locator("main h1")).to_have_text("Activity log")
    expect(b.locator("#audit-table")).to_contain_text("transferred ownership")
    expect(b.locator("#audit-table")).to_contain_text("invited")
    b.goto(f"/w/{workspace_id}/c/{general_id}/settings")
    expect(b.locator("#channel-settings-form")).to_be_visible()
    b.goto(f"/w/{workspace_id}/settings")
    expect(b.locator("#workspace-settings-form")).to_be_visible()

    # The default channel moved with the workspace: A can no longer manage it.
    a.goto(f"/w/{workspace_id}/c/{general_id}/settings")
    expect(a.locator("#channel-settings-form")).to_have_count(0)

    # A leaves through the confirmation page and no longer sees the workspace.
    a.goto(f"/w/{workspace_id}/settings")
    with a.expect_navigation():
        a.locator(f"form[action='/w/{workspace_id}/leave'] button[type=submit]").click()
    confirm(a, f"Leave the workspace “{name}”?")
    assert path_of(a) == "/workspaces"
    expect(flash(a)).to_have_text("You left the workspace.")
    expect(sidebar_workspace(a, workspace_id)).to_have_count(0)
    expect(a.locator(f"main a[href='/w/{workspace_id}']")).to_have_count(0)
    gone = a.goto(f"/w/{workspace_id}")
    assert gone.status == 404
    expect(a.locator("main h1")).to_have_text(NOT_FOUND_TITLE)

    # B's member list has only B left.
    b.goto(f"/w/{workspace_id}/members")
    expect(b.locator("#member-table tbody tr")).to_have_count(1)
    expect(member_row(b, a_email)).to_have_count(0)


# ---------------------------------------------------------------------------------------------
# Coins


def test_a_second_workspace_needs_more_coins(page: Page):
    signup(page, unique_email("thrifty"), "Thrifty")
    first = unique_name("First")
    create_workspace(page, first)

    page.goto("/workspaces")
    expect(page.locator("#new-workspace p.hint")).to_have_text("Creating a workspace costs 10 coins. You have 0.")
    second = unique_name("Second")
    page.fill("#create-workspace-form input[name=name]", second)
    response = submit(page, "#create-workspace-form")
    assert response.status == 402, response.status

    message = page.locator("#new-workspace .form-error")
    expect(message).to_contain_text("Not enough coins: it costs 10 and you have 0.")
    expect(message.locator("a[href='/store']")).to_have_text("Go to the coin store")
    expect(page.locator("#create-workspace-form input[name=name]")).to_have_value(second)
    # Nothing was created.
    page.goto("/workspaces")
    expect(page.locator(".workspace-cards li")).to_have_count(1)
    expect(page.locator(".workspace-cards li")).to_have_text(first)
    expect(page.locator("#sidebar .workspace-list li")).to_have_count(1)


# ---------------------------------------------------------------------------------------------
# Invitation links


def invite_unknown_address(new_context):
    """A creates a workspace and invites an address without an account; returns
    (a_page, workspace_id, workspace_name, invited_email, link_text)."""
    a = new_context("en-US").new_page()
    signup(a, unique_email("inviter"), "Inviter")
    name = unique_name("Open")
    workspace_id = create_workspace(a, name)
    invited = unique_email("newcomer")
    invite(a, workspace_id, invited)
    expect(a.locator(".invite-link")).to_contain_text(
        "This address has no account yet. Send them this link; it works once, for 7 days.")
    link = a.locator("code#invite-link")
    expect(link).to_have_text(re.compile(r"^https?://[^/\s]+/invite/[A-Za-z0-9_-]+$"))
    expect(member_row(a, invited)).to_have_count(0)
    return a, workspace_id, name, invited, link.text_content()


def test_an_invite_link_signs_up_and_joins_once(new_context):
    a, workspace_id, name, invited, link = invite_unknown_address(new_context)
    invite_path = urlparse(link).path  # the exact address is checked in the next test

    newcomer = new_context("en-US").new_page()
    newcomer.goto(invite_path)
    email = newcomer.locator("main form input[name=email]")
    expect(email).to_have_value(invited)
    expect(email).to_have_attribute("readonly", "")
    expect(newcomer.locator("main form")).to_have_attribute("action", invite_path)

    newcomer.fill("input[name=nickname]", "Newcomer")
    newcomer.fill("input[name=password]", PASSWORD)
    newcomer.fill("input[name=password_confirm]", PASSWORD)
    submit(newcomer, "main form")
    assert path_of(newcomer) == f"/w/{workspace_id}"
    expect(flash(newcomer)).to_have_text("You joined the workspace.")
    expect(newcomer.locator("main h1")).to_have_text(name)
    expect(newcomer.locator("#home-channels a")).to_have_text(["general"])
    expect(newcomer.locator(".topbar .viewer-name")).to_have_text("Newcomer")

    # The inviter sees the new member.
    a.goto(f"/w/{workspace_id}/members")
    expect(member_row(a, invited)).to_contain_text("Newcomer")

    # The link worked once: neither the new member nor anybody else can use it again.
    again = newcomer.goto(invite_path)
    assert again.status == 404
    expect(newcomer.locator("main")).to_contain_text(
        "This invitation has expired or was already used. Ask the person who invited you for a new one.")
    stranger = new_context("en-US").new_page()
    again = stranger.goto(invite_path)
    assert again.status == 404
    expect(stranger.locator("main")).to_contain_text("This invitation has expired or was already used.")
    expect(stranger.locator("main input[name=email]")).to_have_count(0)


def test_the_invite_link_shown_opens_in_a_browser(new_context, server):
    """The link is what the inviter copies into an email: opened exactly as shown, it must reach
    this server's sign-up form."""
    _, _, _, invited, link = invite_unknown_address(new_context)
    assert urlparse(link).port == urlparse(server).port, f"invite link {link!r} does not point at {server}"
    newcomer = new_context("en-US").new_page()
    response = newcomer.goto(link)
    assert response is not None and response.status == 200
    expect(newcomer.locator("main form input[name=email]")).to_have_value(invited)


# ---------------------------------------------------------------------------------------------
# Live updates


def test_renamed_channel_and_removed_member_update_open_pages(new_context):
    a, b, workspace_id, name, b_email = owner_with_workspace_and_member(new_context, "live")
    channel_id = create_channel(a, workspace_id, "planning")
    join_channel(b, workspace_id, channel_id)
    expect(b.locator("h1")).to_have_text(channel_title("planning"))
    wait_until_live(b)

    # A renames the channel; B's open page follows without a reload.
    a.goto(f"/w/{workspace_id}/c/{channel_id}/settings")
    a.fill("#channel-settings-form input[name=name]", "roadmap")
    submit(a, "#channel-settings-form")
    expect(flash(a)).to_have_text("Channel saved.")
    expect(b.locator("h1")).to_have_text(channel_title("roadmap"))
    expect(b.locator(f"#sidebar-channels [data-room-name='{channel_id}']")).to_have_text("roadmap")
    assert not_reloaded(b)

    # B looks at the workspace home; A removes B.
    b.goto(f"/w/{workspace_id}")
    expect(b.locator("main h1")).to_have_text(name)
    wait_until_live(b)
    a.goto(f"/w/{workspace_id}/members")
    with a.expect_navigation():
        member_row(a, b_email).locator("button[type=submit]", has_text="Remove").click()
    confirm(a, "Remove Bob from the workspace?")
    expect(flash(a)).to_have_text("Member removed.")
    expect(member_row(a, b_email)).to_have_count(0)

    notice = b.locator("#page-gone")
    expect(notice).to_be_visible()
    expect(notice).to_have_text("You are no longer a member of this workspace.")
    expect(sidebar_workspace(b, workspace_id)).to_have_count(0)
    assert not_reloaded(b) and path_of(b) == f"/w/{workspace_id}"
    # And on reload, the workspace is gone for B.
    assert b.reload().status == 404
    expect(b.locator("main h1")).to_have_text(NOT_FOUND_TITLE)


def test_deleted_channel_says_so_on_open_pages(new_context):
    a, b, workspace_id, _, _ = owner_with_workspace_and_member(new_context, "gone")
    channel_id = create_channel(a, workspace_id, "release")
    join_channel(b, workspace_id, channel_id)
    room_link = b.locator(f"#sidebar-channels [data-room-name='{channel_id}']")
    expect(room_link).to_have_text("release")
    expect(b.locator("#page-gone")).to_be_hidden()
    wait_until_live(b)

    a.goto(f"/w/{workspace_id}/c/{channel_id}/settings")
    with a.expect_navigation():
        a.locator(f"form[action='/w/{workspace_id}/c/{channel_id}/delete'] button[type=submit]").click()
    confirm(a, "Delete the channel “release”?")
    assert path_of(a) == f"/w/{workspace_id}"
    expect(flash(a)).to_have_text("Channel deleted.")

    notice = b.locator("#page-gone")
    expect(notice).to_be_visible()
    expect(notice).to_have_text("This channel was deleted.")
    expect(room_link).to_have_count(0)
    expect(b.locator("#sidebar-channels a", has_text="general")).to_be_visible()
    assert not_reloaded(b) and path_of(b) == f"/w/{workspace_id}/c/{channel_id}"
    # Reloaded, the channel is not there any more.
    assert b.reload().status == 404


# ---------------------------------------------------------------------------------------------
# Korean


def test_korean_creator_gets_the_default_channel_named_in_korean(new_context):
    owner = new_context("ko-KR").new_page()
    signup(owner, unique_email("hangul"), "김민수")
    expect(owner.locator("html")).to_have_attribute("lang", "ko")
    name = unique_name("우리 팀")
    workspace_id = create_workspace(owner, name)
    expect(owner.locator("main h1")).to_have_text(name)
    expect(owner.locator("#home-channels a")).to_have_text(["일반"])
    expect(owner.locator("#sidebar-channels a")).to_have_text(["일반"])

    # The stored name is "일반": an English-speaking member sees the same channel name.
    member_email = unique_email("english")
    member = new_context("en-US").new_page()
    signup(member, member_email, "Emma")
    invite(owner, workspace_id, member_email)
    expect(member_row(owner, member_email)).to_have_count(1)
    expect(default_channel_link(member, workspace_id, "일반")).to_have_count(1)
    expect(member.locator("#home-channels a")).to_have_text(["일반"])
