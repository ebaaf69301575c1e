"""The web playground in real Chromium: `bots run` with the repository's bots.yaml (the three
example bots, dev mode) on port 0, one run for the module; each test is a person at the page,
and Bob, in a second browser, watches messaging:general the whole time and sees it all live."""

import re
import shutil
import time

from browser import keep_screenshot
from playground_support import GENERAL, playground, module_browsers, bob_window, browsers, bob, sdk  # noqa: F401 (fixtures)


def test_run_prints_the_playground_first_and_a_deep_link_opens_the_channel_in_under_a_second(playground, browsers):
    # The first line of the start-up summary (log records, such as the workout bot's note that no
    # model is configured, come before it, with their timestamps).
    summary = [line for line in playground.output if not re.match(r"\d{4}-\d\d-\d\dT", line)]
    assert summary[0].startswith(f"Playground: {playground.base_url}/"), playground.output
    page = browsers("pat").open(playground.base_url, "pat", GENERAL, name="Pat")
    # Joining greeted Pat (welcome: true), and the channel shows who is in it.
    page.message("Welcome, Pat!", user="workout-bot")
    assert "Members:" in page.find(".channel-header .members").text and "Pat" in page.find(".channel-header .members").text
    assert page.find(".channel-choice.selected").get_attribute("data-cid") == GENERAL
    assert page.find(".me-name").text == "Pat" and page.find(".status").text == "connected"
    timing = page.script("""
        const navigation = performance.getEntriesByType('navigation')[0];
        const ready = performance.getEntriesByName('playground-ready')[0];
        return {load: navigation.loadEventEnd - navigation.startTime, ready: ready.startTime,
                transferred: performance.getEntriesByType('resource').reduce((sum, entry) => sum + entry.transferSize, navigation.transferSize)};
    """)
    print(f"playground on loopback: load event {timing['load']:.0f} ms, channel drawn {timing['ready']:.0f} ms, "
          f"{timing['transferred']} bytes")


def test_the_picker_lists_users_and_makes_a_new_one_who_joins_a_channel(playground, browsers):
    page = browsers("picker").open(playground.base_url, channel=None)
    page.wait(lambda _: page.find_all("button.user-choice[data-user='workout-bot']"), what="the known users")
    keep_screenshot(page, "playground-picker")
    page.find("input[name='user']").send_keys("nina")
    page.find("input[name='name']").send_keys("Nina")
    page.find("form.new-user button").click()
    page.wait_for("body[data-ready='true']")
    assert "user=nina" in page.driver.current_url
    assert page.find(".main .empty").text.startswith("No channel yet")
    page.find("form.join input").send_keys(GENERAL)
    page.find("form.join button").click()
    page.message("Welcome, Nina!", user="workout-bot")
    assert f"channel={GENERAL.replace(':', '%3A')}" in page.driver.current_url


def test_a_posted_workout_gets_the_bots_summary_card(playground, browsers, bob):
    page = browsers("wendy").open(playground.base_url, "wendy", GENERAL, name="Wendy")
    page.find(".channel-main .payload-toggle").click()
    assert page.find(".payload-type-select").get_attribute("value") == "workout"
    page.find(".channel-main .add-payload").click()
    page.wait_for(".channel-main .chip.done")
    sent = page.send("morning run")
    mine = page.message("morning run", user="wendy")
    assert page.find(".payload-card[data-payload='workout'] .workout-numbers", mine).text == "5.0 km · 25:00 · 400 kcal"
    answer = page.message("This week: 1 workout, 5.0 km", user="workout-bot", after=sent)
    summary = page.find(".payload-card[data-payload='workout-summary']", answer)
    assert [stat.text.replace("\n", " ") for stat in page.find_all(".stat", summary)] == ["1 workout", "5.0 km distance", "25:00 time", "400 kcal"]
    keep_screenshot(page, "playground-workout")
    # Bob saw both as they came.
    bob.message("morning run", user="wendy")
    bob.message("This week: 1 workout, 5.0 km", user="workout-bot", after=sent)


def test_an_upload_shows_its_progress_and_lands_in_the_archive_bots_answer(playground, browsers, bob, tmp_path):
    report = tmp_path / "week-uma.csv"
    report.write_text("date,km\n" + "".join(f"2026-11-{day % 28 + 1:02},{day % 21}\n" for day in range(40000)))
    page = browsers("uma").open(playground.base_url, "uma", GENERAL, name="Uma")
    page.attach(report)
    chip = page.wait_for(".chip.done[data-file='week-uma.csv']")
    bar = page.find("progress.upload-progress", chip)
    assert int(bar.get_attribute("max")) >= report.stat().st_size and bar.get_attribute("value") == bar.get_attribute("max")
    assert int(bar.get_attribute("data-updates")) >= 1, "the bar followed the upload's progress events"
    sent = page.send("my week")
    mine = page.message("my week", user="uma")
    assert page.find(".attachment-file .file-name", mine).text == "week-uma.csv"
    assert "KB · text/csv" in page.find(".attachment-file .details", mine).text
    asked = page.send("/archive")
    answer = page.message("archived", user="archive-bot", after=asked, timeout=30)
    manifest = page.find(".attachment-file a.file-name", answer)
    assert manifest.text == "archive-manifest.json" and manifest.get_attribute("rel") == "noopener noreferrer"
    assert '"name" : "week-uma.csv"' in page.fetch_text(manifest.get_attribute("href"))
    assert bob.message("my week", user="uma").get_attribute("data-id") == sent


def test_an_executable_renamed_png_is_refused_before_anyone_sees_it_and_the_moderator_says_so(playground, browsers, bob, sdk, tmp_path):
    program = tmp_path / "holiday.png"
    shutil.copy(shutil.which("true"), program)
    page = browsers("eve").open(playground.base_url, "eve", GENERAL, name="Eve")
    assert page.script("const list = document.querySelector('.channel-main .messages');"
                       "return list.scrollHeight - list.scrollTop - list.clientHeight < 2"), "the channel opens at its newest messages"
    page.attach(program)
    page.wait_for(".chip.done[data-file='holiday.png']")
    # Each page notes every message it draws, however briefly.
    record = """window.__shown = []; new MutationObserver(changes => changes.forEach(change => change.addedNodes.forEach(
        node => node.dataset && window.__shown.push(node.innerText)))).observe(document.querySelector('.channel-main .messages'), {childList: true});"""
    for window in (page, bob):
        window.script(record)
    page.type("my holiday")
    page.find(".channel-main button.send").click()
    # The moderator refused it through the Before Message Send hook: Eve reads why by her composer,
    # her text is still there to send without the file, and the file is gone from it.
    refusal = page.wait(lambda _: page.find(".channel-main .composer-refusal").is_displayed() and page.find(".channel-main .composer-refusal"),
                        timeout=30, what="the refusal by the composer")
    assert refusal.text.startswith("Not sent: holiday.png was not posted: it is really an executable program"), refusal.text
    assert refusal.get_attribute("role") == "alert"
    assert page.find(".channel-main textarea[name='text']").get_attribute("value") == "my holiday"
    assert not page.find_all(".channel-main .chip")
    # Then the moderator says in the channel whose file was refused and why; both see that, and nobody the message.
    for window in (page, bob):
        notice = window.message("holiday.png was not posted because it is really an executable program", user="moderator", timeout=30)
        assert window.find(".text", notice).text.startswith("@Eve: holiday.png was not posted because it is really an executable program")
        assert window.find(".moderation-notice", notice).text == "Moderation holiday.png"
    keep_screenshot(page, "playground-moderation")
    time.sleep(1)  # anything announced after the notice would have been drawn by now
    for window in (page, bob):
        assert not any("my holiday" in text for text in window.script("return window.__shown")), "the refused message was drawn"
    assert not any(m["text"] == "my holiday" for m in sdk.channel("messaging", "general").query(messages={"limit": 100})["messages"])
    # What she sends next goes through, and the line by the composer goes.
    page.send(", text only")
    for window in (page, bob):
        window.message("my holiday, text only", user="eve")
    assert not page.find(".channel-main .composer-refusal").is_displayed()


def test_log_then_pressing_log_posts_the_workout_and_the_bot_sums_it_up(playground, browsers, bob):
    page = browsers("leo").open(playground.base_url, "leo", GENERAL, name="Leo")
    page.type("/log run 5km 25m")
    page.find(".channel-main button.send").click()
    question = page.wait(lambda _: next((n for n in page.find_all("article.message.ephemeral") if "Log 5.0 km run in 25m?" in n.text), False),
                         what="the ephemeral question")
    assert "only you can see this" in question.text
    assert page.find(".payload-card[data-payload='workout'] .workout-numbers", question).text == "5.0 km · 25:00"
    assert [button.text for button in page.find_all(".buttons button", question)] == ["Log", "Cancel"]
    keep_screenshot(page, "playground-command")
    question_id = question.get_attribute("data-id")
    page.find("button[data-action='log']", question).click()
    posted = page.wait(lambda _: next((n for n in page.messages() if n.get_attribute("data-id") == question_id
                                       and "ephemeral" not in n.get_attribute("class")), False), what="the posted workout")
    assert "logged with /log" in posted.text
    page.message("This week: 1 workout, 5.0 km, 0h 25m, 0 kcal.", user="workout-bot", after=question_id)
    bob.message("logged with /log", user="leo")
    bob.message("This week: 1 workout, 5.0 km, 0h 25m, 0 kcal.", user="workout-bot", after=question_id)


def test_voting_in_a_plan_poll_changes_with_a_second_vote_and_bob_sees_the_counts(playground, browsers, bob):
    page = browsers("vic").open(playground.base_url, "vic", GENERAL, name="Vic")
    asked = page.send("/plan Sat Sun")
    poll_message = page.message("Group run: which day?", user="workout-bot", after=asked)
    poll_id = page.find(".poll", poll_message).get_attribute("data-poll")

    def option(window, text):
        return window.find(f".poll[data-poll='{poll_id}'] .poll-option[data-option='{text}']")

    def shows(window, text, count, voted):
        return lambda _: (option(window, text).find_element("css selector", ".count").text == str(count)
                          and ("voted" in option(window, text).get_attribute("class")) == voted)
    option(page, "Sun").click()
    page.wait(shows(page, "Sun", 1, True), what="a vote on Sun")
    bob.wait(shows(bob, "Sun", 1, False), what="Vic's vote on Sun")
    option(page, "Sat").click()
    page.wait(lambda d: shows(page, "Sat", 1, True)(d) and shows(page, "Sun", 0, False)(d), what="the vote moved to Sat")
    bob.wait(lambda d: shows(bob, "Sat", 1, False)(d) and shows(bob, "Sun", 0, False)(d), what="the moved vote")
    keep_screenshot(page, "playground-poll")
    assert not page.find_all(f".poll[data-poll='{poll_id}'] .close-poll"), "only its creator (the bot) may close it"


def test_the_creator_of_a_poll_closes_it(playground, browsers, bob, sdk):
    poll = sdk.post("polls", data={"user_id": "vic", "name": "Lunch after the run?", "options": [{"text": "Pizza"}, {"text": "Soup"}]})["poll"]
    page = browsers("vic").open(playground.base_url, "vic", GENERAL, name="Vic")
    sdk.channel("messaging", "general").send_message({"text": "lunch?", "poll_id": poll["id"]}, "vic")
    closer = page.wait_for(f".poll[data-poll='{poll['id']}'] .close-poll")
    closer.click()
    for window in (page, bob):
        window.wait_for(f".poll.closed[data-poll='{poll['id']}']")
        assert window.find(f".poll[data-poll='{poll['id']}'] .poll-option[data-option='Soup']").get_attribute("disabled") is not None


def test_react_edit_reply_delete_and_bob_sees_each_live_with_typing_and_read_state(playground, browsers, bob, sdk):
    alice = browsers("alice").open(playground.base_url, "alice", GENERAL, name="Alice")
    alice.type("hello bob")
    bob.wait(lambda _: bob.find(".channel-main .typing").text == "Alice is typing…", what="Alice typing")
    sent = alice.send()
    hello = bob.message("hello bob", user="alice")
    message_id = hello.get_attribute("data-id")
    # Everyone with the channel open has read it: Bob among them (the other tests' people are still there).
    alice.wait(lambda _: "Bob" in alice.find(".channel-main .read-state").text.removeprefix("Seen by ").split(", "), what="Bob's read")
    bob.wait(lambda _: bob.find(".channel-main .typing").text == "", what="the typing line cleared")

    bob.find("button.quick-reaction[data-reaction='like']", hello).click()
    chip = f"article[data-id='{message_id}'] .reactions .reaction[data-reaction='like']"
    alice.wait(lambda _: alice.find(chip).text == "👍 1", what="Bob's reaction")
    bob.wait(lambda _: "own" in bob.find(chip).get_attribute("class"), what="Bob's own reaction marked")

    mine = alice.message("hello bob", user="alice")
    alice.find("button.edit", mine).click()
    text = alice.find(".channel-main .composer textarea[name='text']")
    assert text.get_attribute("value") == "hello bob"
    text.send_keys(", edited")
    alice.find(".channel-main button.send").click()
    edited = bob.message("hello bob, edited", user="alice")
    assert bob.find(".edited", edited).text == "(edited)"
    assert bob.find(chip).text == "👍 1", "the edit kept the reaction"

    bob.find("button.reply", edited).click()
    bob.wait_for(f".thread-inner[data-parent='{message_id}']")
    bob.send("a reply in the thread", where=".thread")
    replies = alice.wait_for(f"article[data-id='{message_id}'] button.replies")
    assert replies.text == "1 reply"
    replies.click()
    alice.message("a reply in the thread", user="bob", where=".thread")
    keep_screenshot(alice, "playground-thread")
    alice.find(".close-thread").click()
    bob.find(".close-thread").click()

    alice.find("button.delete", alice.message("hello bob, edited", user="alice")).click()
    for window in (alice, bob):
        window.wait(lambda _: window.find(f"article[data-id='{message_id}'] .text").text == "This message was deleted.", what="the deletion")
    sdk.post(f"messages/{message_id}/undelete", data={"undeleted_by": "moderator"})
    bob.message("hello bob, edited", user="alice")
    assert sent == message_id
