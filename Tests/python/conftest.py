"""Fixtures that run the real dev server (`bots serve`) on a loopback port and point the
official Python SDK at it. Every process started here is stopped at the end of its test, but
the background build of a written package (background_build.py), stopped at the end of the session."""

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests
from background_build import BackgroundBuild
from stream_chat import StreamChat
from stream_chat.base.exceptions import StreamAPIException

ROOT = Path(__file__).resolve().parents[2]
API_KEY = "test-key"
API_SECRET = "test-secret-of-at-least-thirty-two-bytes"


def bots_binary_path() -> str:
    return os.environ.get("CHATBOTKIT_BOTS_BINARY") or str(ROOT / ".build" / "debug" / "bots")


def bots_binary() -> str:
    binary = bots_binary_path()
    if not os.path.exists(binary):
        pytest.fail(f"the bots binary is missing at {binary}; run `swift build` first")
    return binary


class DevServerProcess:
    """One `bots serve` process on port 0 with its own data folder."""

    def __init__(self, data_dir: Path, extra_args=(), port=0):
        self.data_dir = data_dir
        self.extra_args = list(extra_args)
        self.port = port
        self.process = None
        self.base_url = None

    def start(self):
        self.process = subprocess.Popen(
            [bots_binary(), "serve", "--port", str(self.port), "--data", str(self.data_dir), "--api-key", API_KEY,
             "--api-secret", API_SECRET, "--log-level", "warning", *self.extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 60
        lines = []
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            lines.append(line)
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if match:
                self.base_url = match.group(1)
                # A restart (start again) comes back on the same port, as a redeployed service would.
                self.port = int(self.base_url.rsplit(":", 1)[1])
                self.printed = lines
                return self
        self.stop()
        pytest.fail("the dev server did not start:\n" + "".join(lines))

    def stop(self, expect_clean=True):
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                pytest.fail("the dev server did not stop within 20 s of SIGTERM")
        code = self.process.returncode
        self.process.stdout.close()
        self.process = None
        if expect_clean:
            assert code == 0, f"the dev server exited with {code}"
        return code

    def kill(self):
        """SIGKILL, as a crash: no graceful shutdown."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process.stdout.close()
            self.process = None

    def client(self) -> StreamChat:
        return StreamChat(API_KEY, API_SECRET, base_url=self.base_url + "/", timeout=10.0)

    def url(self, path: str) -> str:
        return self.base_url + path


BACKGROUND_BUILD = pytest.StashKey[BackgroundBuild]()


def pytest_configure(config):
    config.addinivalue_line("markers", "builds_in_background(name): the test checks the package `bots init NAME` writes, "
                                       "built while the other tests run (background_build.py); it runs last")


def pytest_collection_finish(session):
    # After -k and --deselect have chosen the tests: a build no chosen test needs is not started.
    chosen = [item for item in session.items if item.get_closest_marker("builds_in_background")]
    if not chosen or session.config.option.collectonly:
        return
    # Under pytest-xdist every worker collects every test, but only one runs it: the build starts
    # in its fixture instead, once, without the overlap. `make test` runs this test in a session of
    # its own, beside the others and the sanitizer runs, so its build overlaps them all.
    if hasattr(session.config, "workerinput"):
        return
    for item in chosen:
        session.items.remove(item)
        session.items.append(item)
    binary = bots_binary_path()
    # Without the binary the test's fixture fails, saying so; without swift the test is skipped.
    if os.path.exists(binary) and shutil.which("swift") is not None:
        name = chosen[0].get_closest_marker("builds_in_background").args[0]
        session.config.stash[BACKGROUND_BUILD] = BackgroundBuild(binary, name).start()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used browsers (`item.browsers_in_use`, see playground_support.py) leaves a
    screenshot of each in .build/playground-failures/, named after the test and the browser."""
    report = yield
    if report.failed and report.when in ("setup", "call"):
        for browser in getattr(item, "browsers_in_use", []):
            path = ROOT / ".build" / "playground-failures" / f"{item.name}-{browser.name}.png"
            try:
                browser.screenshot(path)
                report.sections.append(("screenshot", str(path)))
            except Exception as error:  # a browser that died cannot be photographed; say so
                report.sections.append(("screenshot", f"none of {browser.name}: {error}"))
    return report


def pytest_sessionfinish(session):
    build = session.config.stash.get(BACKGROUND_BUILD, None)
    if build is not None:
        build.remove()


@pytest.fixture
def background_build(request) -> BackgroundBuild:
    binary = bots_binary()
    if BACKGROUND_BUILD not in request.config.stash:  # a pytest-xdist worker (above)
        name = request.node.get_closest_marker("builds_in_background").args[0]
        request.config.stash[BACKGROUND_BUILD] = BackgroundBuild(binary, name).start()
    return request.config.stash[BACKGROUND_BUILD]


@pytest.fixture
def server(tmp_path):
    process = DevServerProcess(tmp_path / "data", ["--link-lifetime", "2s", "--health-check-interval", "1s"]).start()
    yield process
    process.stop()


@pytest.fixture
def client(server) -> StreamChat:
    return server.client()


@pytest.fixture
def channel(client):
    client.upsert_users([{"id": "bot-1", "name": "Bot"}, {"id": "u2", "name": "Ann"}, {"id": "outsider"}])
    channel = client.channel("messaging", "general", data={"name": "General"})
    channel.create("bot-1")
    channel.add_members(["bot-1", "u2"])
    return channel


def user_headers(client: StreamChat, user_id: str) -> dict:
    """Headers for REST calls made as a user (the Python SDK only uses server tokens)."""
    return {"Authorization": client.create_token(user_id), "stream-auth-type": "jwt", "Content-Type": "application/json"}


def png_bytes() -> bytes:
    return bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + b"FAKEIMAGEDATA" * 100


def wait_for(predicate, timeout=10.0, interval=0.05, what=None):
    """The predicate's first truthy value within `timeout`; else fails, with `what` (a process's
    output lines, say) in the message."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    detail = "" if what is None else ":\n" + ("".join(what[-60:]) if isinstance(what, list) else str(what))
    raise AssertionError("condition not met within %.1f s%s" % (timeout, detail))


def refused(call, status, code, text):
    """Runs `call`, which must fail with this status, Stream code and text in its message."""
    with pytest.raises(StreamAPIException) as error:
        call()
    assert (error.value.status_code, error.value.error_code) == (status, code), str(error.value)
    assert text in error.value.error_message, error.value.error_message
    return error.value


def serving_is_refused(folder, text: str, expected: str):
    """`bots serve` with this configuration (after its server line) exits 78 with `expected`
    after the file's path, and makes no data folder."""
    config = folder / "bots.yaml"
    config.write_text("server: {api_key: k, api_secret: a-secret-of-32-bytes-or-more-yes}\n" + text)
    result = subprocess.run([bots_binary(), "serve", "--config", str(config), "--data", str(folder / "unused")],
                            capture_output=True, text=True, timeout=60, cwd=folder)
    assert result.returncode == 78, result.stdout + result.stderr
    assert f"{config}{expected}" in result.stderr, result.stderr
    assert not (folder / "unused").exists()


__all__ = ["API_KEY", "API_SECRET", "DevServerProcess", "user_headers", "png_bytes", "wait_for", "serving_is_refused", "requests"]


@pytest.fixture(scope="session")
def model_server(tmp_path_factory):
    """One real model server (llama-cpp-python, a tiny random model) for the tests that need one,
    in its plain `chatml` format. Its `chatml-function-calling` format refuses to stream under
    `tool_choice: auto` (what the workout bot sends with its tools) once the model picks a tool
    ("Automatic streaming tool choice is not supported"), which OpenAI, Ollama and vLLM all do;
    plain chatml leaves the tools out and streams text. Forced tool calls are tested in Swift
    (ChatBotKitAITests, WorkoutQuestionTests)."""
    from model_server import ModelServer
    server = ModelServer(tmp_path_factory.mktemp("model"), chat_format="chatml").start()
    yield server
    server.stop()

