"""No reply lost when the service is down: `bots run` (the workout bot) against a separate
`bots serve`, which is killed (SIGKILL) while replies are under way and started again on the
same port and data. Replies are counted by their deterministic ids."""

import signal
import time

import pytest

from conftest import DevServerProcess, wait_for
from outage_support import (channels_with_users, check_answered_once_in_order, dead_letter_file, dead_letters, post_workout,
                            reply_id, reply_to, start_bot, weekly_total, write_config)

LAYOUT = {"gym": ["alice", "bob"], "track": ["carol"]}


@pytest.fixture
def server(tmp_path):
    process = DevServerProcess(tmp_path / "data").start()
    yield process
    process.stop(expect_clean=False)


def frozen(run):
    """The bot's process stopped (SIGSTOP) inside the block and continued after it: the workouts
    posted meanwhile reach it only once the service is gone, so their replies are held."""
    class Frozen:
        def __enter__(self):
            run.process.send_signal(signal.SIGSTOP)

        def __exit__(self, *_):
            run.process.send_signal(signal.SIGCONT)
    return Frozen()


def burst(channels, per_user: int) -> dict:
    """Posts `per_user` workouts from each user of each channel, taking turns; channel -> posted."""
    posted = {name: [] for name in channels}
    for index in range(per_user):
        for name, users in LAYOUT.items():
            for user in users:
                posted[name].append(post_workout(channels[name], user, 1000 + index))
    return posted


def check_totals(channels, posted, replies_by_channel):
    """Each user's last reply counts all of their workouts: the store kept each once."""
    for name, users in LAYOUT.items():
        by_id = {m["id"]: m for m in replies_by_channel[name]}
        for user in users:
            mine = [message for message in posted[name] if message["user"]["id"] == user]
            assert weekly_total(by_id[reply_id(mine[-1]["id"])]) == f"This week: {len(mine)} workouts"


@pytest.mark.parametrize("downtime", [1, 10, 60])
def test_while_the_service_is_down_every_workout_is_answered_once_in_order_after_it_returns(server, tmp_path, downtime):
    channels = channels_with_users(server, LAYOUT)
    run = start_bot(write_config(tmp_path, server, LAYOUT))
    try:
        with frozen(run):
            posted = burst(channels, 6)
            server.kill()
        time.sleep(downtime)
        server.start()
        replies = {name: check_answered_once_in_order(channels[name], posted[name]) for name in LAYOUT}
        check_totals(channels, posted, replies)
    finally:
        code = run.terminate()
    assert code == 0, "".join(run.output)
    output = "".join(run.output)
    assert "service unreachable; holding" in output and "for up to 10m" in output, output
    assert "service back after" in output, output


def test_sigterm_during_an_outage_exits_cleanly_and_the_next_start_answers_what_was_held(server, tmp_path):
    channels = channels_with_users(server, LAYOUT)
    config = write_config(tmp_path, server, LAYOUT)
    run = start_bot(config)
    try:
        with frozen(run):
            posted = burst(channels, 4)
            server.kill()
        time.sleep(1)
        started = time.time()
        run.process.send_signal(signal.SIGTERM)
        code = run.process.wait(timeout=20)
        assert code == 0, "".join(run.output + run.process.stdout.readlines())
        assert time.time() - started < 3 + 5, "within the drain deadline (3 s) and a little"
    finally:
        run.kill()
    server.start()
    run = start_bot(config)
    try:
        replies = {name: check_answered_once_in_order(channels[name], posted[name]) for name in LAYOUT}
        check_totals(channels, posted, replies)
    finally:
        assert run.terminate() == 0


def test_a_handler_error_is_a_dead_letter_the_channel_goes_on_and_retry_answers_it(server, tmp_path):
    import sqlite3
    channels = channels_with_users(server, {"gym": ["alice"]})
    gym = channels["gym"]
    config = write_config(tmp_path, server, ["gym"])
    run = start_bot(config)
    try:
        first = post_workout(gym, "alice", 1000)
        wait_for(lambda: reply_to(gym, first), timeout=20)
        # Another process holds the workout database: the bot's store cannot write, its handler throws.
        holder = sqlite3.connect(tmp_path / "workouts.sqlite", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            failed = post_workout(gym, "alice", 2000)
            letters = wait_for(lambda: dead_letter_file(tmp_path), timeout=20)
        finally:
            holder.execute("COMMIT")
            holder.close()
        assert [(l["key"], l["reason"], l["attempts"], l["trigger"]) for l in letters] == [(failed["id"], "handler_error", 1, "message")]
        assert "locked" in letters[0]["error"], letters[0]["error"]
        after = post_workout(gym, "alice", 3000)
        answer = wait_for(lambda: reply_to(gym, after), timeout=20)
        assert weekly_total(answer) == "This week: 2 workouts", "the channel went on without the failed one"

        listed = dead_letters(config, "list")
        assert listed.returncode == 0 and f"workout\t{failed['id']}\tmessaging:gym\thandler_error\t1 attempt\t" in listed.stdout, listed
        retried = dead_letters(config, "retry")
        assert retried.returncode == 0 and "workout: 1 dead letter to run again" in retried.stdout, retried
        answer = wait_for(lambda: reply_to(gym, failed), timeout=20)
        assert weekly_total(answer) == "This week: 3 workouts"
        assert dead_letters(config, "list").stdout.strip() == "no dead letters"
    finally:
        assert run.terminate() == 0


def test_an_outage_longer_than_the_tolerance_is_a_dead_letter_with_its_reason(server, tmp_path):
    channels = channels_with_users(server, {"gym": ["alice"]})
    gym = channels["gym"]
    config = write_config(tmp_path, server, ["gym"], extra="\n    outage_tolerance: 5s")
    run = start_bot(config)
    try:
        first = post_workout(gym, "alice", 1000)
        wait_for(lambda: reply_to(gym, first), timeout=20)
        # Replies under way when the service goes: the store is written, the replies are held.
        with frozen(run):
            posted = [post_workout(gym, "alice", 2000 + index) for index in range(3)]
            server.kill()
        letters = wait_for(lambda: dead_letter_file(tmp_path), timeout=30)
        server.start()
        assert letters[0]["reason"] == "outage" and letters[0]["key"] in [m["id"] for m in posted], letters
        assert "gave up after" in letters[0]["error"], letters[0]["error"]
        listed = dead_letters(config, "list")
        assert "\toutage\t" in listed.stdout, listed
        later = post_workout(gym, "alice", 9000)
        wait_for(lambda: reply_to(gym, later), timeout=30)
        drop = dead_letters(config, "drop")
        assert drop.returncode == 0 and "dropped" in drop.stdout, drop
    finally:
        assert run.terminate() == 0
