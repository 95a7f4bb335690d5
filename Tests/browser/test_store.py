"""The coin store as people see it in the browser: buying a pack through the sandbox checkout (marked
TEST) and spending the coins on a workspace, a declined card, the balance changing live in another
tab once the sandbox confirms the payment, and the store in Korean.

The test server runs with `--payments sandbox` (payments are off by default): a paid sandbox payment reads as "ready" for about a
second, then a signed webhook credits the coins and a live `coins.changed` event goes out."""

import re
import uuid

from playwright.sync_api import Page, Response, expect

from conftest import (
    create_workspace, not_reloaded, path_of, signup, submit, unique_email, unique_name,
    wait_until_live,
)

# How long a pending result page may take to turn into the final one by itself (the sandbox confirms
# after about 1 s; the page then reloads itself).
CONFIRMATION_TIMEOUT = 10_000  # milliseconds

PAID_TITLE = "Payment complete"
PENDING_TITLE = "Confirming your payment"
FAILED_TITLE = "The payment did not go through"
NOT_CONFIRMED = ("Waiting for the payment provider to confirm. Coins are added automatically once it does, "
                 "and this page updates.")
DECLINED = "The card issuer declined the payment. No coins were added."


# ---------------------------------------------------------------------------------------------
# Helpers of this suite (the shared ones are in conftest.py)


def top_bar_balance(page: Page):
    """The balance beside the "Coins" link in the top bar."""
    return page.locator("header.topbar a.coin-link [data-coin-balance]")


def buy(page: Page, item: str) -> Response | None:
    """On /store: presses Buy on a pack (`coins-10`, `coins-50`, `coins-100`); lands on the gateway."""
    with page.expect_navigation() as navigation:
        page.locator(f"form.store-pack button[data-item='{item}']").click()
    response = navigation.value
    assert path_of(page).startswith("/sandbox-pay?"), page.url
    return response


def decide(page: Page, decision: str) -> Response | None:
    """On the sandbox checkout: presses Pay (`pay`) or Decline (`decline`); returns the response of
    the page the browser comes back to (the first one, before it may reload itself)."""
    with page.expect_navigation(url=re.compile(r"/store/complete\?")) as navigation:
        page.locator(f"#sandbox-form button[name=decision][value={decision}]").click()
    response = navigation.value
    assert path_of(page).startswith("/store/complete?"), page.url
    return response


def result_card(page: Page):
    return page.locator("main section.store-result")


def history_rows(page: Page):
    return page.locator("#purchase-history tbody tr")


def expect_sandbox_checkout(page: Page, price: str) -> None:
    """The sandbox's own checkout page: clearly a test, with the price of the pack."""
    expect(page.locator("main .test-banner")).to_contain_text("TEST")
    expect(page.locator("main .test-banner")).to_be_visible()
    expect(page.locator("main .sandbox-checkout .price")).to_have_text(price)


def expect_confirmed_by_itself(page: Page, first: Response | None, coins: int) -> None:
    """The result page either said "Payment complete" at once, or said it was waiting for the
    confirmation and then, with nobody touching it, turned into "Payment complete"."""
    assert first is not None and first.status == 200, first and first.status
    first_html = first.text()
    initial = re.search(r'class="card store-result" data-result="(\w*)"', first_html)
    assert initial, "no result card on the page the browser came back to"
    assert initial.group(1) in ("paid", "pending"), f"the result page first said {initial.group(1)!r}"
    if initial.group(1) == "pending":
        assert PENDING_TITLE in first_html, "a pending result page without its heading"
        assert NOT_CONFIRMED in first_html, "a pending result page that does not say it is waiting"
    else:
        assert PAID_TITLE in first_html
    card = result_card(page)
    expect(card).to_have_attribute("data-result", "paid", timeout=CONFIRMATION_TIMEOUT)
    expect(card.locator("h1")).to_have_text(PAID_TITLE)
    expect(card.locator("p.flash")).to_have_text(f"{coins} coins were added to your balance.")


# ---------------------------------------------------------------------------------------------
# The scenario


def test_buy_a_pack_through_the_sandbox_and_create_a_workspace_with_the_coins(page: Page):
    signup(page, unique_email("buyer"), "Bora")
    expect(top_bar_balance(page)).to_have_text("10")

    # The first workspace spends the 10 coins a new account gets.
    create_workspace(page, unique_name("First"))
    expect(page.locator("main .flash")).to_have_text("Workspace created.")
    expect(top_bar_balance(page)).to_have_text("0")

    # The store: balance, packs, a note on what coins are, no purchases yet.
    page.goto("/store")
    expect(page.locator("main h1")).to_have_text("Coin store")
    expect(page.locator("main .store .balance [data-coin-balance]")).to_have_text("0")
    expect(page.locator("form.store-pack .price")).to_have_text(["₩100", "₩500", "₩1,000"])
    expect(page.locator("form.store-pack .coins strong")).to_have_text(["10", "50", "100"])
    expect(page.locator("main h2", has_text="What are coins?")).to_be_visible()
    expect(page.locator("main .empty-state")).to_have_text("No purchases yet.")

    # The gateway's checkout page: marked TEST, ₩100.
    buy(page, "coins-10")
    expect_sandbox_checkout(page, "₩100")
    expect(page.locator("main h1")).to_have_text("Test payment")

    # Pay: back on /store/complete, which ends up saying the payment is complete by itself.
    first = decide(page, "pay")
    expect_confirmed_by_itself(page, first, 10)
    expect(result_card(page).locator("[data-coin-balance]")).to_have_text("10")
    expect(top_bar_balance(page)).to_have_text("10")

    # The coins pay for a second workspace.
    second = unique_name("Second")
    create_workspace(page, second)
    expect(page.locator("main .flash")).to_have_text("Workspace created.")
    expect(page.locator("main h1")).to_have_text(second)
    expect(top_bar_balance(page)).to_have_text("0")

    # The purchase history: one purchase, paid, ₩100.
    page.goto("/store")
    expect(page.locator("main .store .balance [data-coin-balance]")).to_have_text("0")
    rows = history_rows(page)
    expect(rows).to_have_count(1)
    cells = rows.first.locator("td")
    expect(cells.nth(1)).to_have_text("10 coins")
    expect(cells.nth(2)).to_have_text("₩100")
    expect(cells.nth(3)).to_have_text("Paid")
    expect(rows.first.locator("time")).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT"))


# ---------------------------------------------------------------------------------------------
# A declined card


def test_a_declined_card_adds_nothing_and_shows_as_failed(page: Page):
    signup(page, unique_email("declined"), "Dae")
    page.goto("/store")
    expect(top_bar_balance(page)).to_have_text("10")

    buy(page, "coins-50")
    expect_sandbox_checkout(page, "₩500")
    first = decide(page, "decline")
    assert first is not None and first.status == 200, first and first.status

    card = result_card(page)
    expect(card).to_have_attribute("data-result", "failed")
    expect(card.locator("h1")).to_have_text(FAILED_TITLE)
    expect(card.locator("p.form-error")).to_have_text(DECLINED)
    expect(card.locator("[data-coin-balance]")).to_have_text("10")
    expect(top_bar_balance(page)).to_have_text("10")

    # The sandbox's webhook for the declined payment (about a second later) changes nothing either.
    page.wait_for_timeout(2_500)
    expect(card.locator("h1")).to_have_text(FAILED_TITLE)
    expect(top_bar_balance(page)).to_have_text("10")

    page.goto("/store")
    expect(page.locator("main .store .balance [data-coin-balance]")).to_have_text("10")
    expect(top_bar_balance(page)).to_have_text("10")
    rows = history_rows(page)
    expect(rows).to_have_count(1)
    cells = rows.first.locator("td")
    expect(cells.nth(1)).to_have_text("50 coins")
    expect(cells.nth(2)).to_have_text("₩500")
    expect(cells.nth(3)).to_have_text("Failed")


# ---------------------------------------------------------------------------------------------
# The balance on the user's other tabs


def test_the_balance_updates_live_in_another_tab_once_the_payment_is_confirmed(new_context):
    context = new_context("en-US")
    other = context.new_page()
    signup(other, unique_email("tabs"), "Tae")

    # The second tab, on /workspaces, opened first: it holds the browser's live stream.
    other.goto("/workspaces")
    wait_until_live(other)
    expect(top_bar_balance(other)).to_have_text("10")

    # The first tab buys 100 coins.
    shop = context.new_page()
    shop.goto("/store")
    expect(top_bar_balance(shop)).to_have_text("10")
    buy(shop, "coins-100")
    expect_sandbox_checkout(shop, "₩1,000")
    first = decide(shop, "pay")
    expect_confirmed_by_itself(shop, first, 100)
    expect(top_bar_balance(shop)).to_have_text("110")

    # The other tab shows the new balance without being reloaded.
    expect(top_bar_balance(other)).to_have_text("110", timeout=CONFIRMATION_TIMEOUT)
    assert not_reloaded(other), "the /workspaces tab was reloaded instead of updated live"
    assert path_of(other) == "/workspaces"


# ---------------------------------------------------------------------------------------------
# Korean


def test_the_store_in_korean(new_context):
    page = new_context("ko-KR").new_page()
    signup(page, unique_email("korean"), "민지")
    page.goto("/store")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("main h1")).to_have_text("코인 스토어")
    expect(page.locator("form.store-pack:has(button[data-item='coins-50']) .price")).to_have_text("₩500")
    expect(page.locator("form.store-pack .price")).to_have_text(["₩100", "₩500", "₩1,000"])
    expect(page.locator("form.store-pack button[data-item='coins-50']")).to_have_text("구매")
    expect(page.locator("main .store .balance")).to_contain_text("내 코인:")
    expect(page.locator("header.topbar a.coin-link")).to_contain_text("코인")
    expect(page.locator("main .empty-state")).to_have_text("아직 구매 내역이 없습니다.")

    # Buying in Korean: the checkout is still marked TEST, and the result and history are Korean.
    buy(page, "coins-50")
    expect_sandbox_checkout(page, "₩500")
    expect(page.locator("main h1")).to_have_text("테스트 결제")
    decide(page, "pay")
    card = result_card(page)
    expect(card).to_have_attribute("data-result", "paid", timeout=CONFIRMATION_TIMEOUT)
    expect(card.locator("h1")).to_have_text("결제가 완료되었습니다")
    expect(card.locator("p.flash")).to_have_text("코인 50개를 충전했습니다.")
    expect(top_bar_balance(page)).to_have_text("60")

    page.goto("/store")
    cells = history_rows(page).first.locator("td")
    expect(cells.nth(1)).to_have_text("코인 50개")
    expect(cells.nth(2)).to_have_text("₩500")
    expect(cells.nth(3)).to_have_text("결제 완료")
