"""Incoming webhooks, Slack-compatible (issue 35): a channel member makes one on the channel's
settings page, and a real Slack client (`slack_sdk`'s WebhookClient) posts text, attachments
and blocks through it; each message appears live, marked as a bot's, in the open channel."""

import re
import urllib.parse

import pytest
from playwright.sync_api import expect
from slack_sdk.webhook import WebhookClient

from conftest import create_workspace, signup, unique_email, unique_name, wait_until_live


@pytest.mark.timeout(120)
def test_slack_sdk_posts_live_into_the_channel(new_context, server):
    page = new_context(locale="ko-KR").new_page()
    signup(page, unique_email("hooks"), "웹훅 주인")
    workspace = create_workspace(page, unique_name("웹훅 팀"))
    # The first channel, named in the maker's language (일반).
    page.goto(f"/w/{workspace}")
    channel = int(page.locator("#home-channels a").first.get_attribute("href").rsplit("/", 1)[1])

    page.goto(f"/w/{workspace}/c/{channel}/settings")
    page.fill("#webhook-form input[name=name]", "배포 봇")
    with page.expect_navigation():
        page.click("#webhook-form button[type=submit]")
    url = page.locator("#webhook-url").input_value()
    assert re.fullmatch(r"https?://[^/]+/hooks/[A-Za-z0-9_-]{43}", url), url
    expect(page.locator("#webhooks-card .webhook-list")).to_contain_text("배포 봇")
    # The URL names the configured site; the test posts to its own server at the same path.
    hook = WebhookClient(server + urllib.parse.urlparse(url).path)

    page.goto(f"/w/{workspace}/c/{channel}")
    wait_until_live(page)
    text = unique_name("빌드 *성공*")
    response = hook.send(text=text)
    assert response.status_code == 200 and response.body == "ok"
    message = page.locator("#message-list li.message").filter(has_text=text.replace("*", ""))
    expect(message).to_have_count(1)
    expect(message.locator(".message-author")).to_have_text("배포 봇")
    expect(message.locator(".bot-badge:visible")).to_have_text("봇")
    expect(message.locator(".message-body strong")).to_have_text("성공")

    title = unique_name("빌드 #7")
    response = hook.send(text="fallback", attachments=[{
        "title": title, "title_link": "https://ci.example/7", "text": "모든 시험 *통과*",
        "fields": [{"title": "브랜치", "value": "main", "short": True}]}])
    assert response.status_code == 200, response.body
    attached = page.locator("#message-list li.message").filter(has_text=title)
    expect(attached.locator("blockquote a[href='https://ci.example/7']")).to_have_text(title)
    expect(attached).to_contain_text("브랜치: main")

    header = unique_name("장애 알림")
    response = hook.send(text="only the notification", blocks=[
        {"type": "header", "text": {"type": "plain_text", "text": header}},
        {"type": "section", "text": {"type": "mrkdwn", "text": "*DB* 응답이 느립니다"}},
        {"type": "divider"}])
    assert response.status_code == 200, response.body
    blocked = page.locator("#message-list li.message").filter(has_text=header)
    expect(blocked.locator(".message-body strong").first).to_have_text(header)
    expect(blocked).not_to_contain_text("only the notification")

    assert hook.send(text="   ").body == "no_text"
    gone = WebhookClient(server + "/hooks/" + "x" * 43)
    refused = gone.send(text="누구?")
    assert refused.status_code == 404 and refused.body == "no_service"
