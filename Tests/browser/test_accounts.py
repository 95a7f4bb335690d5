"""Accounts as a person sees them in the browser: signing up, logging in and out, mistakes and
throttling, the interface language, the profile and password, and a page free of script errors."""

import re

import pytest
from playwright.sync_api import Page, expect

from conftest import (
    LOGIN_FAILURE_WINDOW,
    PASSWORD,
    fill_signup_form,
    login,
    logout,
    path_of,
    signup,
    submit,
    switch_language,
    unique_email,
)

EN = {
    "login_title": "Log in",
    "signup_title": "Sign up",
    "empty_workspaces": "Create your first workspace",
    "signed_out": "You are logged out.",
    "email_taken": "An account with this email already exists.",
    "login_failed": "The email or password is incorrect.",
    "password_short": "Password must be at least 8 characters.",
    "password_mismatch": "The passwords do not match.",
    "profile_saved": "Profile saved.",
    "password_changed": "Password changed. Your other sessions were signed out.",
    "current_password_wrong": "The current password is incorrect.",
    "nav_logout": "Log out",
}
KO = {
    "login_title": "로그인",
    "signup_title": "회원가입",
    "empty_workspaces": "첫 워크스페이스를 만드세요",
    "signed_out": "로그아웃했습니다.",
    "email_taken": "이미 가입된 이메일입니다.",
    "login_failed": "이메일 또는 비밀번호가 올바르지 않습니다.",
    "nav_logout": "로그아웃",
}
THROTTLED_EN = re.compile(r"^Too many failed attempts\. Try again in (\d+) seconds\.$")


def heading(page: Page):
    return page.locator("main h1")


def viewer_name(page: Page):
    return page.locator(".topbar .viewer-name")


def expect_signed_in_as(page: Page, nickname: str) -> None:
    expect(viewer_name(page)).to_have_text(nickname)
    expect(page.locator("form[action='/logout'] button")).to_be_visible()


def expect_on_empty_workspaces(page: Page, texts=EN) -> None:
    assert path_of(page) == "/workspaces"
    expect(heading(page)).to_have_text(texts["empty_workspaces"])


def expect_anonymous_top_bar(page: Page) -> None:
    expect(viewer_name(page)).to_have_count(0)
    expect(page.locator(".topbar a[href='/login']")).to_be_visible()
    expect(page.locator(".topbar a[href='/signup']")).to_be_visible()


def expect_login_page_in(page: Page, lang: str) -> None:
    texts = KO if lang == "ko" else EN
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(heading(page)).to_have_text(texts["login_title"])
    expect(page.locator("main button[type=submit].primary")).to_have_text(texts["login_title"])


def field_error(page: Page, field_id: str):
    return page.locator(f"#{field_id} ~ .field-error").first


# ---------------------------------------------------------------------------------------------
# 1. Sign up, log out, log in


def test_a_new_member_signs_up_logs_out_and_logs_back_in(page):
    email = unique_email("mina")

    page.goto("/")
    assert path_of(page) == "/login", "an anonymous visitor starts at the login page"

    response = signup(page, email, "Mina")
    assert response.status == 200
    expect_on_empty_workspaces(page)
    expect_signed_in_as(page, "Mina")

    page.goto("/")
    assert path_of(page) == "/workspaces", "a signed-in member starts at their workspaces"

    logout(page)
    assert path_of(page) == "/login"
    expect(page.locator(".flash")).to_have_text(EN["signed_out"])
    expect_anonymous_top_bar(page)

    page.reload()
    expect(page.locator(".flash")).to_have_count(0)  # the notice is shown once

    page.goto("/workspaces")
    assert path_of(page).startswith("/login"), "after logging out the workspaces are not reachable"

    # Logging in on the page the workspaces sent us to leads back there.
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    submit(page, "main form[action='/login']")
    expect_on_empty_workspaces(page)
    expect_signed_in_as(page, "Mina")


# ---------------------------------------------------------------------------------------------
# 2. Mistakes and throttling


def test_signing_up_with_a_taken_email_explains_why_and_keeps_the_other_inputs(new_context):
    email = unique_email("taken")
    signup(new_context().new_page(), email, "First")

    page = new_context().new_page()
    response = signup(page, email, "Second", phone="010-1234-5678")

    assert response.status == 422
    assert path_of(page) == "/signup"
    expect(page.locator("#email-error")).to_have_text(EN["email_taken"])
    expect(page.locator("input[name=email]")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("input[name=email]")).to_have_value(email)
    expect(page.locator("input[name=nickname]")).to_have_value("Second")
    expect(page.locator("input[name=phone]")).to_have_value("010-1234-5678")
    expect(page.locator(".field-error")).to_have_count(1)
    expect_anonymous_top_bar(page)


def test_an_email_differing_only_in_letter_case_counts_as_taken(new_context):
    email = unique_email("case")
    signup(new_context().new_page(), email, "Lower")

    page = new_context().new_page()
    response = signup(page, email.upper(), "Upper")

    assert response.status == 422
    expect(page.locator("#email-error")).to_have_text(EN["email_taken"])


def test_a_korean_visitor_sees_the_taken_email_message_in_korean(new_context):
    email = unique_email("taken-ko")
    signup(new_context().new_page(), email, "하나")

    page = new_context("ko-KR").new_page()
    response = signup(page, email, "둘")

    assert response.status == 422
    expect(page.locator("#email-error")).to_have_text(KO["email_taken"])
    expect(page.locator("input[name=nickname]")).to_have_value("둘")


def test_sign_up_explains_a_short_and_a_mismatched_password(page):
    email = unique_email("short")

    response = signup(page, email, "Shorty", password="short", password_confirm="different")

    assert response.status == 422
    expect(page.locator("#password-error")).to_have_text(EN["password_short"])
    expect(page.locator("#password-confirm-error")).to_have_text(EN["password_mismatch"])
    expect(page.locator("input[name=email]")).to_have_value(email)
    expect(page.locator("input[name=nickname]")).to_have_value("Shorty")

    fill_signup_form(page, email, "Shorty", PASSWORD, password_confirm=PASSWORD + "!")
    response = submit(page, "main form[action='/signup']")

    assert response.status == 422
    expect(page.locator("#password-error")).to_have_count(0)
    expect(page.locator("#password-confirm-error")).to_have_text(EN["password_mismatch"])

    fill_signup_form(page, email, "Shorty", PASSWORD)
    submit(page, "main form[action='/signup']")
    expect_on_empty_workspaces(page)


def test_a_wrong_password_shows_one_generic_message_and_keeps_the_email(new_context):
    email = unique_email("wrong")
    signup(new_context().new_page(), email, "Wrong")

    page = new_context().new_page()
    response = login(page, email, "not the password")

    assert path_of(page) == "/login"
    assert response.status == 401
    expect(page.locator(".form-error")).to_have_text(EN["login_failed"])
    expect(page.locator("input[name=email]")).to_have_value(email)
    expect(page.locator("input[name=password]")).to_have_value("")
    expect_anonymous_top_bar(page)

    # An unknown email gets exactly the same words: the page does not tell who has an account.
    nobody = unique_email("nobody")
    login(page, nobody, "not the password")
    expect(page.locator(".form-error")).to_have_text(EN["login_failed"])
    expect(page.locator("input[name=email]")).to_have_value(nobody)


def test_after_three_failed_logins_the_account_must_wait(new_context):
    email = unique_email("throttled")
    signup(new_context().new_page(), email, "Patient")

    page = new_context().new_page()
    for _ in range(3):
        login(page, email, "guess-guess")
        expect(page.locator(".form-error")).to_have_text(EN["login_failed"])

    # Even the right password is refused while the account waits.
    response = login(page, email, PASSWORD)

    assert response.status == 429
    assert path_of(page) == "/login"
    expect(page.locator(".form-error")).to_have_text(THROTTLED_EN)
    seconds = int(THROTTLED_EN.match(page.locator(".form-error").inner_text()).group(1))
    assert 1 <= seconds <= LOGIN_FAILURE_WINDOW
    expect(page.locator("input[name=email]")).to_have_value(email)
    expect_anonymous_top_bar(page)


def test_throttling_one_account_does_not_lock_out_another(new_context):
    locked, other = unique_email("locked"), unique_email("other")
    signup(new_context().new_page(), locked, "Locked")
    signup(new_context().new_page(), other, "Other")

    page = new_context().new_page()
    for _ in range(4):
        login(page, locked, "guess-guess")
    expect(page.locator(".form-error")).to_have_text(THROTTLED_EN)

    login(page, other, PASSWORD)
    expect_on_empty_workspaces(page)
    expect_signed_in_as(page, "Other")


# ---------------------------------------------------------------------------------------------
# 3. Language


@pytest.mark.parametrize(
    "locale, lang",
    [("ko-KR", "ko"), ("en-US", "en"), ("fr-FR", "en")],
    ids=["korean browser sees korean", "english browser sees english", "french browser falls back to english"],
)
def test_the_interface_speaks_the_browsers_language(new_context, locale, lang):
    page = new_context(locale).new_page()

    page.goto("/login")

    expect_login_page_in(page, lang)
    texts = KO if lang == "ko" else EN
    page.goto("/signup")
    expect(heading(page)).to_have_text(texts["signup_title"])


def test_the_language_button_switches_the_page_and_is_remembered_after_reload(new_context):
    page = new_context("ko-KR").new_page()
    page.goto("/login")
    expect_login_page_in(page, "ko")

    switch_language(page, "en")

    assert path_of(page) == "/login", "the page returns to where the button was pressed"
    expect_login_page_in(page, "en")
    page.reload()
    expect_login_page_in(page, "en")
    page.goto("/signup")
    expect(heading(page)).to_have_text(EN["signup_title"])

    page.goto("/login")
    switch_language(page, "ko")
    expect_login_page_in(page, "ko")


def test_a_language_chosen_while_signed_in_follows_the_account_to_another_browser(new_context):
    email = unique_email("lang")
    page = new_context("ko-KR").new_page()
    signup(page, email, "민수")
    expect_on_empty_workspaces(page, KO)

    switch_language(page, "en")

    assert path_of(page) == "/workspaces"
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect_on_empty_workspaces(page, EN)

    elsewhere = new_context("ko-KR").new_page()
    elsewhere.goto("/login")
    expect_login_page_in(elsewhere, "ko")  # not signed in there yet: the browser's language
    login(elsewhere, email)
    expect(elsewhere.locator("html")).to_have_attribute("lang", "en")
    expect_on_empty_workspaces(elsewhere, EN)
    expect(elsewhere.locator("form[action='/logout'] button")).to_have_text(EN["nav_logout"])


def test_a_language_chosen_before_signing_up_stays_with_the_new_account(new_context):
    email = unique_email("lang-early")
    page = new_context("ko-KR").new_page()
    page.goto("/login")
    switch_language(page, "en")
    expect_login_page_in(page, "en")

    signup(page, email, "Early")
    expect_on_empty_workspaces(page, EN)

    elsewhere = new_context("ko-KR").new_page()
    login(elsewhere, email)
    expect(elsewhere.locator("html")).to_have_attribute("lang", "en")
    expect_on_empty_workspaces(elsewhere, EN)


# ---------------------------------------------------------------------------------------------
# 4. Profile and password


def test_saving_the_profile_shows_the_new_nickname_in_the_top_bar(page):
    signup(page, unique_email("profile"), "Old Name")
    page.locator(".topbar .viewer-name").click()
    assert path_of(page) == "/profile"
    expect(page.locator("#profile-form input[name=nickname]")).to_have_value("Old Name")

    page.fill("#profile-form input[name=nickname]", "새 이름")
    page.fill("#profile-form input[name=phone]", "+82 10-9876-5432")
    submit(page, "#profile-form")

    assert path_of(page) == "/profile"
    expect(page.locator(".flash")).to_have_text(EN["profile_saved"])
    expect(viewer_name(page)).to_have_text("새 이름")
    expect(page.locator("#profile-form input[name=nickname]")).to_have_value("새 이름")
    expect(page.locator("#profile-form input[name=phone]")).to_have_value("+82 10-9876-5432")


def test_changing_the_password_signs_out_the_other_browser(new_context):
    email, new_password = unique_email("pw"), "a brand new password"
    here = new_context().new_page()
    signup(here, email, "Here")
    there = new_context().new_page()
    login(there, email)
    expect_signed_in_as(there, "Here")

    here.goto("/profile")
    here.fill("#password-form input[name=current_password]", PASSWORD)
    here.fill("#password-form input[name=password]", new_password)
    here.fill("#password-form input[name=password_confirm]", new_password)
    submit(here, "#password-form")

    expect(here.locator(".flash")).to_have_text(EN["password_changed"])
    here.goto("/workspaces")
    expect_signed_in_as(here, "Here")  # this browser stays signed in

    there.goto("/workspaces")
    assert path_of(there).startswith("/login"), "the other browser was signed out"
    expect_anonymous_top_bar(there)

    login(there, email, PASSWORD)
    expect(there.locator(".form-error")).to_have_text(EN["login_failed"])
    login(there, email, new_password)
    expect_on_empty_workspaces(there)


def test_a_wrong_current_password_changes_nothing(new_context):
    email = unique_email("pw-wrong")
    page = new_context().new_page()
    signup(page, email, "Careful")
    page.goto("/profile")

    page.fill("#password-form input[name=current_password]", "not my password")
    page.fill("#password-form input[name=password]", "another password")
    page.fill("#password-form input[name=password_confirm]", "another password")
    response = submit(page, "#password-form")

    assert response.status == 422
    expect(field_error(page, "current_password")).to_have_text(EN["current_password_wrong"])
    expect(page.locator(".flash")).to_have_count(0)

    elsewhere = new_context().new_page()
    login(elsewhere, email, PASSWORD)
    expect_on_empty_workspaces(elsewhere)


SCRIPT_NICKNAME = "<script>alert(1)</script>"


def test_a_script_tag_typed_as_a_nickname_is_shown_as_text(page):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    signup(page, unique_email("xss"), SCRIPT_NICKNAME)

    expect_on_empty_workspaces(page)
    expect(viewer_name(page)).to_have_text(SCRIPT_NICKNAME)
    page.goto("/profile")
    expect(viewer_name(page)).to_have_text(SCRIPT_NICKNAME)
    expect(page.locator("#profile-form input[name=nickname]")).to_have_value(SCRIPT_NICKNAME)

    page.fill("#profile-form input[name=nickname]", '"><img src=x onerror=alert(2)>')
    submit(page, "#profile-form")
    expect(viewer_name(page)).to_have_text('"><img src=x onerror=alert(2)>')
    expect(page.locator(".topbar img")).to_have_count(0)

    assert dialogs == []


# ---------------------------------------------------------------------------------------------
# 5. No script errors


def test_the_account_pages_run_without_javascript_errors(new_context):
    page = new_context("ko-KR").new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}")
            if message.type == "error" or "Content Security Policy" in message.text else None)

    email = unique_email("clean")
    page.goto("/")
    signup(page, email, "깔끔")
    expect_on_empty_workspaces(page, KO)
    page.goto("/profile")
    switch_language(page, "en")
    assert path_of(page) == "/profile"
    logout(page)
    expect(page.locator(".flash")).to_have_text(EN["signed_out"])
    login(page, email)
    expect_on_empty_workspaces(page)
    page.wait_for_load_state("networkidle")

    assert problems == []
