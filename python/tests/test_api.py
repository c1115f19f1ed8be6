"""The package's surface (issue 38, item 4): `threads=`, `__version__`, signatures that
`help` and `inspect.signature` read, `iter_query`; each checked against its oracle (the
default pool's pairs, `query` on every pose, Cargo.toml, the type stubs)."""

import ast
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import meshcollide
from conftest import ROOT, fan, torus

BAD_COUNTS = [(0, meshcollide.InputError), (-1, meshcollide.InputError), (-(2**70), meshcollide.InputError),
              (True, TypeError), (False, TypeError), (2.0, TypeError), (1.5, TypeError), ("2", TypeError)]


@pytest.fixture(scope="module")
def tori():
    va, qa = torus(24, 10)
    vb, qb = torus(20, 8, swap_yz=True)
    return va, fan(qa), vb, fan(qb)


@pytest.fixture(scope="module")
def poses():
    """61 poses of B sliding and turning through A: many in contact, some not."""
    t = np.linspace(0.0, 2.0 * np.pi, 61)
    p = np.zeros((len(t), 7))
    p[:, 0], p[:, 3] = np.cos(t / 2), np.sin(t / 2)
    p[:, 4] = 1.0 + 0.5 * np.sin(t)
    return p


@pytest.fixture(scope="module")
def sheet(cli, tmp_path_factory):
    """A mesh that touches itself (`meshcollide generate folded-sheet`)."""
    mesh = tmp_path_factory.mktemp("sheet") / "sheet.obj"
    r = subprocess.run([cli, "generate", "folded-sheet", "--out", str(mesh)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return meshcollide.load_mesh(mesh)


# --- threads= ------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_colliders_own_pool_finds_the_default_pools_pairs(tori, poses, threads):
    want = meshcollide.Collider(*tori).query(poses, backend="cpu")
    assert len(want) > 0
    c = meshcollide.Collider(*tori, threads=threads)
    for mode in ["all", "first"]:
        got = c.query(poses, backend="cpu", mode=mode)
        if mode == "all":
            np.testing.assert_array_equal(got, want)
        else:
            assert set(got[:, 0]) == set(want[:, 0])
    # The statistics are made on the pool: they count its threads, not the machine's.
    assert c.last_stats["threads"] == threads
    parts = [pairs for _, pairs in c.iter_query(poses, chunk=5, backend="cpu")]
    np.testing.assert_array_equal(np.concatenate(parts), want)
    assert c.last_stats["threads"] == threads


def test_from_files_takes_threads(scene):
    poses = meshcollide.load_poses(scene["poses"])
    want = meshcollide.Collider.from_files(scene["a"], scene["b"]).query(poses, backend="cpu")
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], threads=1)
    np.testing.assert_array_equal(c.query(poses, backend="cpu"), want)
    assert c.last_stats["threads"] == 1


@pytest.mark.parametrize("threads", [1, 2])
def test_self_collide_on_its_own_pool_finds_the_default_pools_pairs(sheet, threads):
    v, t = sheet
    want = meshcollide.self_collide(v, t, backend="cpu")
    assert len(want) > 0
    np.testing.assert_array_equal(meshcollide.self_collide(v, t, backend="cpu", threads=threads), want)
    frames = [v, v * 1.5]
    np.testing.assert_array_equal(meshcollide.self_collide(v, t, frames=frames, backend="cpu", threads=threads),
                                  meshcollide.self_collide(v, t, frames=frames, backend="cpu"))


@pytest.mark.parametrize("value,error", BAD_COUNTS + [(4097, meshcollide.InputError)])
def test_bad_thread_counts_are_refused_naming_the_argument(tori, value, error):
    with pytest.raises(error, match="^threads"):
        meshcollide.Collider(*tori, threads=value)
    with pytest.raises(error, match="^threads"):
        meshcollide.self_collide(tori[0], tori[1], threads=value)


def test_rayon_num_threads_sizes_the_default_pool(tori):
    # The global pool is sized once per process: a fresh interpreter.
    code = ("import sys, numpy as np, meshcollide; a = np.load(sys.argv[1]); "
            "c = meshcollide.Collider(a['va'], a['ta'], a['vb'], a['tb']); "
            "c.query(np.array([[1.0, 0, 0, 0, 0, 0, 0]]), backend='cpu'); print(c.last_stats['threads'])")
    arrays = Path(os.environ.get("TMPDIR", "/tmp")) / f"meshcollide-tori-{os.getpid()}.npz"
    np.savez(arrays, va=tori[0], ta=tori[1], vb=tori[2], tb=tori[3])
    try:
        for n in ["1", "3"]:
            env = dict(os.environ, RAYON_NUM_THREADS=n)
            r = subprocess.run([sys.executable, "-c", code, str(arrays)], capture_output=True, text=True, env=env)
            assert r.returncode == 0, r.stderr
            assert r.stdout.strip() == n
    finally:
        arrays.unlink()


# --- __version__ ---------------------------------------------------------------------------


def test_version_is_the_crates_and_the_installed_distributions():
    toml = (ROOT / "python" / "Cargo.toml").read_text()
    crate = re.search(r'^\[package\][^\[]*?^version = "([^"]+)"', toml, re.M | re.S).group(1)
    assert meshcollide.__version__ == crate
    from importlib.metadata import version

    assert version("meshcollide") == crate


# --- signatures ----------------------------------------------------------------------------


def stub_signatures():
    """{name: [(parameter, default or None)]} of the type stubs' functions and Collider's
    methods (`self` left out)."""
    tree = ast.parse((ROOT / "python" / "meshcollide" / "__init__.pyi").read_text())
    out = {}
    for node in tree.body:
        body = node.body if isinstance(node, ast.ClassDef) else [node]
        for f in body:
            if isinstance(f, ast.FunctionDef):
                a = f.args
                pos = a.posonlyargs + a.args
                defaults = [None] * (len(pos) - len(a.defaults)) + [ast.literal_eval(d) for d in a.defaults]
                kw = [None if d is None else ast.literal_eval(d) for d in a.kw_defaults]
                pairs = list(zip([x.arg for x in pos], defaults)) + list(zip([x.arg for x in a.kwonlyargs], kw))
                key = f"{node.name}.{f.name}" if isinstance(node, ast.ClassDef) else f.name
                out[key] = [(n, d) for n, d in pairs if n != "self"]
    return out


def stub_parameters():
    return {k: [n for n, _ in v] for k, v in stub_signatures().items()}


CALLABLES = {
    "Collider.__init__": lambda: meshcollide.Collider,
    "Collider.from_files": lambda: meshcollide.Collider.from_files,
    "Collider.query": lambda: meshcollide.Collider.query,
    "Collider.iter_query": lambda: meshcollide.Collider.iter_query,
    "Collider.distance": lambda: meshcollide.Collider.distance,
    "Collider.inside": lambda: meshcollide.Collider.inside,
    "self_collide": lambda: meshcollide.self_collide,
    "load_mesh": lambda: meshcollide.load_mesh,
    "load_poses": lambda: meshcollide.load_poses,
}


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_signatures_name_every_keyword_of_the_stubs(name):
    sig = inspect.signature(CALLABLES[name]())
    names = [p for p in sig.parameters if p != "self"]
    assert "options" not in names  # no bare **options left
    assert names == stub_parameters()[name]
    # The same defaults, as `help` shows them (no default: None on both sides).
    runtime = [(n, None if p.default is p.empty else p.default) for n, p in sig.parameters.items() if n != "self"]
    assert runtime == stub_signatures()[name]


def test_every_keyword_the_signature_names_is_taken_with_its_default(tori, poses):
    want = meshcollide.Collider(*tori).query(poses, backend="cpu")
    sig = inspect.signature(meshcollide.Collider)
    kw = {n: p.default for n, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY}
    assert len(kw) >= 17 and all(d is not inspect.Parameter.empty for d in kw.values())
    c = meshcollide.Collider(*tori, **kw)
    np.testing.assert_array_equal(c.query(poses, backend="cpu"), want)
    q = {n: p.default for n, p in inspect.signature(meshcollide.Collider.query).parameters.items()
         if n not in ("self", "poses")}
    np.testing.assert_array_equal(c.query(poses, **dict(q, backend="cpu")), want)
    # Each one alone too: a name the signature shows but the constructor does not take fails.
    for n, d in kw.items():
        meshcollide.Collider(*tori, **{n: d})
    with pytest.raises(TypeError, match="unexpected keyword argument 'thread'"):
        meshcollide.Collider(*tori, thread=1)


def test_readme_python_section_names_every_keyword():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### From Python", 1)[1].split("\n### ", 1)[0]
    for name in ["Collider.__init__", "Collider.query", "Collider.iter_query", "Collider.distance", "Collider.inside", "self_collide"]:
        for p in stub_parameters()[name]:
            if not p.startswith(("vertices", "triangles")):
                assert f"`{p}" in section or f"{p}=" in section or f" {p}," in section, (name, p)


# --- iter_query ----------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [1, 2, 7, 60, 61, 62, 1000, 2**63 - 1])
@pytest.mark.parametrize("mode", ["all", "first"])
def test_chunks_concatenated_are_the_query_of_every_pose(tori, poses, chunk, mode):
    c = meshcollide.Collider(*tori)
    for first_pose in [0, 1000]:
        want = c.query(poses, backend="cpu", mode=mode, first_pose=first_pose)
        chunks = list(c.iter_query(poses, chunk=chunk, backend="cpu", mode=mode, first_pose=first_pose))
        starts = [f for f, _ in chunks]
        assert starts == list(range(first_pose, first_pose + len(poses), chunk))
        for f, pairs in chunks:
            assert pairs.dtype == np.int64 and pairs.shape[1] == 3
            assert ((pairs[:, 0] >= f) & (pairs[:, 0] < f + chunk)).all()
        got = np.concatenate([p for _, p in chunks])
        if mode == "all":
            np.testing.assert_array_equal(got, want)
        else:
            # Which one true contact `first` keeps is the traversal's: the same poses in
            # contact, one pair each, every one a contact of the all-pairs query.
            np.testing.assert_array_equal(got[:, 0], want[:, 0])
            every = {tuple(r) for r in c.query(poses, backend="cpu", first_pose=first_pose).tolist()}
            assert {tuple(r) for r in got.tolist()} <= every


def test_iter_query_takes_every_pose_form(tori, poses):
    c = meshcollide.Collider(*tori)
    want = c.query(poses, backend="cpu")
    xyzw = poses[:, [1, 2, 3, 0, 4, 5, 6]]
    np.testing.assert_array_equal(
        np.concatenate([p for _, p in c.iter_query(xyzw, chunk=9, quat="xyzw", backend="cpu")]), want)
    assert list(c.iter_query(poses[:0], chunk=3)) == []


@pytest.mark.parametrize("value,error", BAD_COUNTS + [(2**63, meshcollide.InputError)])
def test_bad_chunks_are_refused_when_called(tori, poses, value, error):
    c = meshcollide.Collider(*tori)
    with pytest.raises(error, match="^chunk"):
        c.iter_query(poses, chunk=value)


def test_bad_poses_are_refused_before_the_first_chunk(tori, poses):
    c = meshcollide.Collider(*tori)
    bad = poses.copy()
    bad[50, 4] = np.nan
    # Raised by the call, not by the 8th chunk: no chunk's pairs reach a writer first.
    with pytest.raises(meshcollide.InputError, match=r"row 50 \(pose 50\)"):
        c.iter_query(bad, chunk=7)
    with pytest.raises(meshcollide.InputError, match="backend"):
        c.iter_query(poses, backend="tpu")
    with pytest.raises(meshcollide.InputError):
        c.iter_query(poses, mode="some")
