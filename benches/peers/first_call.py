#!/usr/bin/env python3
"""Every library's first query after its build, against its own warm queries.

`python3 benches/peers/first_call.py [--out DIR] [--rounds N] [--no-build]`

The side-by-side (`peers.py`) times a single query as one fresh process per run; this
splits such a process's queries apart. For each scene and library, `--rounds` fresh
processes (default 9, libraries taken in turn), each pinned to one core: a query on two
one-triangle meshes (untimed, as `peers.py` warms its Python peers up), A and B loaded
(untimed) and built (timed apart: `build`), then one call per pose: the scene's first pose (the first call), the same
pose 20 times more (their median: a warm call that repeats its predecessor), and 20 other
poses of the same kind once each (their mean: warm calls as a batch of distinct poses
makes them). Printed: the medians over the rounds and the ratios first ÷ same and
first ÷ others, as a Markdown table; `results.json` in `--out` holds every round.

Scenes (generated here, written as OBJ with shortest round-trip floats):
  tori 8k near miss: two tori (major radius 1, minor 0.3, 8,000 triangles each), B's
      vertices (x, y, z) -> (x, z, y), B moved by 1 along x (about 90 node tests, no
      contact); others: B turned about y by 0.0137·k rad, k = 1..20.
  nested spheres 20k, alpha = 0.1: `peers.py`'s UV sphere and B = A scaled by 0.9, the
      identity pose; others: 20 seeded random rotations of B about the shared centre.

Ours (`auto`; `ours` with the default build, which ends with `Collider::warm_up`, and
`ours-cold` built with `warm_up(WarmUp::Off)`) and parry3d-f64 run in `examples/first_call.rs`; python-fcl, coal and
MeshLib in this script's child mode, in the venv `peers.py` sets up (created here if
absent). The pairs of every first call are checked to agree with ours.
"""

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import peers  # noqa: E402

LIBS = ["ours", "ours-cold", "parry3d", "fcl-obbrss", "coal-obbrss", "coal-obb", "meshlib"]
OTHERS = 20


def quat_y(angle):
    return (math.cos(0.5 * angle), 0.0, math.sin(0.5 * angle), 0.0)


def make_scenes(out):
    """[(name, a.obj, b.obj, poses.csv)]: the first pose, then OTHERS poses of its kind."""
    d = out / "meshes"
    d.mkdir(parents=True, exist_ok=True)
    scenes = []
    v, t = peers.torus(1.0, 0.3, 100, 40)
    a, b = d / "torus-8k-a.obj", d / "torus-8k-b.obj"
    peers.write_obj(a, v, t)
    peers.write_obj(b, [(x, z, y) for x, y, z in v], t)
    poses = [(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0)]
    poses += [(*quat_y(0.0137 * k), 1.0, 0.0, 0.0) for k in range(1, OTHERS + 1)]
    p = d / "tori-poses.csv"
    peers.write_poses(p, poses)
    scenes.append(("tori 8k near miss", a, b, p))

    slices, stacks = peers.SPHERE_SIZES[20000]
    v, t = peers.uv_sphere(slices, stacks)
    a, b = d / "sphere-20k.obj", d / "sphere-20k-scaled-0.1.obj"
    peers.write_obj(a, v, t)
    peers.write_obj(b, [tuple(0.9 * c for c in q) for q in v], t)
    rng = random.Random(peers.TURN_SEED)
    poses = [(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)]
    poses += [(*peers.unit_quaternion(rng), 0.0, 0.0, 0.0) for _ in range(OTHERS)]
    p = d / "spheres-poses.csv"
    peers.write_poses(p, poses)
    scenes.append(("nested spheres 20k, α = 0.1", a, b, p))
    return scenes


def child(key, a_path, b_path, poses_path):
    """A Python peer's round (run in a fresh process): prints the JSON line."""
    import numpy as np

    va, ta = peers.load_obj(a_path)
    vb, tb = peers.load_obj(b_path)
    va, vb = np.array(va, dtype=np.float64), np.array(vb, dtype=np.float64)
    ta, tb = np.array(ta, dtype=np.int64), np.array(tb, dtype=np.int64)
    rts = [(np.array(peers.rotation(p[:4])), np.array(p[4:])) for p in peers.read_poses(poses_path)]
    _, build, collide, _ = peers.python_peer(key)
    tiny = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), np.array([[0, 1, 2]], dtype=np.int64)
    collide(build(*tiny), build(*tiny), np.eye(3), np.zeros(3))
    t = time.perf_counter()
    ga, gb = build(va, ta), build(vb, tb)
    build_s = time.perf_counter() - t
    first, pairs = collide(ga, gb, *rts[0])
    same = sorted(collide(ga, gb, *rts[0])[0] for _ in range(20))[10]
    others = sum(collide(ga, gb, *rt)[0] for rt in rts[1:]) / max(1, len(rts) - 1)
    print(json.dumps({"first_us": first * 1e6, "same_us": same * 1e6, "others_us": others * 1e6,
                      "pairs": len(set(pairs)), "build_us": build_s * 1e6}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(peers.REPO / "target" / "first-call"), help="output folder")
    ap.add_argument("--rounds", type=int, default=9, help="fresh processes per library and scene (default 9)")
    ap.add_argument("--venv", default=str(peers.REPO / "target" / "peers-venv"), help="venv for the Python peers")
    ap.add_argument("--no-build", action="store_true", help="skip cargo build (the example must exist)")
    ap.add_argument("--run-peer", nargs=4, metavar=("KEY", "A", "B", "POSES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run_peer:
        child(*args.run_peer)
        return
    if args.rounds < 1:
        sys.exit("--rounds: at least 1")
    venv = Path(args.venv).resolve()
    if Path(sys.prefix).resolve() != venv:
        py, missing = peers.ensure_venv(venv)
        os.environ["PEERS_MISSING"] = ",".join(missing)
        os.execv(str(py), [str(py), str(Path(__file__).resolve()), *sys.argv[1:]])
    missing = [m for m in os.environ.get("PEERS_MISSING", "").split(",") if m]
    pkg = {k: p for k, _, p in peers.PEERS}
    libs = [k for k in LIBS if k in ("ours", "ours-cold") or pkg[k] not in missing]
    for k in set(LIBS) - set(libs):
        peers.loud(f"SKIPPED {k}: its PyPI package is missing")

    if not args.no_build:
        cmd = ["cargo", "build", "--release", "--example", "first_call"]
        peers.log("$ " + " ".join(cmd))
        if subprocess.run(cmd, cwd=peers.REPO).returncode != 0:
            sys.exit("cargo build failed")
    example = peers.target_dir() / "release" / "examples" / "first_call"
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    if not pin:
        peers.loud("taskset not found: the runs are not pinned to one core")
    env = dict(os.environ, **peers.THREAD_ENV)

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    results = {"started_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "rounds": args.rounds, "scenes": {}}
    rows = []
    for name, a, b, p in make_scenes(out):
        runs = {k: [] for k in libs}
        for r in range(args.rounds):
            for k in libs[r % len(libs):] + libs[: r % len(libs)]:
                if k in ("ours", "ours-cold", "parry3d"):
                    cmd = [str(example), "parry" if k == "parry3d" else k, str(a), str(b), str(p)]
                else:
                    cmd = [sys.executable, str(Path(__file__).resolve()), "--run-peer", k, str(a), str(b), str(p)]
                res = subprocess.run(pin + cmd, capture_output=True, text=True, env=env)
                if res.returncode != 0:
                    sys.exit(f"{k} on {name} failed:\n{res.stderr}")
                runs[k].append(json.loads(res.stdout.strip().splitlines()[-1]))
        results["scenes"][name] = runs
        for k in libs:
            pairs = {x["pairs"] for x in runs[k]}
            if pairs != {runs["ours"][0]["pairs"]}:
                peers.loud(f"{k} on {name}: {sorted(pairs)} pairs at the first pose, ours {runs['ours'][0]['pairs']}")
            med = {f: statistics.median(x[f] for x in runs[k]) for f in ("first_us", "same_us", "others_us", "build_us")}
            rows.append((name, k, med))
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")

    print(f"| scene | library | build (ms) | first call (µs) | same pose again (µs) | other poses (µs) | first ÷ same | first ÷ others |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, k, m in rows:
        print(f"| {name} | {k} | {m['build_us'] / 1e3:.2f} | {m['first_us']:.1f} | {m['same_us']:.2f} | {m['others_us']:.2f} | "
              f"{m['first_us'] / m['same_us']:.2f} | {m['first_us'] / m['others_us']:.2f} |")
    print(f"\n{args.rounds} rounds; results in {out / 'results.json'}")


if __name__ == "__main__":
    main()
