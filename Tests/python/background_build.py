"""A `swift build` of a package `bots init` writes, started when the tests are collected.

The build compiles every dependency of a bot's package from scratch: about twelve minutes of
both cores, while the other Python tests together take about four minutes and use under a
quarter of the CPU, mostly waiting on sockets and processes. Started first and run at the
lowest CPU priority (SCHED_IDLE where Linux has it, nice 19 elsewhere), the build takes only
the CPU those tests leave idle, and its test runs last and waits for it. The build's processes
run in a process group of their own, stopped with it at the end of the session, but in the tests'
session: Linux's autogroups share the CPU fairly between sessions first, so in a session of its
own (`setsid`) the idle build took a core whatever its priority."""

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path


def _lowest_priority():
    """Runs in the child before `swift` starts; its compiler processes inherit the priority."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


class BackgroundBuild:
    """`bots init NAME` in a temporary folder, then `swift build --build-tests` in the written
    package, in the background."""

    def __init__(self, bots_binary: str, name: str, timeout: float = 1800):
        self.bots_binary = bots_binary
        self.name = name
        self.timeout = timeout
        self.folder = Path(tempfile.mkdtemp(prefix="chatbotkit-written-package-"))
        self.package = self.folder / name
        self.log_path = self.folder / "build.log"
        self.init = None
        self.process = None
        self.started_at = None

    def start(self):
        self.init = subprocess.run([self.bots_binary, "init", self.name], cwd=self.folder, capture_output=True, text=True,
                                   timeout=60)
        if self.init.returncode != 0:
            return self
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(["swift", "build", "--build-tests"], cwd=self.package, stdout=log,
                                            stderr=subprocess.STDOUT, process_group=0, preexec_fn=_lowest_priority)
        self.started_at = time.monotonic()
        return self

    def wait(self):
        """The build's exit status and output; a build still running after `timeout` seconds
        from its start is stopped and reported as failed."""
        remaining = self.timeout - (time.monotonic() - self.started_at)
        try:
            code = self.process.wait(timeout=max(remaining, 0))
        except subprocess.TimeoutExpired:
            self.stop_build()
            return None, f"the build did not finish within {self.timeout:.0f} s\n" + self.output()
        return code, self.output()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _compilers(self):
        """The processes `swift build` started: each compiler job runs in a process group of its
        own, which the build's group does not reach, and one stopped build left a swiftc writing
        into the folder being removed."""
        children = {}
        for entry in Path("/proc").iterdir():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry.name))
            except (ValueError, OSError, IndexError):
                continue
        found, pending = [], [self.process.pid]
        while pending:
            for child in children.get(pending.pop(), []):
                found.append(child)
                pending.append(child)
        return found

    def stop_build(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            compilers = self._compilers() if Path("/proc/self/stat").exists() else []
            os.killpg(self.process.pid, signal.SIGTERM)
            for pid in compilers:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._wait_for_group_to_end()

    def _wait_for_group_to_end(self):
        # The compilers `swift build` started can outlive it by a moment.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        os.killpg(self.process.pid, signal.SIGKILL)

    def remove(self):
        """Stops the build if it still runs and removes the folder: gigabytes of build products."""
        self.stop_build()
        shutil.rmtree(self.folder, ignore_errors=True)
