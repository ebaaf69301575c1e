"""A real OpenAI-compatible model server for the tests: llama-cpp-python's server on a free
loopback port, serving the tiny random-weight llama model that ChatBotKitTesting's
tiny_model.py writes (the same script the Swift fixture TestModelServer uses)."""

import importlib.util
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "Sources" / "ChatBotKitTesting" / "Resources" / "tiny_model.py"


def write_tiny_model(path: Path, seed: int = 7) -> Path:
    spec = importlib.util.spec_from_file_location("tiny_model", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write(str(path), seed)
    return path


class ModelServer:
    """`python -m llama_cpp.server` on port 0; `url` is its `/v1` base once it listens."""

    def __init__(self, folder: Path, api_key: str | None = None, chat_format: str = "chatml-function-calling"):
        self.folder = folder
        self.api_key = api_key
        self.chat_format = chat_format
        self.process = None
        self.url = None
        self.output = []

    def start(self, timeout=120):
        self.folder.mkdir(parents=True, exist_ok=True)
        model = write_tiny_model(self.folder / "tiny.gguf")
        args = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "tiny",
                "--host", "127.0.0.1", "--port", "0", "--chat_format", self.chat_format,
                "--n_ctx", "4096", "--n_threads", "1", "--verbose", "false",
                # By default a new request cuts off the one being streamed; tests share the server.
                "--interrupt_requests", "false"]
        if self.api_key:
            args += ["--api_key", self.api_key]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
