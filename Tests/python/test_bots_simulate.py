"""`bots simulate`: the shipped configuration's bots get one message on a private dev server,
and the command prints what they did. Each run is a real `bots` process; these tests read its
report, its exit status, and what it left on disk (nothing, unless --data says where)."""

import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, bots_binary

WORKOUT = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
           "workout-duration-seconds": 1500, "workout-energy-cal": 400}


@pytest.fixture
def project(tmp_path):
    """A folder with the shipped bots.yaml, and a TMPDIR of its own to see what is left there."""
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(ROOT / "bots.yaml", folder / "bots.yaml")
    (tmp_path / "tmp").mkdir()
    return folder


def simulate(project, *args, timeout=60):
    env = dict(os.environ, TMPDIR=str(project.parent / "tmp"))
    return subprocess.run([bots_binary(), "simulate", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=timeout)


def assert_nothing_left(project):
    """A simulation without --data writes nothing beside the configuration, and removes its
    temporary folder."""
    assert sorted(p.name for p in project.iterdir()) == sorted(
        p.name for p in project.iterdir() if p.suffix in (".yaml", ".json", ".pdf")), list(project.iterdir())
    assert not (project / ".bots").exists()
    assert list((project.parent / "tmp").iterdir()) == []


def test_a_workout_file_gets_the_workout_bots_answer_and_leaves_nothing_behind(project):
    (project / "run.json").write_text(json.dumps(WORKOUT))
    done = simulate(project, "--attachment", "run.json")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "alice sent [workout] to messaging:general" in out
    assert "  workout    workout: WorkoutAttachmentPayload" in out
    assert "  moderator  workout: no payload type registered" in out
    assert "  workout-bot wrote:\n    This week: 1 workout, 5.0 km, 0h 25m, 400 kcal.\n    [workout-summary]" in out
    assert out.rstrip().endswith("1 message, 0 edits, 0 deletions, 0 reactions; no handler failed")
    assert "The bots settled" in done.stderr
    assert_nothing_left(project)


def test_a_pdf_that_is_not_one_is_refused_by_the_moderator_before_anyone_sees_it(project):
    (project / "report.pdf").write_bytes(b"MZ\x90\x00" + b"\x00" * 200)
    done = simulate(project, "--attachment", "report.pdf", "--bot", "moderator", "--bot", "archive")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    # The repository's moderator judges before sending (check: before_send).
    assert ("alice's message was refused before anyone saw it; alice was told: report.pdf was not posted: it is really an "
            "executable program (application/x-dosexec), not the application/pdf its name says.") in out
    assert ("  moderator wrote:\n    @Alice: report.pdf was not posted because it is really an executable program "
            "(application/x-dosexec), not the application/pdf its name says.") in out
    assert "workout" not in out  # only the bots named run
    assert_nothing_left(project)


def test_a_field_of_the_wrong_type_is_shown_as_each_bot_reads_it(project):
    bad = dict(WORKOUT, **{"workout-energy-cal": "lots"})
    done = simulate(project, "--attachment", json.dumps(bad), "--bot", "workout")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ('  workout  workout: does not decode: field "workout-energy-cal" of the workout attachment is invalid: '
            'expected an integer, found string "lots"') in done.stdout
    assert 'Your workout could not be saved: field "workout-energy-cal" is wrong' in done.stdout


def test_a_data_folder_carries_the_bots_state_to_the_next_simulation(project):
    first = simulate(project, "--data", "sim", "--attachment", json.dumps(WORKOUT), "--bot", "workout")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "kept for the next simulation" in first.stderr
    second = simulate(project, "--data", "sim", "--text", "/workouts", "--bot", "workout", "--json")
    assert second.returncode == 0, second.stdout + second.stderr
    # --json: stdout is the channel's events from the send on, the report goes to stderr.
    events = [json.loads(line) for line in second.stdout.splitlines()]
    assert [e["type"] for e in events] == ["message.new", "message.new"], events
    assert events[0]["message"]["text"] == "/workouts" and events[0]["user"]["id"] == "alice"
    answer = events[1]["message"]
    assert answer["user"]["id"] == "workout-bot" and answer["text"].startswith("Your 1 workout")
    assert [a["title"] for a in answer["attachments"]] == ["workouts-alice.csv", "weekly-distance-alice.svg"]
    assert "workout-bot wrote:" in second.stderr
    # ...a capture `bots replay` reads: it would send alice's message and leave the bot's out.
    (project / "capture.jsonl").write_text(second.stdout)
    plan = subprocess.run([bots_binary(), "replay", "capture.jsonl", "--dry-run"], cwd=project,
                          capture_output=True, text=True, timeout=60)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "skipped: messages by workout-bot (1)" in plan.stdout
    assert "line 1: alice sent " in plan.stdout
    # The bots' and the server's files went into the folder, none beside the configuration.
    assert (project / "sim" / ".bots" / "workout" / "workouts.sqlite").exists()
    assert (project / "sim" / ".bots" / "data").is_dir()
    assert not (project / ".bots").exists()


def test_a_conversation_goes_on_from_one_simulation_to_the_next_with_a_data_folder(project):
    said = []
    for text in ("/goal", "25km", "any"):
        done = simulate(project, "--data", "sim", "--text", text, "--bot", "workout")
        assert done.returncode == 0, done.stdout + done.stderr
        said.append(done.stdout.split("workout-bot wrote:\n", 1)[1].splitlines()[0].strip())
    assert said == [
        "How far do you want to go each week? Say 30km. (/cancel to stop)",
        "Which workouts count toward 25.0 km a week? Say run, ride, swim, walk… or any.",
        "Goal set. This week: 0 workouts, 0.0 km, 0h 00m, 0 kcal. Goal: 0.0 of 25.0 km (0%).",
    ]
    # Without the folder, each simulation starts afresh: 25km is no answer to anything.
    alone = simulate(project, "--text", "25km", "--bot", "workout")
    assert alone.returncode == 0 and "workout-bot wrote" not in alone.stdout, alone.stdout


def test_a_failing_handler_is_reported_and_exits_1(project):
    # A file behind a link nothing answers at (a loopback port that refuses): the archive and
    # moderation bots cannot download it, and their handlers throw.
    dead = {"type": "file", "title": "x.pdf", "mime_type": "application/pdf", "asset_url": "http://127.0.0.1:1/files/x.pdf"}
    done = simulate(project, "--attachment", json.dumps(dead))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "  ✘ archive: a handler of bot archive failed: [chat.download_failed]" in done.stdout
    assert "  ✘ moderator: a handler of bot moderator failed: [chat.download_failed]" in done.stdout
    assert done.stdout.rstrip().endswith("; 2 handlers failed")
    assert_nothing_left(project)


# The line of the repository's bots.yaml where the workout bot's kind is (the mistake's place).
WORKOUT_KIND_LINE = next(number for number, line in enumerate((ROOT / "bots.yaml").read_text().splitlines(), 1) if line.split("#")[0].strip() == "kind: workout")


@pytest.mark.parametrize("args, code, message", [
    (["--attachment", "missing.json"], 65,
     "error: [bots.invalid_attachment] --attachment missing.json is neither JSON (it would start with '{') nor a file that exists; nothing was sent"),
    (["--attachment", "broken.json"], 65,
     "error: [bots.invalid_attachment] broken.json is not valid JSON: input ends where a value was expected at byte 9; nothing was sent"),
    (["--attachment", '{"workout-type":"run"}'], 65,
     'error: [bots.invalid_attachment] --attachment must be a JSON object with a "type"'),
    (["--text", "hi", "--bot", "nobody"], 64, "error: bots.yaml has no bot named nobody; its bots: workout, moderator, archive"),
    (["--text", "hi", "--channel", "messaging:other"], 64,
     "error: no bot run follows messaging:other, so nothing would answer; their channels: messaging:general"),
    ([], 64, "Error: give --text or --attachment"),
    (["--text", "hi", "--settle", "0"], 64, "Error: --settle and --timeout must be more than 0"),
    (["--text", "hi", "--config", "broken.yaml"], 78,
     f'broken.yaml:{WORKOUT_KIND_LINE}:11: error: unknown bot kind "sprint"; known kinds: archive, moderation, workout'),
    (["--text", "hi", "--config", "nothing.yaml"], 78, "nothing.yaml"),
    (["--text", "hi", "--settle", "5", "--timeout", "0.2"], 1, "error: the bots did not settle: the channel was not quiet for 5.0 s"),
])
def test_each_bad_input_gets_its_exit_status_and_says_why(project, args, code, message):
    (project / "broken.json").write_text('{"type":\n')
    (project / "broken.yaml").write_text((project / "bots.yaml").read_text().replace("kind: workout", "kind: sprint"))
    done = simulate(project, *args)
    assert done.returncode == code, done.stdout + done.stderr
    assert message in done.stderr, done.stderr
    if code != 1:
        assert "sent" not in done.stdout  # refused before anything was sent
    assert_nothing_left(project)


def test_a_bot_with_events_by_webhook_is_simulated_through_the_private_servers_webhook(project):
    # The shipped file has a webhook: section, for the archive bot.
    text = (project / "bots.yaml").read_text()
    assert "\nwebhook: " in text
    text = re.sub(r"(\n    kind: workout[^\n]*\n)", r"\1    events: webhook\n", text, count=1)
    assert text.count("    events: webhook") == 2
    (project / "bots.yaml").write_text(text)
    (project / "run.json").write_text(json.dumps(WORKOUT))
    done = simulate(project, "--attachment", "run.json", "--bot", "workout", "--log-level", "info")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Bot workout is ready; it takes its events by webhook" in done.stderr, done.stderr
    assert "  workout-bot wrote:\n    This week: 1 workout, 5.0 km, 0h 25m, 400 kcal.\n    [workout-summary]" in done.stdout
    assert_nothing_left(project)


def test_a_custom_command_answered_alone_and_a_button_pressed(project):
    shown = simulate(project, "--text", "/log run 5km 25m", "--bot", "workout")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert ('alice sent "/log run 5km 25m"; /log answered alice alone: Log 5.0 km run in 25m?  [workout]  '
            "buttons: Log (log), Cancel (cancel)") in shown.stdout, shown.stdout
    assert "Nothing was posted (press a button with --press)." in shown.stdout

    logged = simulate(project, "--text", "/log run 5km 25m", "--bot", "workout", "--press", "log")
    assert logged.returncode == 0, logged.stdout + logged.stderr
    out = logged.stdout
    assert 'alice pressed Log:\n  posted "5.0 km run in 25m (logged with /log)" [workout] to messaging:general' in out, out
    assert "  workout  workout: WorkoutAttachmentPayload" in out
    assert "    This week: 1 workout, 5.0 km, 0h 25m, 0 kcal." in out
    assert "1 message, 0 edits, 0 deletions, 0 reactions; no handler failed" in out

    cancelled = simulate(project, "--text", "/log run 5km 25m", "--bot", "workout", "--press", "cancel")
    assert "alice pressed Cancel: the message was removed, nothing posted." in cancelled.stdout, cancelled.stdout

    wrong = simulate(project, "--text", "/log run 5km 25m", "--bot", "workout", "--press", "maybe")
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "--press maybe: the answer has no button of that value; its buttons: log, cancel" in wrong.stderr
    assert_nothing_left(project)
