"""Workspaces as people see them in the browser: creating one (and running out of coins), inviting
an existing account and an unknown address (an invitation waits until its person joins or declines
it, and arrives live on their workspaces page), handing the workspace over and leaving it, and the
live notices on open pages when a channel is renamed or deleted or a member is removed."""

import pytest
import re
import uuid
from urllib.parse import urlparse

from playwright.sync_api import Page, expect

from conftest import (
    PASSWORD, add_member, confirm_address, create_workspace, invite, invite_path, mark_document, not_reloaded, path_of, signup, submit,
    unique_email, unique_name, wait_until_live,
)

NOT_FOUND_TITLE = "Page not found"
INVITATION_READY = ("Invitation ready. Send this link to the person; they can join or decline it within 7 days. "
                    "If they have an account, it also waits on their workspaces page.")
INVITATION_GONE = "This invitation has expired or was already used. Ask the person who invited you for a new one."


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


def invitation_notice(page: Page):
    """What the members page answers an invitation with: the notice with the link to pass on."""
    return page.locator("main .notice.invite-link[role=status]")


def member_row(page: Page, email: str):
    return page.locator("#member-table tbody tr", has_text=email)


def sidebar_workspace(page: Page, workspace_id: int):
    return page.locator(f"#sidebar .workspace-list a[data-workspace-name='{workspace_id}']")


def pending_invitations(page: Page):
    """The "Invitations for you" list on /workspaces."""
    return page.locator("#pending-invitations")


def pending_invitation(page: Page, workspace_name: str):
    return page.locator("#pending-invitations .invitation-list li", has_text=workspace_name)


def owner_with_workspace_and_member(new_context, prefix: str):
    """A signs up and creates a workspace; B (an existing account) is invited by email and joins.
    Returns (a_page, b_page, workspace_id, workspace_name, b_email)."""
    a = new_context("en-US").new_page()
    signup(a, unique_email(f"{prefix}-a"), "Alice")
    b_email = unique_email(f"{prefix}-b")
    b = new_context("en-US").new_page()
    signup(b, b_email, "Bob")
    name = unique_name("Team")
    workspace_id = create_workspace(a, name)
    add_member(a, workspace_id, b, b_email)
    return a, b, workspace_id, name, b_email


# ---------------------------------------------------------------------------------------------
# The scenario


def test_invite_transfer_ownership_and_leave(new_context, server_data):
    a = new_context("en-US").new_page()
    a_email = unique_email("founder")
    signup(a, a_email, "Alice")
    b = new_context("en-US").new_page()
    b_email = unique_email("successor")
    signup(b, b_email, "Bob")
    # Invitations wait on the workspaces page for a confirmed address (no mail here: the
    # operator vouches for it).
    confirm_address(server_data, b_email)

    # A creates a workspace and lands on its home, with the default channel.
    name = unique_name("Acme")
    workspace_id = create_workspace(a, name, "Where Acme talks")
    expect(flash(a)).to_have_text("Workspace created.")
    expect(a.locator("main h1")).to_have_text(name)
    expect(a.locator("#home-channels a")).to_have_text(["general"])
    expect(sidebar_workspace(a, workspace_id)).to_have_text(name)
    expect(a.locator(f"a[href='/w/{workspace_id}/audit']")).to_be_visible()

    # A invites B, who already has an account: the invitation waits for B.
    invite(a, workspace_id, b_email)
    expect(invitation_notice(a).locator("p").first).to_have_text(INVITATION_READY)
    expect(member_row(a, a_email)).to_contain_text("Owner")
    expect(member_row(a, b_email)).to_have_count(0)

    # B finds it on the workspaces page and joins.
    b.goto("/workspaces")
    expect(sidebar_workspace(b, workspace_id)).to_have_count(0)
    invitation = pending_invitation(b, name)
    expect(invitation).to_contain_text("Alice invited you")
    with b.expect_navigation():
        invitation.get_by_role("link", name="View invitation").click()
    with b.expect_navigation():
        b.locator("#accept-invite-form button[type=submit]").click()
    assert path_of(b) == f"/w/{workspace_id}"
    expect(flash(b)).to_have_text("You joined the workspace.")
    a.goto(f"/w/{workspace_id}/members")
    expect(member_row(a, b_email)).to_contain_text("Member")

    # B sees the workspace in the sidebar, and its default channel.
    b.goto("/workspaces")
    expect(pending_invitations(b)).to_be_hidden()
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
    joined = b.locator("#audit-table tr", has_text="joined")
    expect(joined).to_contain_text("by invitation")
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
    link = invite(a, workspace_id, invited)
    expect(invitation_notice(a).locator("p").first).to_have_text(INVITATION_READY)
    expect(a.locator("#base-url-hint")).to_contain_text("--base-url")
    expect(member_row(a, invited)).to_have_count(0)
    return a, workspace_id, name, invited, link


def test_an_invite_link_signs_up_and_joins_once(new_context):
    a, workspace_id, name, invited, link = invite_unknown_address(new_context)
    path = invite_path(link)  # the exact address is checked in the next test

    newcomer = new_context("en-US").new_page()
    newcomer.goto(path)
    card = newcomer.locator("#invitation")
    expect(card.locator("p.invite-workspace strong")).to_have_text(name)
    expect(card.locator("p.invite-from")).to_have_text("Inviter invited you")
    expect(card).to_contain_text("Create your account to join.")
    expect(newcomer.locator("main form").first).to_have_attribute("action", path)
    form = newcomer.locator("main form.stack-form")
    email = form.locator("input[name=email]")
    expect(email).to_have_value(invited)
    expect(email).to_have_attribute("readonly", "")
    expect(form.locator("button[type=submit]")).to_have_text("Sign up and join")
    expect(card.get_by_role("link", name="Log in")).to_have_attribute("href", f"/login?next={path}")
    expect(newcomer.locator("#decline-invite-form")).to_have_attribute("action", f"{path}/decline")
    expect(newcomer.locator("#accept-invite-form")).to_have_count(0)

    form.locator("input[name=nickname]").fill("Newcomer")
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator("input[name=password_confirm]").fill(PASSWORD)
    submit(newcomer, "main form.stack-form")
    assert path_of(newcomer) == f"/w/{workspace_id}"
    expect(flash(newcomer)).to_have_text("You joined the workspace.")
    expect(newcomer.locator("main h1")).to_have_text(name)
    expect(newcomer.locator("#home-channels a")).to_have_text(["general"])
    expect(newcomer.locator(".topbar .viewer-name")).to_have_text("Newcomer")

    # The inviter sees the new member.
    a.goto(f"/w/{workspace_id}/members")
    expect(member_row(a, invited)).to_contain_text("Newcomer")

    # The link worked once: neither the new member nor anybody else can use it again.
    again = newcomer.goto(path)
    assert again.status == 404
    expect(newcomer.locator("main")).to_contain_text(INVITATION_GONE)
    stranger = new_context("en-US").new_page()
    again = stranger.goto(path)
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
    expect(newcomer.locator("main form.stack-form input[name=email]")).to_have_value(invited)


# ---------------------------------------------------------------------------------------------
# Invitations: they wait for their person, who joins or declines them


def signed_up_on_workspaces(new_context, server_data, prefix: str, nickname: str, locale: str = "en-US"):
    """Someone signs up, their address is confirmed (invitations to it are listed only then; the
    server here sends no mail, so the operator vouches for it), and keeps /workspaces open,
    live; returns (page, email)."""
    page = new_context(locale).new_page()
    email = unique_email(prefix)
    signup(page, email, nickname)
    confirm_address(server_data, email)
    page.goto("/workspaces")
    wait_until_live(page)
    return page, email


def test_an_invitation_arrives_live_and_joins_when_accepted(new_context, server_data):
    """B's open workspaces page shows A's invitation as it is sent; B joins only by accepting it."""
    a = new_context("en-US").new_page()
    a_email = unique_email("host")
    signup(a, a_email, "Alice")
    name = unique_name("Guild")
    workspace_id = create_workspace(a, name)
    b, b_email = signed_up_on_workspaces(new_context, server_data, "guest", "Bob")
    expect(pending_invitations(b)).to_be_hidden()

    link = invite(a, workspace_id, b_email)
    expect(invitation_notice(a).locator("p").first).to_have_text(INVITATION_READY)
    expect(member_row(a, b_email)).to_have_count(0)
    # The link is B's alone: signed in as someone else, it only says so.
    a.goto(invite_path(link))
    expect(a.locator("#invitation")).to_contain_text("This invitation was sent to another address.")
    expect(a.locator("#invitation form")).to_have_count(0)

    # Without a reload, B's page lists the invitation: the workspace, and who sent it.
    invitation = pending_invitation(b, name)
    expect(pending_invitations(b)).to_be_visible()
    expect(pending_invitations(b).locator("h2")).to_have_text("Invitations for you")
    expect(invitation.locator("strong")).to_have_text(name)
    expect(invitation.locator(".hint")).to_have_text("Alice invited you")
    assert not_reloaded(b), "B's page reloaded instead of updating live"
    # Nothing joined yet: the workspace is not B's.
    expect(sidebar_workspace(b, workspace_id)).to_have_count(0)
    assert b.goto(f"/w/{workspace_id}").status == 404
    b.go_back()

    # B opens it and joins.
    with b.expect_navigation():
        pending_invitation(b, name).get_by_role("link", name="View invitation").click()
    card = b.locator("#invitation")
    expect(card.locator("p.invite-workspace strong")).to_have_text(name)
    expect(card.locator("p.invite-from")).to_have_text("Alice invited you")
    expect(card).to_contain_text("The invitation expires on")
    expect(b.locator("#decline-invite-form button[type=submit]")).to_have_text("Decline")
    join = b.locator("#accept-invite-form button[type=submit]")
    expect(join).to_have_text("Join")
    with b.expect_navigation():
        join.click()
    assert path_of(b) == f"/w/{workspace_id}"
    expect(flash(b)).to_have_text("You joined the workspace.")
    expect(b.locator("main h1")).to_have_text(name)
    expect(sidebar_workspace(b, workspace_id)).to_have_text(name)

    # Back on the workspaces page, the list is gone and the workspace is there.
    b.goto("/workspaces")
    expect(pending_invitations(b)).to_be_hidden()
    expect(b.locator(f".workspace-cards a[href='/w/{workspace_id}']")).to_have_text(name)
    a.goto(f"/w/{workspace_id}/members")
    expect(member_row(a, b_email)).to_contain_text("Bob")
    expect(member_row(a, b_email)).to_contain_text("Member")

    # Inviting a member again says so.
    a.fill("#invite-form input[name=email]", b_email)
    response = submit(a, "#invite-form")
    assert response is not None and response.status == 422, response and response.status
    expect(a.locator("#invite-form")).to_contain_text("This person is already a member of this workspace.")
    expect(a.locator("#invite-link")).to_have_count(0)


def test_inviting_answers_the_same_for_an_address_with_or_without_an_account(new_context):
    """The members page does not tell who has an account: the same notice and a link each, and
    nobody in the member list."""
    a = new_context("en-US").new_page()
    signup(a, unique_email("asker"), "Alice")
    workspace_id = create_workspace(a, unique_name("Quiet"))
    b = new_context("en-US").new_page()
    b_email = unique_email("known")
    signup(b, b_email, "Bob")
    unknown = unique_email("unknown")

    answers = []
    for email in (b_email, unknown):
        link = invite(a, workspace_id, email)
        notice = invitation_notice(a)
        expect(notice.locator("p").first).to_have_text(INVITATION_READY)
        expect(a.locator("#base-url-hint")).to_be_visible()
        expect(a.locator("main")).not_to_contain_text("Bob")
        expect(member_row(a, email)).to_have_count(0)
        expect(a.locator("#member-table tbody tr")).to_have_count(1)
        answers.append((notice.inner_text().replace(link, "LINK"), link))
    (known_text, known_link), (unknown_text, unknown_link) = answers
    assert known_text == unknown_text
    assert known_link != unknown_link

    # Asked again while it waits, the page gives the same link.
    assert invite(a, workspace_id, b_email) == known_link


def test_a_declined_invitation_leaves_the_list_and_can_be_sent_again(new_context, server_data):
    """B declines on the invitation page; B's other open tab drops it live; A's next invitation
    arrives as a new one."""
    a = new_context("en-US").new_page()
    signup(a, unique_email("sender"), "Alice")
    name = unique_name("Club")
    workspace_id = create_workspace(a, name)
    b, b_email = signed_up_on_workspaces(new_context, server_data, "decliner", "Bob")

    first_link = invite(a, workspace_id, b_email)
    expect(pending_invitation(b, name)).to_contain_text("Alice invited you")

    # In another tab, B opens the invitation from the list and declines it.
    other = b.context.new_page()
    other.goto("/workspaces")
    with other.expect_navigation():
        pending_invitation(other, name).get_by_role("link", name="View invitation").click()
    assert path_of(other) == invite_path(first_link)
    with other.expect_navigation():
        other.locator("#decline-invite-form button[type=submit]").click()
    assert path_of(other) == "/workspaces"
    expect(flash(other)).to_have_text("You declined the invitation.")
    expect(pending_invitations(other)).to_be_hidden()
    expect(sidebar_workspace(other, workspace_id)).to_have_count(0)
    # The first tab lets go of it without a reload.
    expect(pending_invitation(b, name)).to_have_count(0)
    expect(pending_invitations(b)).to_be_hidden()
    assert not_reloaded(b), "B's page reloaded instead of updating live"
    # The declined link is spent.
    assert other.goto(invite_path(first_link)).status == 404
    expect(other.locator("main")).to_contain_text(INVITATION_GONE)
    a.goto(f"/w/{workspace_id}/members")
    expect(member_row(a, b_email)).to_have_count(0)

    # A invites B again: a new link, and B's open page shows it.
    second_link = invite(a, workspace_id, b_email)
    assert second_link != first_link
    expect(pending_invitation(b, name)).to_have_count(1)
    expect(pending_invitation(b, name)).to_contain_text("Alice invited you")
    expect(pending_invitation(b, name).get_by_role("link", name="View invitation")).to_have_attribute(
        "href", invite_path(second_link))
    assert not_reloaded(b), "B's page reloaded instead of updating live"
    other.goto("/workspaces")
    expect(pending_invitation(other, name)).to_have_count(1)


def test_invitations_in_korean(new_context, server_data):
    """A Korean speaker sees the list arrive in Korean, and the invitation page in Korean."""
    owner = new_context("ko-KR").new_page()
    signup(owner, unique_email("hanguk"), "김민수")
    name = unique_name("우리 팀")
    workspace_id = create_workspace(owner, name)
    guest, guest_email = signed_up_on_workspaces(new_context, server_data, "sonnim", "이지은", "ko-KR")
    expect(guest.locator("html")).to_have_attribute("lang", "ko")

    link = invite(owner, workspace_id, guest_email)
    expect(invitation_notice(owner)).to_contain_text("초대장을 만들었습니다.")

    # Arrived live: the heading and the words around it are the page's own, in Korean.
    expect(pending_invitations(guest).locator("h2")).to_have_text("받은 초대")
    invitation = pending_invitation(guest, name)
    expect(invitation.locator(".hint")).to_have_text("김민수님이 초대했습니다")
    expect(invitation.locator("a")).to_have_text("초대 보기")
    assert not_reloaded(guest), "the guest's page reloaded instead of updating live"
    # And the same once the page is loaded again.
    guest.reload()
    expect(pending_invitations(guest).locator("h2")).to_have_text("받은 초대")
    expect(pending_invitation(guest, name).locator(".hint")).to_have_text("김민수님이 초대했습니다")

    # Not signed in, the page offers the sign-up form in Korean.
    stranger = new_context("ko-KR").new_page()
    stranger.goto(invite_path(link))
    expect(stranger.locator("#invitation h1")).to_have_text("워크스페이스 초대")
    expect(stranger.locator("#invitation")).to_contain_text("참여하려면 계정을 만드세요.")
    expect(stranger.locator("main form.stack-form button[type=submit]")).to_have_text("가입하고 참여")

    # The guest's invitation page, and joining.
    with guest.expect_navigation():
        pending_invitation(guest, name).get_by_role("link", name="초대 보기").click()
    card = guest.locator("#invitation")
    expect(card.locator("h1")).to_have_text("워크스페이스 초대")
    expect(card.locator("p.invite-workspace strong")).to_have_text(name)
    expect(card.locator("p.invite-from")).to_have_text("김민수님이 초대했습니다")
    expect(guest.locator("#decline-invite-form button[type=submit]")).to_have_text("거절")
    join = guest.locator("#accept-invite-form button[type=submit]")
    expect(join).to_have_text("참여하기")
    with guest.expect_navigation():
        join.click()
    assert path_of(guest) == f"/w/{workspace_id}"
    expect(flash(guest)).to_have_text("워크스페이스에 참여했습니다.")
    guest.goto("/workspaces")
    expect(pending_invitations(guest)).to_be_hidden()


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
    expect(owner.locator("#sidebar-channels a .room-name")).to_have_text(["일반"])

    # The stored name is "일반": an English-speaking member sees the same channel name.
    member_email = unique_email("english")
    member = new_context("en-US").new_page()
    signup(member, member_email, "Emma")
    add_member(owner, workspace_id, member, member_email)
    owner.goto(f"/w/{workspace_id}/members")
    expect(member_row(owner, member_email)).to_have_count(1)
    expect(default_channel_link(member, workspace_id, "일반")).to_have_count(1)
    expect(member.locator("#home-channels a")).to_have_text(["일반"])


@pytest.mark.parametrize("width", [390, 1280])
def test_new_dms_and_joined_channels_appear_in_every_tabs_room_lists(new_context, width):
    a, b, workspace_id, _, _ = owner_with_workspace_and_member(new_context, "lists")
    a.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
    b.set_viewport_size({"width": width, "height": 844 if width < 800 else 800})
    b_id = b.evaluate("document.querySelector('meta[name=viewer-id]').content")
    home = b.context.new_page()
    home.goto(f"/w/{workspace_id}")
    b.goto(f"/w/{workspace_id}")
    general = b.locator("#sidebar-channels a").first.get_attribute("href")
    b.goto(general)
    for page in (home, b):
        mark_document(page)
    expect(home.locator("#home-dms-empty")).to_be_visible()
    wait_until_live(a)

    # A starts a DM with B: it appears in both of B's tabs, with its badge, and on the home page
    # with its last message and A's initial; the channel tab's title counts it.
    a.goto(f"/w/{workspace_id}/dm/{b_id}")
    a.locator("#composer textarea[name=content]").fill("처음 보내는 DM")
    a.locator("#composer textarea[name=content]").press("Enter")
    for page in (home, b):
        row = page.locator("#sidebar-dms li", has_text="Alice")
        expect(row).to_have_count(1)
        expect(row.locator(".badge")).to_have_text("1")
        expect(row.locator(".avatar")).to_have_text("A")
    expect(home.locator("#home-dms li", has_text="Alice").locator("[data-last-message]")).to_have_text("처음 보내는 DM")
    expect(home.locator("#home-dms li .avatar")).to_have_text("A")
    expect(home.locator("#home-dms-empty")).to_have_count(0)
    expect(b).to_have_title(re.compile(r"^\(1\) "))
    # The channel on screen stays the current one.
    expect(b.locator("#sidebar-channels a[aria-current=page]")).to_have_attribute("href", general)

    # A opens a channel; B joins it in a third tab: the other two list it without a reload.
    channel_id = create_channel(a, workspace_id, "planning")
    joiner = b.context.new_page()
    join_channel(joiner, workspace_id, channel_id)
    for page in (home, b):
        expect(page.locator(f"#sidebar-channels [data-room-name='{channel_id}']")).to_have_text("planning")
    expect(home.locator(f"#home-channels [data-room-name='{channel_id}']")).to_have_text("planning")

    # Deleted, it leaves the sidebar and the home page's list.
    a.goto(f"/w/{workspace_id}/c/{channel_id}/settings")
    with a.expect_navigation():
        a.locator(f"form[action='/w/{workspace_id}/c/{channel_id}/delete'] button[type=submit]").click()
    confirm(a, "Delete the channel “planning”?")
    for page in (home, b):
        expect(page.locator(f"#sidebar-channels [data-room-name='{channel_id}']")).to_have_count(0)
    expect(home.locator(f"#home-channels [data-room-name='{channel_id}']")).to_have_count(0)
    assert not_reloaded(home) and not_reloaded(b)
