"""Live updates: one event stream per browser shared by its tabs, with take-over, and the
account events (profile changed, signed out elsewhere) reaching every open tab."""

import re

from playwright.sync_api import BrowserContext, Page, expect

from conftest import PASSWORD, login, logout, signup, unique_email, submit


def change_nickname_in_background(context: BrowserContext, nickname: str) -> None:
    """Posts the profile form as another device of the same browser would (shares cookies)."""
    profile = context.request.get("/profile")
    token = re.search(r'<meta name="csrf-token" content="([^"]+)">', profile.text()).group(1)
    response = context.request.post("/profile", form={"_csrf": token, "nickname": nickname, "phone": ""},
                                    max_redirects=0)
    assert response.status == 303, response.status


def leader_count(pages: list[Page]) -> int:
    return sum(1 for page in pages if page.evaluate("document.documentElement.dataset.liveRole") == "leader")


def wait_for_one_live_leader(pages: list[Page]) -> Page:
    pages[0].wait_for_function("true")
    for _ in range(100):
        leaders = [p for p in pages if p.evaluate("document.documentElement.dataset.liveRole") == "leader"]
        if len(leaders) == 1 and leaders[0].evaluate("document.documentElement.dataset.liveOnline") == "yes":
            return leaders[0]
        pages[0].wait_for_timeout(100)
    raise AssertionError(f"expected one online leader, roles: {[p.evaluate('document.documentElement.dataset.liveRole') for p in pages]}")


def test_eight_tabs_share_one_stream_and_survive_the_leader_closing(new_context):
    context = new_context("en-US")
    first = context.new_page()
    signup(first, unique_email("tabs"), "Tabs")
    pages = [first] + [context.new_page() for _ in range(7)]
    for page in pages[1:]:
        page.goto("/workspaces")
    leader = wait_for_one_live_leader(pages)
    assert leader_count(pages) == 1

    change_nickname_in_background(context, "모두에게")
    for page in pages:  # the 7th and 8th tabs too: they do not need a connection of their own
        expect(page.locator(".viewer-name")).to_have_text("모두에게")

    leader.close()
    rest = [page for page in pages if page is not leader]
    wait_for_one_live_leader(rest)
    change_nickname_in_background(context, "After take-over")
    for page in rest:
        expect(page.locator(".viewer-name")).to_have_text("After take-over")


def test_an_event_during_the_take_over_is_not_lost(new_context):
    context = new_context("en-US")
    first = context.new_page()
    signup(first, unique_email("handover"), "Before")
    second = context.new_page()
    second.goto("/workspaces")
    leader = wait_for_one_live_leader([first, second])
    follower = second if leader is first else first
    leader.close()
    # Published while no tab holds the stream: the new leader replays it from its last id.
    change_nickname_in_background(context, "Missed nothing")
    expect(follower.locator(".viewer-name")).to_have_text("Missed nothing")


def test_changing_the_password_signs_out_open_tabs_of_other_browsers(new_context):
    email = unique_email("revoke")
    here = new_context("en-US").new_page()
    signup(here, email, "Here")
    elsewhere = new_context("en-US").new_page()
    login(elsewhere, email)
    wait_for_one_live_leader([elsewhere])

    here.goto("/profile")
    here.fill("#current_password", PASSWORD)
    here.fill("#new_password", "a brand new password")
    here.fill("#new_password_confirm", "a brand new password")
    submit(here, "#password-form")
    expect(here.locator(".flash")).to_contain_text("Password changed.")

    # The other browser's open tab finds out by itself and lands on the login page.
    expect(elsewhere).to_have_url(re.compile(r"/login"))
    # This browser stays signed in.
    here.goto("/workspaces")
    expect(here.locator(".viewer-name")).to_have_text("Here")


def test_logging_out_in_one_tab_signs_out_the_others(new_context):
    context = new_context("en-US")
    first = context.new_page()
    signup(first, unique_email("logout"), "Bye")
    second = context.new_page()
    second.goto("/workspaces")
    wait_for_one_live_leader([first, second])
    logout(first)
    expect(second).to_have_url(re.compile(r"/login"))
