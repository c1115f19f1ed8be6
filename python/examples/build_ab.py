#!/usr/bin/env python3
"""Query time of two builds of the package, in one run: does a build setting slow queries?

    python build_ab.py SITE_A SITE_B [--rounds 7] [--poses 400]

SITE_A and SITE_B are folders each holding one installed build (`pip install --target
SITE wheel.whl`). Each round runs both, in turn and in fresh interpreters (one process
cannot import two builds of `meshcollide`), on the same generated scene: interlocked tori
of 9,600 and 7,200 triangles cutting each other, `poses` poses of a turn, `backend="cpu"`, every
pose queried three times per round and the fastest kept. Each query runs on one thread
(`RAYON_NUM_THREADS=1`, which builds without `threads=` read too) and is timed in CPU time
(`time.process_time`), which other processes competing for the cores disturb far less than
wall time. Prints each build's median over the rounds (CPU ms per query of all poses) and
B's change against A. Alternating the builds spreads the machine's drift over both.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import meshcollide

def torus(n_major, n_minor, r_major=1.0, r_minor=0.3, swap_yz=False):
    i, j = np.meshgrid(np.arange(n_major), np.arange(n_minor), indexing="ij")
    u = 2 * np.pi * i.ravel() / n_major
    v = 2 * np.pi * j.ravel() / n_minor
    x = (r_major + r_minor * np.cos(v)) * np.cos(u)
    y = (r_major + r_minor * np.cos(v)) * np.sin(u)
    z = r_minor * np.sin(v)
    verts = np.stack([x, z, y] if swap_yz else [x, y, z], axis=1)
    idx = lambda a, b: (a % n_major) * n_minor + (b % n_minor)
    ii, jj = i.ravel(), j.ravel()
    a, b, c, d = idx(ii, jj), idx(ii + 1, jj), idx(ii + 1, jj + 1), idx(ii, jj + 1)
    return verts, np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])

n = int(sys.argv[1])
va, ta = torus(120, 40)
vb, tb = torus(90, 40, swap_yz=True)
t = np.linspace(0.0, 2.0 * np.pi, n)
poses = np.zeros((n, 7))
poses[:, 0] = np.cos(t / 2)
poses[:, 1:4] = np.sin(t / 2)[:, None] / np.sqrt(3.0)  # a turn about (1, 1, 1)
poses[:, 4] = 0.5  # B's tube through A's: contacts at most poses
c = meshcollide.Collider(va, ta, vb, tb, bv="kdop18")
c.query(poses, backend="cpu")
best = float("inf")
for _ in range(3):
    s = time.process_time()
    pairs = c.query(poses, backend="cpu")
    best = min(best, time.process_time() - s)
print(json.dumps({"ms": best * 1e3, "pairs": len(pairs), "file": meshcollide._meshcollide.__file__}))
"""


def run(site, poses):
    env = dict(os.environ, PYTHONPATH=site, RAYON_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", CHILD, str(poses)], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"{site}: {r.stderr}")
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site_a")
    ap.add_argument("site_b")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--poses", type=int, default=400)
    a = ap.parse_args()
    times = {a.site_a: [], a.site_b: []}
    pairs = set()
    for _ in range(a.rounds):
        for site in times:
            r = run(site, a.poses)
            assert r["file"].startswith(os.path.abspath(site)), r["file"]
            times[site].append(r["ms"])
            pairs.add(r["pairs"])
    if len(pairs) != 1:
        sys.exit(f"the builds disagree on the pairs: {sorted(pairs)}")
    med = {s: statistics.median(v) for s, v in times.items()}
    for s, v in times.items():
        print(f"{s}: median {med[s]:.2f} CPU ms (rounds: {', '.join(f'{x:.2f}' for x in v)})")
    print(f"pairs: {pairs.pop()}; B against A: {100 * (med[a.site_b] / med[a.site_a] - 1):+.2f} %")


if __name__ == "__main__":
    main()
