"""A PostgreSQL server of the test's own (Debian's `postgresql` package) in a temporary folder,
reached through a Unix socket in it; run as the `postgres` user when the tests run as root, as
PostgreSQL refuses root."""

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


def _binaries() -> Path:
    root = Path("/usr/lib/postgresql")
    versions = sorted((int(p.name) for p in root.iterdir() if p.name.isdigit()), reverse=True) if root.exists() else []
    for version in versions:
        folder = root / str(version) / "bin"
        if (folder / "initdb").exists():
            return folder
    raise RuntimeError("no PostgreSQL server is installed; install it with: apt-get install postgresql")


class PostgresServer:
    def __init__(self):
        self.binaries = _binaries()
        # Short: a Unix socket's path is limited to 107 bytes.
        self.folder = Path(tempfile.mkdtemp(prefix="cbk-pg-", dir="/tmp"))
        self.run_as = "postgres" if os.getuid() == 0 else None
        if self.run_as:
            account = pwd.getpwnam(self.run_as)
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self.log = open(self.folder / "server.log", "a")
        self.process = None
        self.url = f"postgres:///postgres?host={self.folder}&user=postgres"

    def _command(self, program, *arguments):
        command = [str(self.binaries / program), *arguments]
        if self.run_as:
            command = ["setpriv", f"--reuid={self.run_as}", f"--regid={self.run_as}", "--init-groups", "--", *command]
        return command

    def start(self):
        data = str(self.folder / "data")
        subprocess.run(self._command("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"),
                       stdout=self.log, stderr=self.log, check=True)
        self.process = subprocess.Popen(
            self._command("postgres", "-D", data, "-k", str(self.folder), "-c", "listen_addresses=", "-c", "fsync=off",
                          "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "shared_buffers=16MB"),
            stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("PostgreSQL stopped while starting:\n" + (self.folder / "server.log").read_text())
            if subprocess.run([str(self.binaries / "pg_isready"), "-q", "-h", str(self.folder), "-U", "postgres"]).returncode == 0:
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("PostgreSQL did not take connections within 30 s")

    def sql(self, statement: str) -> list[list[str]]:
        """Rows of `statement`, through psql."""
        output = subprocess.run([str(self.binaries / "psql"), "-h", str(self.folder), "-U", "postgres", "-At", "-F", "\t", "-c", statement],
                                capture_output=True, text=True, check=True).stdout
        return [line.split("\t") for line in output.splitlines() if line]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: a fast shutdown
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)
