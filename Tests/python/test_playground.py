"""The web playground in real Chromium: `bots run` with the repository's bots.yaml (the three
example bots, dev mode) on port 0, one run for the module; each test is a person at the page,
and Bob, in a second browser, watches messaging:general the whole time and sees it all live.
The workout bot answers questions through a real model server (llama-cpp-python, the tiny
random model: its words are nonsense, the tests check what the page does with them)."""

import os
import re
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib

import pytest
from stream_chat import StreamChat

from browser import Browser, keep_screenshot
from conftest import ROOT, wait_for
from model_server import ModelServer, write_tiny_model
from test_bots_run import BotsRun

GENERAL = "messaging:general"
GALLERY = "messaging:gallery"  # no bot watches it: what is posted there stays as posted
# Channels where the workout bot answers questions too: a short conversation of their own keeps
# the model's prompt small (the tiny model reads 4,096 tokens at most).
ASK, ASK_AGAIN = "messaging:ask", "messaging:ask-again"
QUESTION = "@workout-bot how far did I run this week?"


RENDERERS = """
import { registerPayloadRenderer } from "/playground/payload-cards.js";

registerPayloadRenderer("route", (route, { el }) =>
  el("div", { className: "route" }, el("strong", {}, `🗺 ${route.name}`), ` ${route.distance_km} km`),
  { template: { type: "route", name: "Park loop", distance_km: 5.2 } });
"""


class ChatmlModelServer(ModelServer):
    """model_server.py's server in llama-cpp-python's plain `chatml` format. The shared fixture's
    `chatml-function-calling` refuses to stream an answer under `tool_choice: auto` (what the
    workout bot sends with its tools) once the model picks a tool: "Automatic streaming tool
    choice is not supported", and the bot says the connection broke off. Plain chatml leaves the
    tools out and streams text."""

    def start(self, timeout=120):
        self.folder.mkdir(parents=True, exist_ok=True)
        model = write_tiny_model(self.folder / "tiny.gguf")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "tiny", "--host", "127.0.0.1",
             "--port", "0", "--chat_format", "chatml", "--n_ctx", "4096", "--n_threads", "1", "--verbose", "false"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ready = threading.Event()

        def read():
            for line in self.process.stdout:
                self.output.append(line)
                match = re.search(r"running on (http://127\.0\.0\.1:\d+)", line)
                if match and self.url is None:
                    self.url = match.group(1) + "/v1"
                    ready.set()
        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(timeout):
            self.stop()
            raise RuntimeError("llama_cpp.server did not listen:\n" + "".join(self.output[-40:]))
        return self


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory):
    server = ChatmlModelServer(tmp_path_factory.mktemp("chat-model")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def playground(tmp_path_factory, chat_model):
    """`bots run` of the repository's bots.yaml, its three ports on 0, in a folder of its own; the
    workout bot also in the question channels, its `llm:` the test's model server."""
    folder = tmp_path_factory.mktemp("playground")
    text = (ROOT / "bots.yaml").read_text()
    assert "dev_tokens: true" in text, "the shipped bots.yaml runs the dev server in dev mode, so `make run` serves the playground"
    for port in ("8787", "9464", "8789"):
        assert f"port: {port}" in text, f"the test expects the shipped bots.yaml's port {port}"
        text = text.replace(f"port: {port}", "port: 0")
    workout = "    user: workout-bot\n    channels: [messaging:general]\n"
    assert workout in text and re.search(r"^llm:", text, re.M), "the test expects the shipped bots.yaml's workout bot and llm section"
    text = text.replace(workout, f"    user: workout-bot\n    channels: [messaging:general, {ASK}, {ASK_AGAIN}]\n")
    # The tiny model never ends an answer before max_tokens, and llama-cpp-python holds back its
    # stray bytes until the end: 400 tokens are an answer of a few seconds to stop in the middle.
    text = re.sub(r"^llm:.*$", "llm:\n  max_tokens: 400", text, count=1, flags=re.M)
    # A bot author's own renderer, through the documented hook.
    (folder / "renderers.js").write_text(RENDERERS)
    text = text.replace("embedded:\n", f"embedded:\n  playground_renderers: {folder / 'renderers.js'}\n", 1)
    config = folder / "bots.yaml"
    config.write_text(text)
    env = {key: value for key, value in os.environ.items() if key not in ("CHAT_API_KEY", "CHAT_API_SECRET", "OPENAI_API_KEY")}
    env.update(LLM_URL=chat_model.url, LLM_MODEL="tiny")
    run = BotsRun(config, env=env)
    run.folder = folder
    yield run
    assert run.terminate() == 0, "".join(run.output)


@pytest.fixture(scope="module")
def module_browsers():
    opened = {}

    def browser(name):
        if name not in opened:
            opened[name] = Browser(name)
        return opened[name]
    yield browser
    for browser in opened.values():
        browser.quit()


@pytest.fixture(scope="module")
def bob_window(playground, module_browsers):
    return module_browsers("bob").open(playground.base_url, "bob", GENERAL, name="Bob")


@pytest.fixture
def browsers(request, module_browsers):
    """A browser by name; each one a test uses is photographed if the test fails."""
    request.node.browsers_in_use = []

    def browser(name):
        chosen = module_browsers(name)
        if chosen not in request.node.browsers_in_use:
            request.node.browsers_in_use.append(chosen)
        return chosen
    return browser


@pytest.fixture
def bob(bob_window, browsers):
    return browsers("bob")


@pytest.fixture
def sdk(playground):
    return StreamChat("dev-key", "a-dev-secret-of-at-least-32-bytes", base_url=playground.base_url + "/", timeout=10.0)


def test_run_prints_the_playground_first_and_a_deep_link_opens_the_channel_in_under_a_second(playground, browsers):
    assert playground.output[0].startswith(f"Playground: {playground.base_url}/"), playground.output
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


def png(width=96, height=64):
    """A real PNG: a blue-to-green gradient."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (40, 80 + x * 150 // width, 200 - y * 2)) for y in range(height))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def wav(seconds=0.5, rate=8000):
    """A real WAV: a 440 Hz tone."""
    import math
    samples = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * 440 * n / rate))) for n in range(int(seconds * rate)))
    return (b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
            + b"data" + struct.pack("<I", len(samples)) + samples)


def test_every_built_in_attachment_and_a_live_location_are_drawn_as_a_user_expects(playground, browsers, sdk, tmp_path):
    sdk.upsert_user({"id": "gallery", "name": "Gallery bot"})
    channel = sdk.channel("messaging", "gallery", data={"name": "Gallery"})
    channel.create("gallery")
    page = browsers("gina").open(playground.base_url, "gina", GALLERY, name="Gina")
    (tmp_path / "chart.png").write_bytes(png())
    (tmp_path / "tone.wav").write_bytes(wav())
    (tmp_path / "notes.txt").write_text("splits: 5:01, 4:58\n" * 100)
    image = channel.send_image(str(tmp_path / "chart.png"), "chart.png", {"id": "gallery"}, content_type="image/png")["file"]
    tone = channel.send_file(str(tmp_path / "tone.wav"), "tone.wav", {"id": "gallery"}, content_type="audio/wav")["file"]
    notes = channel.send_file(str(tmp_path / "notes.txt"), "notes.txt", {"id": "gallery"}, content_type="text/plain")["file"]
    attachments = [
        {"type": "image", "image_url": image, "fallback": "chart.png", "file_size": len(png()), "mime_type": "image/png"},
        {"type": "video", "asset_url": tone, "thumb_url": image, "title": "finish.webm", "mime_type": "video/webm", "file_size": 48000},
        {"type": "audio", "asset_url": tone, "title": "tone.wav", "mime_type": "audio/wav", "file_size": len(wav())},
        {"type": "voiceRecording", "asset_url": tone, "title": "voice.wav", "duration": 0.5, "waveform_data": [0.1, 0.6, 0.9, 0.4, 0.2] * 8},
        {"type": "file", "asset_url": notes, "title": "notes.txt", "mime_type": "text/plain", "file_size": 1900},
        {"type": "giphy", "title": "high five", "title_link": "https://giphy.com/gifs/high-five", "thumb_url": image},
        {"type": "image", "og_scrape_url": "https://runlog.example.com/posts/7", "title": "Run & coffee", "text": "An easy 5k.",
         "author_name": "RunLog", "title_link": "https://runlog.example.com/posts/7", "image_url": image},
        {"type": "route", "name": "Park loop", "distance_km": 5.2},
        {"type": "split", "name": "Park loop", "distance_km": 5.2, "tags": ["flat", "shade"]},
    ]
    channel.send_message({"text": "every kind of attachment", "attachments": attachments}, "gallery")
    shown = page.message("every kind of attachment", user="gallery")
    kinds = [node.get_attribute("data-type") for node in page.find_all(".attachment", shown)]
    assert kinds == ["image", "video", "audio", "voiceRecording", "file", "giphy", "linkPreview", "route", "split"]
    thumbnail = page.find(".attachment-image img", shown)
    assert "w=480" in thumbnail.get_attribute("src") and "h=320" in thumbnail.get_attribute("src") and "resize=clip" in thumbnail.get_attribute("src")
    page.wait(lambda _: page.script("return arguments[0].complete && arguments[0].naturalWidth", thumbnail) == 96, what="the thumbnail loaded")
    assert page.find(".attachment-video video", shown).get_attribute("poster") == image
    assert page.find(".attachment-audio audio", shown).get_attribute("src") == tone
    assert len(page.find_all(".attachment-voiceRecording .waveform span", shown)) == 40 and page.find(".duration", shown).text == "0:01"
    assert page.find(".attachment-file .file-name", shown).text == "notes.txt" and "1.9 KB · text/plain" in page.find(".attachment-file", shown).text
    assert page.find(".attachment-giphy img", shown).get_attribute("src") == image
    assert page.find(".link-preview .preview-title", shown).text == "Run & coffee"
    # The bot's own renderer draws its type; a type nobody registered is a card of its fields.
    assert page.find(".attachment-route .payload-card .route", shown).text == "🗺 Park loop 5.2 km"
    card = page.find(".attachment-split .payload-card.fields", shown).text
    assert "name\nPark loop" in card and "distance_km\n5.2" in card and 'tags\n["flat","shade"]' in card

    end_at = __import__("datetime").datetime.now(__import__("datetime").timezone.utc) + __import__("datetime").timedelta(minutes=30)
    walk = channel.send_message({"text": "out for a walk", "shared_location": {"latitude": 52.52, "longitude": 13.405, "end_at": end_at.isoformat()}},
                                "gallery")["message"]
    location = page.find(".location", page.message("out for a walk", user="gallery"))
    assert location.get_attribute("data-live") == "true" and page.find(".where", location).text == "52.52000, 13.40500"
    sdk.update_user_location("gallery", walk["id"], {"latitude": 52.529, "longitude": 13.405})
    page.wait(lambda _: page.find(".where", page.message("out for a walk")).text == "52.52900, 13.40500", what="the location moved")
    keep_screenshot(page, "playground-attachments", height=1700)


def test_html_and_javascript_links_in_a_message_run_no_script_and_show_as_text(playground, browsers, sdk):
    attack = '<img src=x onerror="window.__pwned=1">'
    sdk.upsert_user({"id": "mallory", "name": attack})
    channel = sdk.channel("messaging", "gallery")
    channel.add_members(["mallory"])
    page = browsers("gina").open(playground.base_url, "gina", GALLERY, name="Gina")
    channel.send_message({"text": f"{attack} javascript:window.__pwned=2 <script>window.__pwned=3</script>", "attachments": [
        {"type": "file", "asset_url": "javascript:window.__pwned=4", "title": attack},
        {"type": "image", "image_url": "javascript:window.__pwned=5", "fallback": attack},
        {"type": "video", "og_scrape_url": "javascript:window.__pwned=6", "title_link": "javascript:window.__pwned=7", "title": attack,
         "text": attack, "image_url": "x\" onerror=\"window.__pwned=8"},
        {"type": "workout", "workout-type": attack, "workout-distance-meters": attack},
        {"type": "anything", attack: attack, "link": "javascript:window.__pwned=9", "actions": [{"name": attack, "text": attack, "value": attack}]},
    ]}, "mallory")
    shown = page.message("<script>", user="mallory")
    assert page.find(".author", shown).text == attack
    assert page.find(".text", shown).text.startswith(attack)
    state = page.script("""
        const all = [...document.querySelectorAll('*')];
        return {
            pwned: window.__pwned === undefined ? null : window.__pwned,
            handlers: all.filter(node => [...node.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length,
            scripts: [...document.scripts].map(s => s.getAttribute('src')),
            links: [...document.querySelectorAll('[href]')].map(node => node.getAttribute('href')),
            sources: [...document.querySelectorAll('[src]')].map(node => node.getAttribute('src')),
        };
    """)
    assert state["pwned"] is None and state["handlers"] == 0, state
    assert state["scripts"] == ["/playground/app.js"], state
    assert all(href.startswith(("http://", "https://", "/")) for href in state["links"]), state
    assert all(src.startswith(("http://", "https://", "/")) for src in state["sources"]), state
    for node in page.find_all("a[target='_blank']"):
        assert node.get_attribute("rel") == "noopener noreferrer"


# Each time a page draws an AI reply, what it showed: its text, the indicator's state and label, a Stop button.
AI_RECORDER = """window.__ai = []; const list = document.querySelector('.channel-main .messages');
    new MutationObserver(() => list.querySelectorAll('article.message.ai').forEach(node => {
        const shot = {id: node.dataset.id, text: node.querySelector('.text')?.textContent ?? '',
                      state: node.querySelector('.ai-indicator')?.dataset.state ?? null,
                      label: node.querySelector('.ai-state')?.textContent ?? null, stop: Boolean(node.querySelector('.stop-generating'))};
        const last = window.__ai.filter(other => other.id === shot.id).pop();
        if (JSON.stringify(last) !== JSON.stringify(shot)) window.__ai.push(shot);
    })).observe(list, {childList: true, subtree: true});"""


def shown_text(page, css):
    """The text of a message as the page holds it (selenium's .text folds control characters, which the tiny model writes)."""
    return page.script("return document.querySelector(arguments[0])?.textContent ?? ''", f"{css} .text")


def ask(page):
    """Asks the workout bot the question; the CSS selector of its AI reply."""
    asked = page.send(QUESTION)
    reply = page.wait(lambda _: next((n for n in page.messages() if n.get_attribute("data-user") == "workout-bot"
                                      and "ai" in n.get_attribute("class").split()
                                      and n.get_attribute("data-id") != asked), False), what="the bot's AI reply")
    return f".channel-main article.message.ai[data-id='{reply.get_attribute('data-id')}']", reply.get_attribute("data-id")


def test_a_question_streams_its_answer_under_the_thinking_indicator_until_it_ends(playground, browsers, sdk):
    page = browsers("quinn").open(playground.base_url, "quinn", ASK, name="Quinn")
    page.message("Welcome, Quinn!", user="workout-bot")
    page.script(AI_RECORDER)
    reply, reply_id = ask(page)
    page.wait(lambda _: page.find_all(f"{reply} .text") and not page.find_all(f"{reply} .ai-indicator"), timeout=180, what="the whole answer")
    answer = sdk.get_message(reply_id)["message"]
    assert answer["ai_generated"] is True and answer["generating"] is False and "ai_stopped" not in answer and answer["text"]
    shots = [shot for shot in page.script("return window.__ai") if shot["id"] == reply_id]
    # Asked: an empty reply, thinking, which could be stopped.
    assert {"id": reply_id, "text": "", "state": "AI_STATE_THINKING", "label": "Thinking…", "stop": True} in shots, shots
    # Then the text grew, each time the text before and more, while the indicator said generating.
    texts = [shot["text"] for shot in shots]
    assert texts[0] == "" and all(later.startswith(earlier) for earlier, later in zip(texts, texts[1:])), texts
    assert any(shot["text"] and shot["text"] != answer["text"] and shot["label"] == "Generating…" and shot["stop"] for shot in shots), shots
    # And it ended: the whole text, no indicator, no Stop, and no "(edited)" for a reply that grew.
    assert shots[-1] == {"id": reply_id, "text": answer["text"], "state": None, "label": None, "stop": False}, shots[-1]
    assert shown_text(page, reply) == answer["text"] and not page.find_all(f"{reply} .edited")


def test_stop_ends_the_answer_with_the_text_so_far_and_it_grows_no_more(playground, browsers, sdk):
    page = browsers("sam").open(playground.base_url, "sam", ASK_AGAIN, name="Sam")
    page.message("Welcome, Sam!", user="workout-bot")
    reply, reply_id = ask(page)
    page.wait(lambda _: page.find_all(f"{reply} .text") and page.find(f"{reply} .ai-indicator").get_attribute("data-state") == "AI_STATE_GENERATING",
              timeout=120, what="the answer being written")
    keep_screenshot(page, "playground-ai")
    so_far = shown_text(page, reply)
    page.find(f"{reply} button.stop-generating").click()
    page.wait(lambda _: page.find(f"{reply} .ai-indicator").get_attribute("data-state") == "stopped", timeout=60, what="the stopped answer")
    assert page.find(f"{reply} .ai-indicator").text == "Stopped" and not page.find_all(f"{reply} .stop-generating")
    stopped = sdk.get_message(reply_id)["message"]
    assert stopped["ai_stopped"] is True and stopped["generating"] is False
    assert stopped["text"].startswith(so_far) and shown_text(page, reply) == stopped["text"]
    # Stopped for good: neither the service's copy nor the page's changes any more.
    time.sleep(3)
    again = sdk.get_message(reply_id)["message"]
    assert (again["text"], again["updated_at"]) == (stopped["text"], stopped["updated_at"])
    assert shown_text(page, reply) == stopped["text"]


def test_an_ai_reply_that_fails_shows_its_error_as_text_without_a_stop_button(playground, browsers, sdk):
    sdk.upsert_user({"id": "assistant", "name": "Assistant"})
    channel = sdk.channel("messaging", "gallery", data={"name": "Gallery"})
    channel.create("assistant")
    channel.add_members(["assistant"])
    page = browsers("gina").open(playground.base_url, "gina", GALLERY, name="Gina")
    reply_id = channel.send_message({"text": "", "ai_generated": True, "generating": True}, "assistant")["message"]["id"]
    reply = f".channel-main article.message.ai[data-id='{reply_id}']"

    def indicate(state):
        channel.send_event({"type": "ai_indicator.update", "ai_state": state, "message_id": reply_id}, "assistant")

    def shows(state, label):
        return lambda _: (page.find(f"{reply} .ai-indicator").get_attribute("data-state") == state
                          and page.find(f"{reply} .ai-state").text == label)
    indicate("AI_STATE_THINKING")
    page.wait(shows("AI_STATE_THINKING", "Thinking…"), what="thinking")
    indicate("AI_STATE_EXTERNAL_SOURCES")
    page.wait(shows("AI_STATE_EXTERNAL_SOURCES", "Checking sources…"), what="checking sources")
    assert page.find(f"{reply} .stop-generating").text == "Stop"
    attack = '<img src=x onerror="window.__pwned=1">'
    sdk.update_message_partial(reply_id, {"set": {"text": f"Half {attack}", "generating": True}}, "assistant")
    indicate("AI_STATE_GENERATING")
    page.wait(lambda _: shows("AI_STATE_GENERATING", "Generating…")(_) and shown_text(page, reply) == f"Half {attack}", what="the text so far")
    sdk.update_message_partial(reply_id, {"set": {"text": f"Half {attack}\n\n(The answer broke off.)", "generating": False,
                                                  "ai_error": {"message": attack, "detail": "the stream was cut"}}}, "assistant")
    indicate("AI_STATE_ERROR")
    page.wait(shows("AI_STATE_ERROR", f"Error: {attack}"), what="the error")
    assert not page.find_all(f"{reply} .stop-generating") and not page.find_all(f"{reply} img") and not page.find_all(f"{reply} .edited")
    assert page.script("return window.__pwned === undefined")
    channel.send_event({"type": "ai_indicator.clear", "message_id": reply_id}, "assistant")
    page.wait(lambda _: not page.find_all(f"{reply} .ai-indicator"), what="the indicator cleared")
