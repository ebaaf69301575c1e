"""A bot kind of one's own in bots.yaml: `coach` (Examples/CoachBot) is an executable of its own
that calls `BotsCLI.main(kinds: [Coach.self])`, as a user's would, and so is the whole tool
(run, simulate, send, doctor) for bots.yaml files naming `kind: coach`. Each test runs the real
executable; the servers it starts are on 127.0.0.1, port 0, and stopped at the end."""

import json
import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest
from stream_chat import StreamChat

from conftest import ROOT, bots_binary, wait_for
from test_bots_run import BotsRun

WORKOUT = json.dumps({"type": "workout", "distance": 5000}, separators=(",", ":"))


def coach_binary() -> str:
    binary = Path(bots_binary()).with_name("coach")
    if not binary.exists():
        pytest.fail(f"the coach example is missing at {binary}; run `swift build` first")
    return str(binary)


def coach(folder, *args, timeout=60):
    return subprocess.run([coach_binary(), *args], cwd=folder, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def project(tmp_path):
    """A folder with the example's bots.yaml, its server on port 0."""
    text = (ROOT / "Examples" / "CoachBot" / "bots.yaml").read_text()
    assert "port: 8787" in text
    (tmp_path / "bots.yaml").write_text(text.replace("port: 8787", "port: 0"))
    return tmp_path


def test_the_tool_names_itself_after_the_executable(project):
    result = coach(project, "--help")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "USAGE: coach <subcommand>" in result.stdout
    assert all(name in result.stdout for name in ("run", "serve", "send", "simulate", "doctor", "replay"))
    # Its own subcommand, after the built-in ones.
    assert re.search(r"\n  init\s.*\n  cheer +Cheer a user on, as a coach bot of bots\.yaml\.\n", result.stdout, re.S), result.stdout
    checked = coach(project, "run", "--check")
    assert (checked.returncode, checked.stdout.strip()) == (0, "bots.yaml: 1 bot, configuration is valid")


def test_a_simulated_workout_gets_the_coachs_answer_with_the_cheer_from_bots_yaml(project):
    done = coach(project, "simulate", "--attachment", WORKOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  coach  workout: Workout" in done.stdout
    assert "  coach-bot wrote:\n    Way to go, 5000 m!" in done.stdout
    # Without the option, the kind's own default.
    config = project / "bots.yaml"
    config.write_text(config.read_text().replace("    cheer: Way to go\n", ""))
    done = coach(project, "simulate", "--attachment", WORKOUT)
    assert "  coach-bot wrote:\n    Nice, 5000 m!" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("change, expected", [
    # The tool knows the kinds it was given, and only those.
    (("kind: coach", "kind: workout"), 'bots.yaml:9:11: error: unknown bot kind "workout"; known kinds: coach'),
    # The kind's own option is checked by the kind, located in the file.
    (("cheer: Way to go", "cheer: [1, 2]"), "bots.yaml:12:12: error:"),
    (("cheer: Way to go", "chear: Way to go"), 'bots.yaml:12:5: error: unknown key "chear" in bots[0] (did you mean "cheer"?)'),
])
def test_a_mistake_in_a_coach_entry_is_located_and_nothing_runs(project, change, expected):
    config = project / "bots.yaml"
    config.write_text(config.read_text().replace(*change))
    for args in (("run", "--check"), ("run",), ("simulate", "--text", "hi")):
        result = coach(project, *args)
        assert result.returncode == 78, (args, result.stdout + result.stderr)
        assert result.stderr.startswith(expected), (args, result.stderr)
    assert not (project / ".bots").exists()


def test_the_example_bots_are_not_kinds_of_the_coach_tool_nor_the_coach_one_of_bots(project):
    result = coach(ROOT, "run", "--check", "--config", str(ROOT / "bots.yaml"))
    assert result.returncode == 78
    assert 'unknown bot kind "workout"; known kinds: coach' in result.stderr, result.stderr
    result = subprocess.run([bots_binary(), "run", "--check", "--config", str(project / "bots.yaml")],
                            capture_output=True, text=True, timeout=60, cwd=project)
    assert result.returncode == 78
    assert 'unknown bot kind "coach"; known kinds: archive, moderation, workout' in result.stderr, result.stderr


def test_coach_run_prints_the_kinds_sample_and_the_coach_answers_it(project):
    run = BotsRun(project / "bots.yaml", binary=coach_binary())
    try:
        printed = [line.strip() for line in run.output if line.strip().startswith(coach_binary() + " ")]
        sends = [line for line in printed if " send " in line]
        assert len(sends) == 1 and sends[0].endswith(f"--user alice --attachment '{WORKOUT}'"), "".join(run.output)
        assert f"--server {run.base_url} " in sends[0]
        assert any(" events --config " in line for line in printed)
        sent = subprocess.run(shlex.split(sends[0]), capture_output=True, text=True, timeout=60, cwd=project)
        assert sent.returncode == 0, sent.stdout + sent.stderr
        assert re.search(r"Sent \S+ to messaging:general as alice", sent.stdout), sent.stdout
        # The official SDK sees the coach's answer in the channel.
        client = StreamChat("dev-key", "a-dev-secret-of-at-least-32-bytes", base_url=run.base_url + "/", timeout=10.0)
        channel = client.channel("messaging", "general")

        def answers():
            messages = channel.query(messages={"limit": 100})["messages"]
            return [m["text"] for m in messages if m["user"]["id"] == "coach-bot"]
        assert wait_for(lambda: answers() == ["Way to go, 5000 m!"], timeout=20), answers()
        # The kind's own option, changed while it runs (SIGHUP applies bots.yaml): the bot is
        # rebuilt with it, without a restart. The bot answers in order, so its newest answer is
        # to the newest workout.
        config = project / "bots.yaml"
        config.write_text(config.read_text().replace("cheer: Way to go", "cheer: Go go"))
        run.process.send_signal(signal.SIGHUP)

        def answered_with_the_new_cheer():
            before = len(answers())
            assert subprocess.run(shlex.split(sends[0]), capture_output=True, timeout=60, cwd=project).returncode == 0
            assert wait_for(lambda: len(answers()) > before, timeout=20)
            return answers()[-1] == "Go go, 5000 m!"
        assert wait_for(answered_with_the_new_cheer, timeout=30, interval=0.2), answers()
        doctor = coach(project, "doctor", "--server", run.base_url)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        assert "ok    bots.yaml: 1 bot (coach), each with a kind this CLI knows" in doctor.stdout, doctor.stdout
        # The tool's own subcommand: the running coach cheers alice on, with bots.yaml's cheer.
        cheered = coach(project, "cheer", "alice", "--server", run.base_url)
        assert cheered.returncode == 0, cheered.stdout + cheered.stderr
        assert cheered.stdout == "coach-bot in messaging:general: Go go, alice!\n"
        assert wait_for(lambda: answers()[-1] == "Go go, alice!", timeout=20), answers()
        nobody = coach(project, "cheer", "alice", "--bot", "nobody", "--server", run.base_url)
        assert nobody.returncode == 64, nobody.stdout + nobody.stderr
        assert "bots.yaml has no coach bot named nobody" in nobody.stderr
        # The tool's own command's help, under the tool's name, is where it points.
        assert nobody.stderr.endswith("\n  See 'coach cheer --help' for more information.\n"), nobody.stderr
    finally:
        assert run.terminate() == 0
    assert "Bots stopped." in "".join(run.output)
    # With no server there, the command says so, as the built-ins do.
    unreached = coach(project, "cheer", "alice", "--server", run.base_url)
    assert unreached.returncode == 1, unreached.stdout + unreached.stderr
    assert f"[bots.server_unreachable] no chat server answers at {run.base_url}; check --server" in unreached.stderr
