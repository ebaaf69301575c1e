"""The operator's test of issue 55: workouts from several users while the bot process and the
dev server are each killed with SIGKILL a few times and started again a second later. It fails
on one lost or doubled reply: replies are counted by their deterministic ids, and each user's
last reply must count all of their workouts (the store keeps each once). A bot taking its
events by webhook is held to the same: what its killed process had taken and queued, or what
came while it was down, it gets at the next start through its checkpoint's catch-up."""

import random
import threading
import time

import pytest

from conftest import DevServerProcess
from outage_support import channels_with_users, check_answered_once_in_order, post_workout, reply_id, start_bot, weekly_total, write_config

USERS = [f"user{index}" for index in range(6)]
LAYOUT = {"gym": USERS[:3], "track": USERS[3:]}
PER_USER = 12


@pytest.fixture
def server(tmp_path):
    process = DevServerProcess(tmp_path / "data").start()
    yield process
    process.stop(expect_clean=False)


@pytest.mark.parametrize("events", ["websocket", "webhook"])
def test_workouts_from_several_users_survive_kills_of_the_bot_and_the_server_with_no_reply_lost_or_doubled(server, tmp_path, events):
    channels = channels_with_users(server, LAYOUT)
    config = write_config(tmp_path, server, LAYOUT, webhook=events == "webhook")
    posted = {name: [] for name in LAYOUT}

    def poster(name):
        # Users of one channel take turns, as the channel's order is what the bot keeps.
        for index in range(PER_USER):
            for user in LAYOUT[name]:
                posted[name].append(post_workout(channels[name], user, 1000 + index))
                time.sleep(random.uniform(0.08, 0.2))

    runs = [start_bot(config)]
    assert ("events by webhook" in "".join(runs[0].output)) == (events == "webhook"), "".join(runs[0].output)
    threads = [threading.Thread(target=poster, args=(name,)) for name in LAYOUT]
    for thread in threads:
        thread.start()
    try:
        # Three kills of the bot and two of the server, a second apart, while the workouts come.
        for victim in ["bot", "server", "bot", "server", "bot"]:
            time.sleep(random.uniform(0.5, 1.0))
            if victim == "bot":
                runs[-1].kill()
                time.sleep(1)
                runs.append(start_bot(config))
            else:
                server.kill()
                time.sleep(1)
                server.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads), "the posters finished"
        replies = {name: check_answered_once_in_order(channels[name], posted[name], timeout=120) for name in LAYOUT}
        for name, users in LAYOUT.items():
            by_id = {m["id"]: m for m in replies[name]}
            for user in users:
                mine = [message for message in posted[name] if message["user"]["id"] == user]
                assert len(mine) == PER_USER
                assert weekly_total(by_id[reply_id(mine[-1]["id"])]) == f"This week: {PER_USER} workouts", user
    except AssertionError:
        # What the last run said, for the failure's report.
        runs[-1].terminate()
        print("".join(runs[-1].output))
        raise
    finally:
        for run in runs[:-1]:
            run.kill()
    assert runs[-1].terminate() == 0
