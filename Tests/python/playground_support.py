"""What the playground's browser tests share: `bots run` of the repository's bots.yaml on port 0
(one run per test module), the browsers by name (each one a test used is photographed when it
fails), Bob watching messaging:general, and the official SDK against the same dev server."""

import os

import pytest
from stream_chat import StreamChat

from browser import Browser
from conftest import ROOT
from test_bots_run import BotsRun

GENERAL = "messaging:general"
GALLERY = "messaging:gallery"  # no bot watches it: what is posted there stays as posted

RENDERERS = """
import { registerPayloadRenderer } from "/playground/payload-cards.js";

registerPayloadRenderer("route", (route, { el }) =>
  el("div", { className: "route" }, el("strong", {}, `🗺 ${route.name}`), ` ${route.distance_km} km`),
  { template: { type: "route", name: "Park loop", distance_km: 5.2 } });
"""


def start_playground(folder, edit=lambda text: text, env=None):
    """`bots run` of the repository's bots.yaml, its three ports on 0, in `folder`, with a bot
    author's own payload renderer; `edit` changes the configuration's text further, `env` adds
    to the environment."""
    text = (ROOT / "bots.yaml").read_text()
    assert "dev_tokens: true" in text, "the shipped bots.yaml runs the dev server in dev mode, so `make run` serves the playground"
    for port in ("8787", "9464", "8789"):
        assert f"port: {port}" in text, f"the test expects the shipped bots.yaml's port {port}"
        text = text.replace(f"port: {port}", "port: 0")
    # A bot author's own renderer, through the documented hook.
    (folder / "renderers.js").write_text(RENDERERS)
    text = text.replace("embedded:\n", f"embedded:\n  playground_renderers: {folder / 'renderers.js'}\n", 1)
    config = folder / "bots.yaml"
    config.write_text(edit(text))
    environment = {key: value for key, value in os.environ.items() if key not in ("CHAT_API_KEY", "CHAT_API_SECRET", "OPENAI_API_KEY")}
    environment.update(env or {})
    run = BotsRun(config, env=environment)
    run.folder = folder
    return run


@pytest.fixture(scope="module")
def playground(tmp_path_factory):
    """The playground of the repository's bots.yaml as shipped (no model configured)."""
    run = start_playground(tmp_path_factory.mktemp("playground"))
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


def shown_text(page, css):
    """The text of a message as the page holds it (selenium's .text folds control characters, which the tiny model writes)."""
    return page.script("return document.querySelector(arguments[0])?.textContent ?? ''", f"{css} .text")
