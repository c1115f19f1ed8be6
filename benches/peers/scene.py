#!/usr/bin/env python3
"""Scenes of many bodies: `meshcollide scene` and FCL's broad phase side by side.

    python3 benches/peers/scene.py --out target/scene-peers           # the two default scenes
    python3 benches/peers/scene.py --out target/scene-peers --sweep   # time per frame against N
    python3 benches/peers/scene.py --out target/scene-peers --scene DIR   # a scene of your own
    python3 benches/peers/scene.py --self-test                        # FCL's plumbing, checked

What it does (README.md beside this file, "Scenes of many bodies", has the details):
  1. creates target/peers-venv (as peers.py does) with numpy and python-fcl if absent, and
     re-runs itself with the venv's Python;
  2. builds `meshcollide` and writes the scenes with `meshcollide generate scene` (the
     default pair: 1,000 moving bodies of about 1k-10k triangles over 100 frames, and 10,000
     small bodies over 20 frames; the sizes are options);
  3. runs `meshcollide scene ... --threads 1 --backend cpu` and FCL, each in its own
     process pinned to one core (`taskset -c 0` where available). FCL: one OBBRSS
     `BVHModel` per mesh file shared by the bodies naming it, one `CollisionObject` per
     body, registered and unregistered in a `DynamicAABBTreeCollisionManager` as bodies
     come and go, `setTransform` for the moved ones, `update()`, then `collide()` with a
     callback that runs FCL's narrow phase on each pair the broad phase reports. Only that
     work is timed (meshes loaded, hierarchies built and each frame's transforms converted
     from numpy beforehand);
  4. compares FCL's contacts with meshcollide's contacts.csv frame by frame: every pair
     one finds and the other does not is counted and the first ones measured (how deep a
     contact FCL missed is, how far apart the triangles of a contact FCL added are), so a
     floating-point verdict on touching triangles is listed, not hidden;
  5. writes OUT/scene_results.json and OUT/scene_table.md (and with --sweep
     OUT/sweep.svg, or .png too with matplotlib) and prints the table.
"""

import argparse
import gc
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (the shared helpers: venv, OBJ reader, poses, triangle measures)

from peers import REPO, apply, grazing, log, loud, pinned, rotation, tri_distance  # noqa: E402

CONTACTS_HEADER = "frame,body_a,tri_a,body_b,tri_b"
MOTION_HEADER = "frame,body,qw,qx,qy,qz,tx,ty,tz"
# The packages the FCL side needs (of requirements.txt: not coal nor MeshLib).
PACKAGES = ["numpy", "python-fcl"]
# At most this many differing contacts per scene and kind are measured.
MAX_MEASURE = 200
# A difference is put down to floating point when the missed contact is at most this deep or
# the extra pair at most this far apart, relative to the largest mesh's extent.
TOL_REL = peers.TOL_REL
HUGE = 1 << 40


# ---------------------------------------------------------------------------------------
# Setup.
# ---------------------------------------------------------------------------------------
def ensure_venv(venv):
    """peers.py's venv (created if absent), with this script's packages installed into it
    one at a time; exits when one cannot be imported."""
    py = venv / "bin" / "python"
    if not py.exists():
        log(f"creating the venv {venv}")
        r = subprocess.run([sys.executable, "-m", "venv", str(venv)])
        if r.returncode != 0 or not py.exists():
            shutil.rmtree(venv, ignore_errors=True)
            sys.exit(f"could not create a venv with {sys.executable} -m venv {venv}; "
                     "on Debian/Ubuntu: apt-get install -y python3-venv")
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    for pkg in PACKAGES:
        mod = peers.IMPORTS[pkg]
        if subprocess.run([str(py), "-c", f"import {mod}"], capture_output=True).returncode == 0:
            continue
        log(f"pip install {pkg} (into {venv})")
        subprocess.run([str(py), "-m", "pip", "install", "-q", pkg])
        if subprocess.run([str(py), "-c", f"import {mod}"], capture_output=True).returncode != 0:
            sys.exit(f"could not install or import {pkg!r} into {venv}")
    return py


def cargo_build(no_build):
    if no_build:
        return
    cmd = ["cargo", "build", "--release", "--bin", "meshcollide"]
    log("$ " + " ".join(cmd))
    if subprocess.run(cmd, cwd=REPO).returncode != 0:
        sys.exit("cargo build failed")


def run_logged(cmd, timeout, log_path):
    """Runs `cmd` pinned to one core with one thread; 'ok', 'timeout' or 'failed ...'."""
    env = dict(os.environ, **peers.THREAD_ENV)
    try:
        r = subprocess.run(pinned(cmd), env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        Path(log_path).write_text(f"$ {' '.join(map(str, cmd))}\ntimeout after {timeout} s\n")
        return "timeout"
    Path(log_path).write_text(f"$ {' '.join(map(str, cmd))}\nexit {r.returncode}\n--- stdout\n{r.stdout}\n"
                              f"--- stderr\n{r.stderr}")
    return "ok" if r.returncode == 0 else f"failed (exit {r.returncode}, see {log_path})"


# ---------------------------------------------------------------------------------------
# Scene files (docs/FORMATS.md, "Scenes of many bodies").
# ---------------------------------------------------------------------------------------
def read_bodies(path):
    """[(mesh path, is_static)] in body order."""
    out = []
    with open(path) as f:
        assert f.readline().strip() == "body,mesh,kind", f"{path}: bad header"
        for i, line in enumerate(f):
            if not line.strip():
                continue
            b, mesh, kind = line.strip().split(",")
            assert int(b) == i and kind in ("static", "moving"), f"{path}: row {i}: {line!r}"
            out.append((str((Path(path).parent / mesh).resolve()), kind == "static"))
    return out


def motion_frames(path):
    """Yields (frame, [(body, pose or None for remove)]) for every frame from 0 to the last,
    frames without rows included (their list empty)."""
    with open(path) as f:
        assert f.readline().strip() == MOTION_HEADER, f"{path}: bad header"
        cur, rows = 0, []
        for line in f:
            p = line.strip().split(",")
            if len(p) != 9:
                continue
            fr, b = int(p[0]), int(p[1])
            while fr > cur:
                yield cur, rows
                cur, rows = cur + 1, []
            rows.append((b, None if p[2] == "remove" else tuple(float(v) for v in p[2:])))
        yield cur, rows


def contact_frames(path):
    """Yields (frame, [(body_a, tri_a, body_b, tri_b)]) of a contacts.csv, frames with rows only."""
    with open(path) as f:
        assert f.readline().strip() == CONTACTS_HEADER, f"{path}: bad header"
        cur, rows = None, []
        for line in f:
            if not line.strip():
                continue
            fr, a, ta, b, tb = map(int, line.split(","))
            if fr != cur:
                if cur is not None:
                    yield cur, rows
                cur, rows = fr, []
            rows.append((a, ta, b, tb))
        if cur is not None:
            yield cur, rows


def scene_info(d):
    bodies = read_bodies(d / "bodies.csv")
    tris = {}
    for mesh, _ in bodies:
        if mesh not in tris:
            tris[mesh] = len(peers.load_obj(mesh)[1])
    last = 0
    with open(d / "motion.csv", "rb") as f:
        f.seek(max(0, f.seek(0, 2) - 4096))
        tail = [x for x in f.read().decode().splitlines() if x[:1].isdigit()]
        last = int(tail[-1].split(",")[0]) if tail else 0
    moving = sum(1 for _, s in bodies if not s)
    return {"bodies": len(bodies), "moving": moving, "static": len(bodies) - moving, "frames": last + 1,
            "triangles": sum(tris[m] for m, _ in bodies),
            "mesh_triangles": {Path(m).name: n for m, n in sorted(tris.items())}}


# ---------------------------------------------------------------------------------------
# The FCL side (run in a child process: `scene.py --run-fcl SCENE_DIR CONTACTS STATS`).
# ---------------------------------------------------------------------------------------
def fcl_models(bodies):
    """One OBBRSS BVHModel per mesh file, shared by all its bodies (as meshcollide shares
    one hierarchy per path); (models by path, seconds to build them)."""
    import fcl
    import numpy as np

    models, t0 = {}, time.perf_counter()
    for mesh, _ in bodies:
        if mesh in models:
            continue
        v, t = peers.load_obj(mesh)
        m = fcl.BVHModel()
        m.beginModel(len(t), len(v))
        m.addSubModel(np.array(v, dtype=np.float64), np.array(t, dtype=np.int32))
        m.endModel()
        models[mesh] = m
    return models, time.perf_counter() - t0


def pose_key(rot, trans):
    """What identifies a body inside FCL's callback: python-fcl hands the callback new
    wrappers of the C++ objects and bodies share their geometry, so a body is told by its
    transform, read back exactly as it was set (f64 copied, never recomputed)."""
    return rot.tobytes() + trans.tobytes()


def run_fcl(scene_dir, out_contacts, out_stats, contact_points=False):
    import fcl
    import numpy as np

    d = Path(scene_dir)
    bodies = read_bodies(d / "bodies.csv")
    models, build_s = fcl_models(bodies)
    static = [s for _, s in bodies]
    objs = [None] * len(bodies)
    present = [False] * len(bodies)
    key_of = [None] * len(bodies)
    # pose key -> bodies at that pose (several only for bodies at exactly the same pose).
    by_key = {}
    ambiguous = set()
    manager = fcl.DynamicAABBTreeCollisionManager()
    # enable_contact=False (peers.py's setting): one contact per intersecting triangle pair,
    # b1/b2 the triangles of o1/o2, and FCL's plain triangle test; True also computes
    # contact points, with another triangle routine (--fcl-contact-points).
    req = fcl.CollisionRequest(num_max_contacts=HUGE, enable_contact=contact_points)
    state = {"calls": 0}
    hits = []

    def callback(o1, o2, _data):
        state["calls"] += 1
        res = fcl.CollisionResult()
        fcl.collide(o1, o2, req, res)
        if res.contacts:
            hits.append((o1, o2, res.contacts))
        return False

    def body_of(o):
        k = pose_key(o.getRotation(), o.getTranslation())
        bs = by_key[k]
        if len(bs) > 1:
            ambiguous.add(tuple(bs))
        return bs[0]

    # python-fcl's cost per contact, measured before and after the frames (their mean).
    conv_before = peers.fcl_contact_cost() if not contact_points else 0.0
    gc.disable()
    times = {"transform": 0.0, "update": 0.0, "collide": 0.0}
    frames, calls, contacts, raw_contacts, static_pairs = 0, 0, 0, 0, 0
    per_frame_ms = []
    setup = False
    with open(Path(str(out_contacts) + ".tmp"), "w") as out:
        out.write(CONTACTS_HEADER + "\n")
        for frame, rows in motion_frames(d / "motion.csv"):
            # Untimed: the numpy → Eigen conversion of each moved body's pose, the objects of
            # bodies seen for the first time, and the pose bookkeeping.
            moves, adds, removes = [], [], []
            for b, pose in rows:
                if key_of[b] is not None:
                    by_key[key_of[b]].remove(b)
                    if not by_key[key_of[b]]:
                        del by_key[key_of[b]]
                    key_of[b] = None
                if pose is None:
                    if present[b]:
                        removes.append(b)
                        present[b] = False
                    continue
                rot = np.array(rotation(pose[:4]), dtype=np.float64)
                trans = np.array(pose[4:], dtype=np.float64)
                key_of[b] = pose_key(rot, trans)
                by_key.setdefault(key_of[b], []).append(b)
                tf = fcl.Transform(rot, trans)
                if objs[b] is None:
                    objs[b] = fcl.CollisionObject(models[bodies[b][0]], tf)
                else:
                    moves.append((objs[b], tf))
                if not present[b]:
                    adds.append(objs[b])
                    present[b] = True
            hits.clear()
            state["calls"] = 0
            t0 = time.perf_counter()
            for o, tf in moves:
                o.setTransform(tf)
            for b in removes:
                manager.unregisterObject(objs[b])
            if not setup:
                manager.registerObjects(adds)
                manager.setup()
                setup = True
            else:
                for o in adds:
                    manager.registerObject(o)
            t1 = time.perf_counter()
            if rows:
                manager.update()
            t2 = time.perf_counter()
            manager.collide(fcl.CollisionData(request=req), callback)
            t3 = time.perf_counter()
            times["transform"] += t1 - t0
            times["update"] += t2 - t1
            times["collide"] += t3 - t2
            per_frame_ms.append((t3 - t0) * 1e3)
            # Untimed: which bodies each reported pair belongs to.
            found = set()
            for o1, o2, cs in hits:
                raw_contacts += len(cs)
                a, b = body_of(o1), body_of(o2)
                if static[a] and static[b]:
                    static_pairs += 1
                    continue
                for c in cs:
                    found.add((a, c.b1, b, c.b2) if a < b else (b, c.b2, a, c.b1))
            contacts += len(found)
            out.write("".join(f"{frame},{a},{ta},{b},{tb}\n" for a, ta, b, tb in sorted(found)))
            calls += state["calls"]
            frames += 1
    Path(str(out_contacts) + ".tmp").replace(out_contacts)
    gc.enable()
    # The binding's share of the timed work, measured here, for a second figure without it:
    # per narrow-phase call (the Python callback, python-fcl's wrappers and result objects),
    # the least time of the callback on two one-triangle objects whose triangles miss; per
    # contact, python-fcl's conversion of a C++ contact into a Python object (peers.py),
    # which dominates on scenes of many contacts: the figure without the binding moves with
    # that estimate (noisy on a loaded machine), the raw figure does not.
    tri = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), np.array([[0, 1, 2]], dtype=np.int32)
    m1 = fcl.BVHModel()
    m1.beginModel(1, 3)
    m1.addSubModel(*tri)
    m1.endModel()
    oa = fcl.CollisionObject(m1, fcl.Transform())
    ob = fcl.CollisionObject(m1, fcl.Transform(np.array([0.0, 0.0, 0.5])))
    floor_s = math.inf
    for _ in range(7):
        s = time.perf_counter()
        for _ in range(1000):
            callback(oa, ob, None)
        floor_s = min(floor_s, (time.perf_counter() - s) / 1000)
    conv_s = 0.5 * (conv_before + peers.fcl_contact_cost()) if raw_contacts and not contact_points else 0.0
    total_ms = (times["transform"] + times["update"] + times["collide"]) * 1e3
    overhead_ms = (calls * floor_s + raw_contacts * conv_s) * 1e3
    stats = {
        "package": "python-fcl", "version": peers.peer_version("python-fcl"), "frames": frames,
        "build_ms": build_s * 1e3, "scene_ms": total_ms,
        # setTransform of the moved bodies, register and unregister:
        "transform_register_ms": times["transform"] * 1e3,
        "update_ms": times["update"] * 1e3, "collide_ms": times["collide"] * 1e3,
        "broad_pairs": calls, "raw_contacts": raw_contacts, "contacts": contacts,
        "static_pairs_dropped": static_pairs, "callback_floor_us": floor_s * 1e6,
        "contact_conversion_us": conv_s * 1e6, "binding_overhead_ms": overhead_ms,
        "scene_ms_without_binding": max(0.0, total_ms - overhead_ms),
        "max_frame_ms": max(per_frame_ms, default=0.0), "contact_points": contact_points,
        "ambiguous_bodies": sorted(ambiguous),
    }
    Path(out_stats).write_text(json.dumps(stats, indent=1) + "\n")
    if ambiguous:
        loud(f"bodies at exactly the same pose: FCL's contacts between them cannot be told apart: {sorted(ambiguous)}")


# ---------------------------------------------------------------------------------------
# Comparison.
# ---------------------------------------------------------------------------------------
def compare(scene_dir, ours_csv, fcl_csv):
    """Per frame, the contacts one side reports and the other does not; the first
    MAX_MEASURE of each kind measured on the posed triangles."""
    missed, extra, frames_differing, unsorted = [], [], 0, 0
    n_missed = n_extra = 0
    it_o, it_f = contact_frames(ours_csv), contact_frames(fcl_csv)
    fo, ff = next(it_o, None), next(it_f, None)
    while fo is not None or ff is not None:
        frame = min(x[0] for x in (fo, ff) if x is not None)
        so = fo[1] if fo is not None and fo[0] == frame else []
        sf = ff[1] if ff is not None and ff[0] == frame else []
        if so != sorted(set(so)):
            unsorted += 1
        a, b = set(so), set(sf)
        if a != b:
            frames_differing += 1
            m, e = sorted(a - b), sorted(b - a)
            n_missed += len(m)
            n_extra += len(e)
            missed += [(frame, c) for c in m[: MAX_MEASURE - len(missed)]]
            extra += [(frame, c) for c in e[: MAX_MEASURE - len(extra)]]
        if fo is not None and fo[0] == frame:
            fo = next(it_o, None)
        if ff is not None and ff[0] == frame:
            ff = next(it_f, None)
    r = {"equal": n_missed == 0 and n_extra == 0, "missed_by_fcl": n_missed, "extra_in_fcl": n_extra,
         "frames_differing": frames_differing, "ours_frames_unsorted_or_duplicated": unsorted}
    if missed or extra:
        r.update(measure(scene_dir, missed, extra))
    return r


def measure(scene_dir, missed, extra):
    """Posed triangles of the differing contacts: a missed contact's depth (`grazing`), an
    extra pair's distance (`tri_distance`), against TOL_REL × the largest mesh extent."""
    d = Path(scene_dir)
    bodies = read_bodies(d / "bodies.csv")
    meshes, extent = {}, 0.0
    for mesh, _ in bodies:
        if mesh not in meshes:
            meshes[mesh] = peers.load_obj(mesh)
            lo, hi = peers.bounds(meshes[mesh][0])
            extent = max(extent, max(hi[k] - lo[k] for k in range(3)))
    tol = TOL_REL * extent
    want = {}
    for kind, lst in (("missed", missed), ("extra", extra)):
        for frame, c in lst:
            want.setdefault(frame, []).append((kind, c))
    poses, found = {}, []
    for frame, rows in motion_frames(d / "motion.csv"):
        for b, pose in rows:
            poses[b] = None if pose is None else (rotation(pose[:4]), pose[4:])
        for kind, (a, ta, b, tb) in want.get(frame, []):
            def tri(body, t):
                v, tris = meshes[bodies[body][0]]
                r, tr = poses[body]
                return tuple(apply(r, tr, v[i]) for i in tris[t])
            x, y = tri(a, ta), tri(b, tb)
            m = grazing(x, y) if kind == "missed" else tri_distance(x, y)
            found.append((kind, frame, (a, ta, b, tb), m))
        if frame > max(want, default=-1):
            break
    ms = [m for k, _, _, m in found if k == "missed"]
    es = [m for k, _, _, m in found if k == "extra"]
    examples = [f"{k} frame {f} bodies {c[0]}/{c[2]} triangles {c[1]}/{c[3]}: "
                f"{'depth' if k == 'missed' else 'distance'} {m:.3g}" for k, f, c, m in found[:10]]
    return {"tol": tol, "missed_measured": len(ms), "extra_measured": len(es),
            "missed_within_tol": sum(1 for m in ms if m <= tol), "extra_within_tol": sum(1 for m in es if m <= tol),
            "missed_max_depth": max(ms, default=None), "extra_max_distance": max(es, default=None),
            "examples": examples}


# ---------------------------------------------------------------------------------------
# Running one scene.
# ---------------------------------------------------------------------------------------
def has_scene_command(mc_bin):
    r = subprocess.run([str(mc_bin), "scene", "--help"], capture_output=True, text=True)
    return r.returncode == 0


def run_scene(name, scene_dir, out, mc_bin, args):
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    info = scene_info(scene_dir)
    log(f"scene {name}: {info['bodies']} bodies ({info['moving']} moving), {info['frames']} frames, "
        f"{info['triangles']} triangles in all")
    res = {"name": name, "dir": str(scene_dir), **info}
    if args.fcl_only or not has_scene_command(mc_bin):
        res["ours"] = {"status": "skipped (--fcl-only)" if args.fcl_only else "unavailable: meshcollide has no `scene` command"}
    else:
        cmd = [str(mc_bin), "scene", str(scene_dir / "bodies.csv"), "--motion", str(scene_dir / "motion.csv"),
               "--out", str(d / "contacts.csv"), "--stats", str(d / "stats.json"), "--threads", "1",
               "--backend", "cpu", "--force"]
        t = time.time()
        status = run_logged(cmd, args.timeout, d / "ours.log")
        res["ours"] = {"status": status, "wall_s": time.time() - t}
        if status == "ok":
            st = json.loads((d / "stats.json").read_text())
            frames = max(1, st.get("frames", info["frames"]))
            res["ours"].update(stats=st, ms_per_frame=st["scene_ms"] / frames,
                               broad_ms_per_frame=st.get("broad_ms", float("nan")) / frames)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--run-fcl", str(scene_dir), str(d / "fcl_contacts.csv"),
           str(d / "fcl_stats.json")] + (["--fcl-contact-points"] if args.fcl_contact_points else [])
    t = time.time()
    status = run_logged(cmd, args.timeout, d / "fcl.log")
    res["fcl"] = {"status": status, "wall_s": time.time() - t}
    if status == "ok":
        st = json.loads((d / "fcl_stats.json").read_text())
        frames = max(1, st["frames"])
        res["fcl"].update(stats=st, ms_per_frame=st["scene_ms"] / frames,
                          ms_per_frame_without_binding=st["scene_ms_without_binding"] / frames)
        log(f"  FCL: {res['fcl']['ms_per_frame']:.2f} ms per frame ({st['broad_pairs'] / frames:.0f} broad-phase "
            f"pairs, {st['contacts'] / frames:.0f} contacts per frame); wall {res['fcl']['wall_s']:.0f} s")
    if res["ours"]["status"] == "ok":
        log(f"  ours: {res['ours']['ms_per_frame']:.2f} ms per frame; wall {res['ours']['wall_s']:.0f} s")
    if res["ours"]["status"] == "ok" and status == "ok":
        res["compare"] = compare(scene_dir, d / "contacts.csv", d / "fcl_contacts.csv")
        c = res["compare"]
        if not c["equal"]:
            loud(f"{name}: contacts differ: {c['missed_by_fcl']} only in ours, {c['extra_in_fcl']} only in FCL's, "
                 f"in {c['frames_differing']} frames (OUT/scene_results.json lists the first ones)")
    return res


def generate(mc_bin, d, bodies, frames, tris, seed):
    cmd = [str(mc_bin), "generate", "scene", "--bodies", str(bodies), "--frames", str(frames), "--tris", str(tris),
           "--seed", str(seed), "--out", str(d)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"$ {' '.join(cmd)}\n{r.stderr}")
    return d


# ---------------------------------------------------------------------------------------
# Reports.
# ---------------------------------------------------------------------------------------
def fmt(x, digits=2):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.{digits}f}"


def table(results):
    rows = ["| scene | bodies (moving) | frames | triangles (all bodies) | meshcollide ms/frame | FCL ms/frame "
            "(without binding) | ours/FCL | our broad phase ms/frame | broad-phase pairs/frame (ours, FCL) "
            "| contacts/frame | contacts equal |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        o, f = r["ours"], r["fcl"]
        om, fm = o.get("ms_per_frame"), f.get("ms_per_frame")
        fnb = f.get("ms_per_frame_without_binding")
        ratio = f"{om / fnb:.2f}" if om is not None and fnb else "–"
        fr = max(1, r["frames"])
        bp_o = o.get("stats", {}).get("broad_pairs")
        bp_f = f.get("stats", {}).get("broad_pairs")
        cts = f.get("stats", {}).get("contacts", o.get("stats", {}).get("contacts"))
        c = r.get("compare")
        eq = "–" if c is None else ("yes" if c["equal"] else
                                    f"no ({c['missed_by_fcl']} only ours, {c['extra_in_fcl']} only FCL)")
        ours_cell = fmt(om) if om is not None else o["status"]
        fcl_cell = f"{fmt(fm)} ({fmt(fnb)})" if fm is not None else f["status"]
        rows.append(f"| {r['name']} | {r['bodies']:,} ({r['moving']:,}) | {r['frames']} | {r['triangles']:,} | "
                    f"{ours_cell} | {fcl_cell} | {ratio} | {fmt(o.get('broad_ms_per_frame'))} | "
                    f"{fmt(bp_o / fr if bp_o is not None else None, 0)}, {fmt(bp_f / fr if bp_f is not None else None, 0)} | "
                    f"{fmt(cts / fr if cts is not None else None, 0)} | {eq} |")
    return "\n".join(rows) + "\n"


def sweep_plot(out, results):
    """Time per frame against the number of bodies, both libraries: matplotlib where it
    imports (PNG and SVG), else an SVG written here."""
    series = {}
    for r in results:
        for key, field, label in (("ours", "ms_per_frame", "meshcollide"), ("fcl", "ms_per_frame", "python-fcl"),
                                  ("fcl", "ms_per_frame_without_binding", "python-fcl less binding")):
            ms = r[key].get(field)
            if ms is not None:
                series.setdefault(label, []).append((r["moving"], ms))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        for label, pts in series.items():
            ax.plot(*zip(*pts), marker="o", label=label)
        ax.set(xlabel="moving bodies", ylabel="ms per frame", title="Scene stepping, one core")
        ax.legend()
        fig.savefig(out / "sweep.png", dpi=120)
        fig.savefig(out / "sweep.svg")
        return out / "sweep.svg"
    except ImportError:
        pass
    w, h, m = 640, 400, 60
    xs = [x for pts in series.values() for x, _ in pts] or [1]
    ys = [y for pts in series.values() for _, y in pts] or [1]
    def nice(v):
        # The least of 1, 2, 5 × 10^k that is at least v / 5: five ticks of round numbers.
        e = 10 ** math.floor(math.log10(v / 5))
        return next(m * e for m in (1, 2, 5, 10) if m * e >= v / 5)

    xstep, ystep = nice(max(xs)), nice(max(ys))
    x1, y1 = xstep * math.ceil(max(xs) / xstep), ystep * math.ceil(max(ys) / ystep)

    def px(x, y):
        return m + (w - 2 * m) * x / x1, h - m - (h - 2 * m) * y / y1

    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle">Scene stepping, ms per frame (one core)</text>',
           f'<line x1="{m}" y1="{h - m}" x2="{w - m}" y2="{h - m}" stroke="black"/>',
           f'<line x1="{m}" y1="{m}" x2="{m}" y2="{h - m}" stroke="black"/>',
           f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">moving bodies</text>',
           f'<text transform="translate(16,{h / 2}) rotate(-90)" text-anchor="middle">ms per frame</text>']
    for i in range(round(x1 / xstep) + 1):
        X, _ = px(i * xstep, 0)
        svg.append(f'<text x="{X:.0f}" y="{h - m + 16}" text-anchor="middle">{i * xstep:,.0f}</text>')
    for i in range(round(y1 / ystep) + 1):
        _, Y = px(0, i * ystep)
        svg.append(f'<text x="{m - 6}" y="{Y + 4:.0f}" text-anchor="end">{i * ystep:,.4g}</text>')
        svg.append(f'<line x1="{m}" y1="{Y:.1f}" x2="{w - m}" y2="{Y:.1f}" stroke="#ddd"/>')
    for (label, pts), color in zip(series.items(), ["#1f77b4", "#d62728", "#d62728"]):
        path = " ".join(f"{'M' if i == 0 else 'L'}{px(x, y)[0]:.1f},{px(x, y)[1]:.1f}" for i, (x, y) in enumerate(pts))
        dash = ' stroke-dasharray="6,4"' if "less" in label else ""
        svg.append(f'<path d="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        for x, y in pts:
            X, Y = px(x, y)
            svg.append(f'<circle cx="{X:.1f}" cy="{Y:.1f}" r="3" fill="{color}"/>')
        lx, ly = pts[-1]
        X, Y = px(lx, ly)
        svg.append(f'<text x="{X - 4:.1f}" y="{Y - 8:.1f}" text-anchor="end" fill="{color}">{label}</text>')
    svg.append("</svg>")
    (out / "sweep.svg").write_text("\n".join(svg) + "\n")
    return out / "sweep.svg"


# ---------------------------------------------------------------------------------------
# Self-test of the FCL side: its contacts against a brute force on tiny scenes.
# ---------------------------------------------------------------------------------------
def orient(a, b, c, d):
    ab, ac, ad = peers.sub(b, a), peers.sub(c, a), peers.sub(d, a)
    return peers.dot(peers.cross(ab, ac), ad)


def seg_hits_tri(p, q, t):
    """Whether segment pq meets triangle t (floating point; not for coplanar input)."""
    sp, sq = orient(*t, p), orient(*t, q)
    if (sp > 0 and sq > 0) or (sp < 0 and sq < 0) or (sp == 0 and sq == 0):
        return False
    s = [orient(p, q, t[i], t[(i + 1) % 3]) for i in range(3)]
    return all(x >= 0 for x in s) or all(x <= 0 for x in s)


def tris_intersect(x, y):
    return any(seg_hits_tri(x[i], x[(i + 1) % 3], y) for i in range(3)) or any(
        seg_hits_tri(y[i], y[(i + 1) % 3], x) for i in range(3))


def brute_force(scene_dir, out_csv):
    """contacts.csv by testing every triangle pair of every pair of present bodies (one of
    them moving) whose triangles' boxes overlap."""
    d = Path(scene_dir)
    bodies = read_bodies(d / "bodies.csv")
    meshes = {m: peers.load_obj(m) for m, _ in bodies}
    poses, rows = {}, []
    for frame, fr_rows in motion_frames(d / "motion.csv"):
        for b, pose in fr_rows:
            if pose is None:
                poses.pop(b, None)
            else:
                poses[b] = (rotation(pose[:4]), pose[4:])
        posed = {}
        for b, (r, t) in poses.items():
            v, tris = meshes[bodies[b][0]]
            pv = [apply(r, t, p) for p in v]
            posed[b] = [tuple(pv[i] for i in tri) for tri in tris]
        ids = sorted(posed)
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                if bodies[a][1] and bodies[b][1]:
                    continue
                for ta, x in enumerate(posed[a]):
                    xl = [min(p[k] for p in x) for k in range(3)]
                    xh = [max(p[k] for p in x) for k in range(3)]
                    for tb, y in enumerate(posed[b]):
                        if any(min(p[k] for p in y) > xh[k] or max(p[k] for p in y) < xl[k] for k in range(3)):
                            continue
                        if tris_intersect(x, y):
                            rows.append((frame, a, ta, b, tb))
    Path(out_csv).write_text(CONTACTS_HEADER + "\n" + "".join(",".join(map(str, r)) + "\n" for r in sorted(rows)))


def write_box_scene(d):
    """Two unit boxes, body 0 static at the origin and body 1 moving: overlapping (frame 0),
    apart (1), removed (2), back overlapping and turned (3); body 2 (moving) enters at frame 1
    overlapping body 0 (apart from body 1), and moves away from both at frame 2."""
    (d / "meshes").mkdir(parents=True, exist_ok=True)
    v = [(x, y, z) for z in (0.0, 1.0) for y in (0.0, 1.0) for x in (0.0, 1.0)]
    t = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4), (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2),
         (1, 3, 7), (1, 7, 5)]
    peers.write_obj(d / "meshes" / "box.obj", v, t)
    (d / "bodies.csv").write_text("body,mesh,kind\n0,meshes/box.obj,static\n1,meshes/box.obj,moving\n"
                                  "2,meshes/box.obj,moving\n")
    q = peers.axis_quat((0.6, 0.0, 0.8), 0.3)
    (d / "motion.csv").write_text(MOTION_HEADER + "\n" + "\n".join([
        "0,0,1,0,0,0,0,0,0", "0,1,1,0,0,0,0.5,0.3,0.2",
        "1,1,1,0,0,0,3.0,0.3,0.2", "1,2,1,0,0,0,-0.4,-0.3,0.1",
        "2,1,remove,,,,,,", "2,2,1,0,0,0,-3.0,-0.3,0.1",
        f"3,1,{q[0]!r},{q[1]!r},{q[2]!r},{q[3]!r},0.6,0.45,0.35",
    ]) + "\n")


def self_test(out, mc_bin):
    """FCL's contacts equal the brute force on the box scene (contacts in frames 0, 1 and 3,
    none in 2) and on a small generated scene."""
    ok = True
    cases = [("boxes", out / "selftest-boxes")]
    write_box_scene(cases[0][1])
    if mc_bin.exists():
        cases.append(("generated", generate(mc_bin, out / "selftest-generated", 12, 8, 24, 3)))
    else:
        loud(f"{mc_bin} not built: the generated case is skipped")
    for name, d in cases:
        run_fcl(d, d / "fcl_contacts.csv", d / "fcl_stats.json")
        brute_force(d, d / "brute_contacts.csv")
        c = compare(d, d / "brute_contacts.csv", d / "fcl_contacts.csv")
        per_frame = {}
        for fr, rows in contact_frames(d / "fcl_contacts.csv"):
            per_frame[fr] = len(rows)
        good = c["equal"] or (c.get("missed_within_tol") == c.get("missed_measured")
                              and c.get("extra_within_tol") == c.get("extra_measured"))
        if name == "boxes":
            good = good and all(per_frame.get(f, 0) > 0 for f in (0, 1, 3)) and per_frame.get(2, 0) == 0
            b1 = [r for r in open(d / "fcl_contacts.csv").read().splitlines()[1:] if r.split(",")[0] == "1"]
            good = good and all(r.split(",")[1] == "0" and r.split(",")[3] == "2" for r in b1)
        log(f"self-test {name}: FCL contacts per frame {per_frame}; against brute force: {json.dumps(c)} "
            f"-> {'ok' if good else 'FAILED'}")
        ok &= good
    return ok


# ---------------------------------------------------------------------------------------
def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--run-fcl":
        run_fcl(*sys.argv[2:5], contact_points="--fcl-contact-points" in sys.argv[5:])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "target" / "scene-peers"), help="output folder")
    ap.add_argument("--venv", default=str(REPO / "target" / "peers-venv"), help="venv for python-fcl")
    ap.add_argument("--scene", action="append", default=[], help="run on this scene folder (bodies.csv, motion.csv) "
                    "instead of the generated ones (repeatable)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--large-bodies", type=int, default=1000, help="the first default scene's moving bodies")
    ap.add_argument("--large-frames", type=int, default=100)
    ap.add_argument("--large-tris", type=int, default=5000,
                    help="`generate scene --tris` (meshes of about T/4 to 2T triangles)")
    ap.add_argument("--small-bodies", type=int, default=10000, help="the second default scene's moving bodies")
    ap.add_argument("--small-frames", type=int, default=20)
    ap.add_argument("--small-tris", type=int, default=200)
    ap.add_argument("--sweep", action="store_true", help="time per frame against the number of bodies")
    ap.add_argument("--sweep-bodies", default="1000,2000,5000,10000")
    ap.add_argument("--sweep-frames", type=int, default=20)
    ap.add_argument("--sweep-tris", type=int, default=200)
    ap.add_argument("--fcl-only", action="store_true", help="skip meshcollide (no comparison)")
    ap.add_argument("--fcl-contact-points", action="store_true",
                    help="FCL's enable_contact=True (contact points, another triangle routine)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per library and scene")
    ap.add_argument("--no-build", action="store_true", help="skip cargo build (target/release/meshcollide must exist)")
    ap.add_argument("--self-test", action="store_true", help="FCL's side against a brute force on tiny scenes")
    args = ap.parse_args()

    venv = Path(args.venv).resolve()
    if Path(sys.prefix).resolve() != venv:
        py = ensure_venv(venv)
        os.execv(str(py), [str(py), str(Path(__file__).resolve()), *sys.argv[1:]])
    t_start = time.time()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cargo_build(args.no_build)
    mc_bin = peers.target_dir() / "release" / "meshcollide"
    if args.self_test:
        sys.exit(0 if self_test(out, mc_bin) else 1)
    if not shutil.which("taskset"):
        loud("taskset not found: the runs are not pinned to one core (each still runs one thread)")

    scenes = [(Path(s).resolve().name, Path(s).resolve()) for s in args.scene]
    if not scenes and args.sweep:
        for n in (int(x) for x in args.sweep_bodies.split(",")):
            name = f"sweep-{n}x{args.sweep_frames}-t{args.sweep_tris}"
            scenes.append((name, generate(mc_bin, out / "scenes" / name, n, args.sweep_frames, args.sweep_tris,
                                          args.seed)))
    elif not scenes:
        for kind in ("large", "small"):
            n, f, t = (getattr(args, f"{kind}_{k}") for k in ("bodies", "frames", "tris"))
            name = f"{kind}-{n}x{f}-t{t}"
            scenes.append((name, generate(mc_bin, out / "scenes" / name, n, f, t, args.seed)))
    results = [run_scene(name, d, out, mc_bin, args) for name, d in scenes]
    md = ["# Scenes of many bodies: meshcollide and python-fcl, one core", "",
          f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {peers.cpu_name()}, python-fcl "
          f"{peers.peer_version('python-fcl')}; `{' '.join(sys.argv[1:])}`", "",
          table(results),
          "ms/frame: meshcollide's `scene_ms` (stepping only, no load or build) over the frames; FCL's setTransform "
          "of the moved bodies, register/unregister, `update()` and `collide()` with its narrow phase per reported "
          "pair, in parentheses less python-fcl's measured cost per callback and per contact (ours/FCL uses that "
          "figure). Broad-phase pairs: ours from stats.json, FCL's the callbacks (static pairs included)."]
    for r in results:
        c = r.get("compare")
        if c and not c["equal"]:
            md += ["", f"**{r['name']}**: {c['missed_by_fcl']} contacts only in ours (FCL missed; measured "
                   f"{c.get('missed_measured')}, {c.get('missed_within_tol')} within {c.get('tol', 0):.2g}), "
                   f"{c['extra_in_fcl']} only in FCL's (measured {c.get('extra_measured')}, "
                   f"{c.get('extra_within_tol')} within tolerance)."] + [f"- {e}" for e in c.get("examples", [])]
    if args.sweep:
        plot = sweep_plot(out, results)
        md += ["", f"Plot: {plot.name}"]
    (out / "scene_table.md").write_text("\n".join(md) + "\n")
    (out / "scene_results.json").write_text(json.dumps({"argv": sys.argv, "results": results}, indent=1) + "\n")
    log(f"done in {time.time() - t_start:.0f} s: {out / 'scene_table.md'}, {out / 'scene_results.json'}")
    print((out / "scene_table.md").read_text())


if __name__ == "__main__":
    main()
