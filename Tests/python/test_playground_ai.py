"""AI replies in the playground, in real Chromium: the workout bot answers a question through a
real model server (llama-cpp-python serving the tiny random model; its words are nonsense, so the
tests check what the page does with them), streamed on Stream's AI protocol, and a Stop button
that ends it."""

import re
import time

import pytest

from browser import keep_screenshot
from playground_support import start_playground, shown_text, module_browsers, browsers, sdk  # noqa: F401 (fixtures)

# Channels of their own: a short conversation keeps the model's prompt small (the tiny model reads
# 4,096 tokens at most).
ASK, ASK_AGAIN = "messaging:ask", "messaging:ask-again"
QUESTION = "@workout-bot how far did I run this week?"


@pytest.fixture(scope="module")
def playground(tmp_path_factory, model_server):
    """The repository's playground, with the workout bot also in the question channels and its
    `llm:` the test's model server."""
    def edit(text):
        workout = "    user: workout-bot\n    channels: [messaging:general]\n"
        assert workout in text and re.search(r"^llm:", text, re.M), "the test expects the shipped bots.yaml's workout bot and llm section"
        text = text.replace(workout, f"    user: workout-bot\n    channels: [messaging:general, {ASK}, {ASK_AGAIN}]\n")
        # The tiny model never ends an answer before max_tokens: 3,000 tokens are an answer of
        # several seconds to stop in the middle.
        return re.sub(r"^llm:.*$", "llm:\n  max_tokens: 3000", text, count=1, flags=re.M)
    run = start_playground(tmp_path_factory.mktemp("playground-ai"), edit, env={"LLM_URL": model_server.url, "LLM_MODEL": "tiny"})
    yield run
    assert run.terminate() == 0, "".join(run.output)


# Each time a page draws an AI reply, what it showed: its text, the indicator's state and label, a Stop button.
AI_RECORDER = """window.__ai = []; const list = document.querySelector('.channel-main .messages');
    new MutationObserver(() => list.querySelectorAll('article.message.ai').forEach(node => {
        const shot = {id: node.dataset.id, text: node.querySelector('.text')?.textContent ?? '',
                      state: node.querySelector('.ai-indicator')?.dataset.state ?? null,
                      label: node.querySelector('.ai-state')?.textContent ?? null, stop: Boolean(node.querySelector('.stop-generating'))};
        const last = window.__ai.filter(other => other.id === shot.id).pop();
        if (JSON.stringify(last) !== JSON.stringify(shot)) window.__ai.push(shot);
    })).observe(list, {childList: true, subtree: true});"""


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
    # Clicked in one step of the page's own: a partial update may draw the reply anew between
    # finding the button and clicking it.
    page.script("document.querySelector(arguments[0]).click()", f"{reply} button.stop-generating")
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
