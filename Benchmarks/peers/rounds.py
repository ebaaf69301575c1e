"""The peers' timing: the best of several rounds, since this VM's speed drifts within minutes."""

import time


def best_seconds(rounds, run_once):
    """The shortest wall time of `rounds` calls of `run_once()`."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run_once()
        best = min(best, time.perf_counter() - start)
    return best


def best_rate(items, handle, rounds):
    """Items per second through `handle(item)`, best of `rounds` passes over `items`."""
    def one_pass():
        for item in items:
            handle(item)
    return len(items) / best_seconds(rounds, one_pass)
