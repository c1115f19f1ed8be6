"""The GIL is released while hierarchies are built and poses are queried: a Python thread
keeps ticking during a long call (with the GIL held it would stop for the whole call)."""

import threading
import time

import numpy as np

import meshcollide
from conftest import fan, torus


class Ticker:
    """A thread that notes the longest pause between its own loop iterations."""

    def __init__(self):
        self.gap, self.stop = 0.0, threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self):
        last = time.perf_counter()
        while not self.stop.is_set():
            now = time.perf_counter()
            self.gap, last = max(self.gap, now - last), now

    def measure(self, f):
        """f()'s result, its duration, and the longest pause of the thread meanwhile."""
        self.gap = 0.0
        start = time.perf_counter()
        r = f()
        return r, time.perf_counter() - start, self.gap


def tumbling(n):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    poses = np.zeros((n, 7))
    poses[:, 0], poses[:, 1], poses[:, 3], poses[:, 4] = np.cos(a / 2), np.sin(a / 2) * 0.6, np.sin(a / 2) * 0.8, 1.0
    return poses


def test_python_threads_run_during_build_and_query():
    va, qa = torus(300, 80)
    vb, qb = torus(250, 70, swap_yz=True)
    ticker = Ticker()
    ticker.thread.start()
    try:
        time.sleep(0.02)
        c, build_s, build_gap = ticker.measure(lambda: meshcollide.Collider(va, fan(qa), vb, fan(qb)))
        n = 64
        while True:
            poses = tumbling(n)
            _, query_s, query_gap = ticker.measure(lambda: c.query(poses, backend="cpu"))
            if query_s > 0.4 or n > 100_000:
                break
            n *= 4
    finally:
        ticker.stop.set()
        ticker.thread.join()
    assert query_s > 0.4, "the query was too short to tell"
    assert query_gap < query_s / 4, (query_gap, query_s)
    if build_s > 0.2:
        assert build_gap < build_s / 2, (build_gap, build_s)
