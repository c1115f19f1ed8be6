//! The command line end to end: `query` on files a user would bring, checked against the
//! library's brute-force oracle; every kind of bad input gives exit code 2 and a message
//! naming the file and line (or pose row), never a panic.

use meshcollide::formats::parse_pairs;
use meshcollide::rng::Rng;
use meshcollide::{BvKind, Mesh, Pose, brute_force};
use std::path::{Path, PathBuf};
use std::process::Command;

fn tmp_dir(name: &str) -> PathBuf {
    common::tmp_dir("cli", name)
}

fn soup(seed: u64, n: usize) -> Mesh {
    let mut rng = Rng::new(seed);
    let mut positions = Vec::new();
    for _ in 0..n {
        let c = [rng.f64(), rng.f64(), rng.f64()];
        for _ in 0..3 {
            positions.push([0, 1, 2].map(|k| c[k] + rng.range(-0.3, 0.3)));
        }
    }
    let triangles = (0..n as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    Mesh::new(positions, triangles).unwrap()
}

/// The first case as a user meets it: two boxes 0.01 apart near x = 10⁶ written
/// with 17 significant digits in OBJ and in ASCII STL, slid across the gap by translation
/// poses; `pairs.csv` equals brute force on the f64 values of the files, on both backends
/// (the GPU on lavapipe in CI).
#[test]
fn query_is_exact_on_coordinates_far_from_the_origin() {
    let d = tmp_dir("far");
    let a = meshcollide::mesh::generate::box_mesh(
        [1000000.0000000001, 0.0, 0.0],
        [1000000.1100000001, 1.0, 1.0],
    );
    let b = meshcollide::mesh::generate::box_mesh(
        [1000000.12, 0.25000000000000006, 0.25],
        [1000001.0, 0.75, 0.7499999999999999],
    );
    common::write_obj(&d.join("a.obj"), &a);
    let mut stl = String::from("solid b\n");
    for i in 0..b.triangle_count() {
        stl += "facet normal 0 0 0\nouter loop\n";
        for p in b.triangle(i) {
            stl += &format!("vertex {:.17e} {:.17e} {:.17e}\n", p[0], p[1], p[2]);
        }
        stl += "endloop\nendfacet\n";
    }
    stl += "endsolid b\n";
    std::fs::write(d.join("b.stl"), stl).unwrap();
    let poses: Vec<Pose> = [0.0, -0.0099, -0.01, -0.0100000001, -0.3]
        .iter()
        .map(|&dx| Pose::translation([dx, 0.0, 0.0]))
        .collect();
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    let (fa, fb) = (
        meshcollide::mesh::load(&d.join("a.obj")).unwrap(),
        meshcollide::mesh::load(&d.join("b.stl")).unwrap(),
    );
    assert_eq!((&fa.positions, &fb.positions.len()), (&a.positions, &36));
    let read = meshcollide::pose::read_poses(&d.join("poses.csv")).unwrap();
    let truth: Vec<Vec<(u32, u32)>> = read.iter().map(|p| brute_force(&fa, &fb, p)).collect();
    assert!(truth[0].is_empty() && truth[1].is_empty() && !truth[4].is_empty());
    let gpu = meshcollide::gpu::GpuContext::new().is_ok()
        || std::env::var("MESHCOLLIDE_REQUIRE_GPU").as_deref() == Ok("1");
    let backends: &[&str] = if gpu { &["cpu", "gpu"] } else { &["cpu"] };
    for backend in backends {
        for bv in ["kdop18", "dual18", "boxtree", "rtree"] {
            if *backend == "gpu" && !bv.starts_with("kdop") && !bv.starts_with("dual") {
                continue;
            }
            let out = common::bin()
                .args(["query", "a.obj", "b.stl", "--poses", "poses.csv"])
                .args(["--out", "pairs.csv", "--bv", bv, "--backend", backend])
                .current_dir(&d)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let got = parse_pairs(&std::fs::read_to_string(d.join("pairs.csv")).unwrap()).unwrap();
            for (i, t) in truth.iter().enumerate() {
                let mine: Vec<(u32, u32)> = got
                    .iter()
                    .filter(|x| x.0 == i as u32)
                    .map(|x| (x.1, x.2))
                    .collect();
                assert_eq!(&mine, t, "{backend} {bv} pose {i}");
            }
        }
    }
}

#[test]
fn query_writes_the_brute_force_pairs() {
    let d = tmp_dir("ok");
    let (a, b) = (soup(1, 60), soup(2, 50));
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut rng = Rng::new(3);
    let poses: Vec<Pose> = (0..20)
        .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.4, 0.4))))
        .collect();
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    // Poses as the CLI reads them back (decimal round trip), for the oracle.
    let read = meshcollide::pose::read_poses(&d.join("poses.csv")).unwrap();
    for bv in ["kdop6", "kdop14", "kdop18", "kdop26", "boxtree"] {
        for mode in ["all", "first"] {
            let out = common::bin()
                .args([
                    "query",
                    "a.obj",
                    "b.obj",
                    "--poses",
                    "poses.csv",
                    "--out",
                    "pairs.csv",
                ])
                .args(["--bv", bv, "--mode", mode, "--stats", "stats.json"])
                .current_dir(&d)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = std::fs::read_to_string(d.join("pairs.csv")).unwrap();
            let got = parse_pairs(&text).unwrap();
            let mut total = 0;
            for (i, p) in read.iter().enumerate() {
                let truth = brute_force(&a, &b, p);
                let mine: Vec<(u32, u32)> = got
                    .iter()
                    .filter(|x| x.0 == i as u32)
                    .map(|x| (x.1, x.2))
                    .collect();
                if mode == "all" {
                    assert_eq!(mine, truth, "{bv} pose {i}");
                } else {
                    assert!(mine.len() <= 1 && mine.is_empty() == truth.is_empty());
                    assert!(mine.iter().all(|x| truth.contains(x)));
                }
                total += truth.len();
            }
            assert!(total > 0, "the scene must have contacts");
            let stats: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(d.join("stats.json")).unwrap())
                    .unwrap();
            for key in [
                "backend",
                "bv",
                "poses",
                "build_ms",
                "query_ms",
                "pairs",
                "bv_tests",
                "tri_tests",
                "bv_updates",
            ] {
                assert!(stats.get(key).is_some(), "stats.json lacks {key}");
            }
            assert_eq!(stats["poses"], 20);
            assert_eq!(stats["pairs"].as_u64().unwrap() as usize, got.len());
            assert_eq!(stats["bv"], bv);
        }
    }
    // Sorted by pose, then tri_a, then tri_b, no duplicates; an empty result is the header.
    let text = std::fs::read_to_string(d.join("pairs.csv")).unwrap();
    assert!(text.starts_with("pose,tri_a,tri_b\n"));
}

/// Runs a query expected to fail with exit code 2 and a message containing every needle.
fn expect_input_error(d: &Path, args: &[&str], needles: &[&str]) {
    let out = common::bin().args(args).current_dir(d).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "args {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "args {args:?}: `{err}` lacks `{n}`");
    }
}

#[test]
fn bad_inputs_exit_2_with_located_messages() {
    let d = tmp_dir("bad");
    common::write_obj(&d.join("ok.obj"), &soup(5, 4));
    std::fs::write(d.join("poses.csv"), "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n").unwrap();
    std::fs::write(
        d.join("missing.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n",
    )
    .unwrap();
    std::fs::write(d.join("nan.obj"), "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    std::fs::write(d.join("inf.obj"), "v 0 0 0\nv 1 0 0\nv 0 inf 0\nf 1 2 3\n").unwrap();
    std::fs::write(d.join("empty.obj"), "v 0 0 0\n").unwrap();
    std::fs::write(d.join("mesh.xyz"), "v 0 0 0\n").unwrap();
    std::fs::write(d.join("badheader.csv"), "a,b,c\n1,0,0,0,0,0,0\n").unwrap();
    std::fs::write(
        d.join("badnum.csv"),
        "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n1,0,0,0,x,0,0\n",
    )
    .unwrap();
    std::fs::write(
        d.join("badnorm.csv"),
        "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n1,0,0,0,0,0,0\n2,0,0,0,0,0,0\n",
    )
    .unwrap();
    std::fs::write(d.join("short.csv"), "qw,qx,qy,qz,tx,ty,tz\n1,0,0\n").unwrap();
    // An OBJ's text under an STL name: said to be text, not a binary STL of the wrong size.
    std::fs::write(d.join("text.stl"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let q = |a: &'static str, b: &'static str, p: &'static str| {
        vec!["query", a, b, "--poses", p, "--out", "pairs.csv"]
    };
    expect_input_error(
        &d,
        &q("missing.obj", "ok.obj", "poses.csv"),
        &["missing.obj", "line 5", "9"],
    );
    expect_input_error(
        &d,
        &q("ok.obj", "nan.obj", "poses.csv"),
        &["nan.obj", "line 2"],
    );
    expect_input_error(
        &d,
        &q("ok.obj", "text.stl", "poses.csv"),
        &["text.stl", "line 1", "a text file but no STL", "`v 0 0 0`"],
    );
    expect_input_error(
        &d,
        &q("ok.obj", "inf.obj", "poses.csv"),
        &["inf.obj", "line 3"],
    );
    expect_input_error(
        &d,
        &q("empty.obj", "ok.obj", "poses.csv"),
        &["empty.obj", "no triangles"],
    );
    expect_input_error(
        &d,
        &q("mesh.xyz", "ok.obj", "poses.csv"),
        &["mesh.xyz", "extension"],
    );
    expect_input_error(&d, &q("nope.obj", "ok.obj", "poses.csv"), &["nope.obj"]);
    expect_input_error(&d, &q("ok.obj", "ok.obj", "nope.csv"), &["nope.csv"]);
    expect_input_error(
        &d,
        &q("ok.obj", "ok.obj", "badheader.csv"),
        &["badheader.csv", "header"],
    );
    expect_input_error(
        &d,
        &q("ok.obj", "ok.obj", "badnum.csv"),
        &["badnum.csv", "line 3", "pose 1", "tx"],
    );
    expect_input_error(
        &d,
        &q("ok.obj", "ok.obj", "badnorm.csv"),
        &["badnorm.csv", "line 4", "pose 2", "norm"],
    );
    expect_input_error(
        &d,
        &q("ok.obj", "ok.obj", "short.csv"),
        &["short.csv", "line 2", "7 fields"],
    );
    let mut bad_out = q("ok.obj", "ok.obj", "poses.csv");
    bad_out[6] = "no/such/dir/pairs.csv";
    expect_input_error(&d, &bad_out, &["no/such/dir/pairs.csv"]);
    let mut bad_bv = q("ok.obj", "ok.obj", "poses.csv");
    bad_bv.extend(["--bv", "kdop7"]);
    expect_input_error(&d, &bad_bv, &["kdop7"]);
    let mut bad_leaf = q("ok.obj", "ok.obj", "poses.csv");
    bad_leaf.extend(["--leaf-size", "0"]);
    expect_input_error(&d, &bad_leaf, &["leaf-size"]);
}

#[test]
fn demo_runs_and_checks_itself() {
    let out = common::bin()
        .args(["demo", "--poses", "50", "--triangles", "4000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("found:") && text.contains("equal f64 brute force"),
        "{text}"
    );
}

mod common;

/// `query --backend gpu` and `--backend cpu` write byte-identical pairs.csv on shared
/// models, in both modes' all-contacts form (first mode may pick a different pair).
#[test]
fn gpu_and_cpu_backends_write_identical_pairs() {
    let Some(_ctx) = common::gpu() else { return };
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    let d = tmp_dir("backends");
    for (a, b) in [
        ("beetle.obj", "beetle.obj"),
        ("spot.obj", "featuretype.stl"),
    ] {
        let ma = meshcollide::mesh::load(&dir.join(a)).unwrap();
        let (lo, hi) = ma.bounds();
        let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
        let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        let poses =
            meshcollide::pose::tumbling_poses(12, [0.0; 3], [c[0] + 0.2 * size, c[1], c[2]]);
        std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
        let mut outputs = Vec::new();
        for backend in ["cpu", "gpu"] {
            let out = common::bin()
                .arg("query")
                .arg(dir.join(a))
                .arg(dir.join(b))
                .args(["--poses", "poses.csv", "--backend", backend, "--out"])
                .arg(format!("pairs-{backend}.csv"))
                .current_dir(&d)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            outputs.push(std::fs::read(d.join(format!("pairs-{backend}.csv"))).unwrap());
        }
        assert!(
            outputs[0].len() > "pose,tri_a,tri_b\n".len(),
            "{a}/{b}: no contacts"
        );
        assert!(
            outputs[0] == outputs[1],
            "{a}/{b}: GPU and CPU pairs.csv differ"
        );
    }
}

/// `--bv boxtree`: every `--box-test` writes the kdop18 pairs; the GPU backend is a typed
/// input error (exit 2), not a crash.
#[test]
fn boxtree_box_tests_write_the_reference_pairs() {
    let d = tmp_dir("boxtree");
    common::write_obj(&d.join("a.obj"), &soup(7, 40));
    common::write_obj(&d.join("b.obj"), &soup(8, 40));
    let mut rng = Rng::new(9);
    let poses: Vec<Pose> = (0..10)
        .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.4, 0.4))))
        .collect();
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    let run = |extra: &[&str], out: &str| {
        let o = common::bin()
            .args([
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                out,
            ])
            .args(extra)
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(d.join(out)).unwrap()
    };
    let want = run(&["--bv", "kdop18", "--backend", "cpu"], "k.csv");
    assert!(want.lines().count() > 1, "the scene must have contacts");
    for t in ["align", "satlite", "sat", "lut"] {
        let got = run(&["--bv", "boxtree", "--box-test", t], &format!("{t}.csv"));
        assert_eq!(got, want, "--box-test {t}");
    }
    expect_input_error(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "g.csv",
            "--bv",
            "boxtree",
            "--backend",
            "gpu",
        ],
        &["the boxtree hierarchy runs on the CPU only"],
    );
}

/// Runs `meshcollide ARGS --help` and returns stdout.
fn help(args: &[&str]) -> String {
    let out = common::bin().args(args).arg("--help").output().unwrap();
    assert!(out.status.success(), "{args:?} --help failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands listed under `Commands:` in a help text (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| *s != "help")
        .map(str::to_string)
        .collect()
}

/// A papers-index file name, `NNN_<16 hex>.txt` or its short form `NNN_…`, if any.
fn paper_file_name(text: &str) -> Option<String> {
    let c: Vec<char> = text.chars().collect();
    (0..c.len().saturating_sub(4)).find_map(|i| {
        if !(c[i..i + 3].iter().all(char::is_ascii_digit) && c[i + 3] == '_') {
            return None;
        }
        let rest: String = c[i + 4..].iter().take(20).collect();
        let hex = rest.len() >= 20
            && rest[..16].chars().all(|x| x.is_ascii_hexdigit())
            && &rest[16..20] == ".txt";
        (hex || rest.starts_with('…')).then(|| c[i..(i + 24).min(c.len())].iter().collect())
    })
}

/// Every help page (the root, each subcommand, each `bench` experiment) cites papers by
/// authors and title, never by the file names of the papers index.
#[test]
fn help_cites_papers_by_author_and_title() {
    assert_eq!(
        // Split, so that a search of the tree for such names finds none in it.
        paper_file_name(concat!("see 002_2561ef21643dcace", ".txt, 3.3")),
        Some(concat!("002_2561ef21643dcace", ".txt").into())
    );
    assert!(paper_file_name("(000_…, section 5)").is_some());
    assert_eq!(paper_file_name("100_000 triangles, 46,080"), None);
    let mut pages = vec![(Vec::<String>::new(), help(&[]))];
    let mut i = 0;
    while i < pages.len() {
        let (path, text) = pages[i].clone();
        for sub in subcommands(&text) {
            let mut p = path.clone();
            p.push(sub);
            let args: Vec<&str> = p.iter().map(String::as_str).collect();
            let h = help(&args);
            pages.push((p, h));
        }
        i += 1;
    }
    let names: Vec<String> = pages.iter().map(|(p, _)| p.join(" ")).collect();
    for want in [
        "query",
        "demo",
        "poses",
        "info",
        "bench",
        "bench tumble",
        "bench grid",
    ] {
        assert!(names.iter().any(|n| n == want), "no help page for `{want}`");
    }
    for (path, text) in &pages {
        if let Some(f) = paper_file_name(text) {
            panic!("`meshcollide {} --help` cites `{f}`", path.join(" "));
        }
        // Words a user cannot follow: the crate's paths, a lecture they have not heard.
        for jargon in ["crate::", "the lecture's"] {
            assert!(
                !text.contains(jargon),
                "`meshcollide {} --help` says `{jargon}`",
                path.join(" ")
            );
        }
    }
    let page = |p: &str| &pages[names.iter().position(|n| n == p).unwrap()].1;
    for (p, author) in [
        ("query", "Klosowski"),
        ("query", "Fang, Jiang, Xu"),
        ("demo", "Klosowski"),
        ("bench", "Klosowski"),
        ("bench spheres", "Klosowski"),
        ("bench rules", "Klosowski"),
        ("bench flight", "Klosowski"),
        ("bench tumble", "Zachmann"),
        ("bench grid", "Figueiredo"),
    ] {
        assert!(page(p).contains(author), "`{p} --help` lacks {author}");
    }
}

/// The values `--bv` lists in `meshcollide ARGS --help` ("Possible values:" below it).
fn listed_bv(args: &[&str]) -> Vec<String> {
    help(args)
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--bv <BV>"))
        .skip_while(|l| l.trim() != "Possible values:")
        .skip(1)
        .take_while(|l| l.trim_start().starts_with("- "))
        .map(|l| {
            let v = l.trim_start()[2..].split([':', ' ']).next().unwrap();
            v.to_string()
        })
        .collect()
}

/// Help that a user can act on: `self` and `build` list the `--bv` values they accept
/// (the k-DOPs: every other one is refused, exit 2) where `query` lists all; the
/// boxtree's tests name their paper beside the section; `--gpu-memory` shows its default
/// (the library's).
#[test]
fn help_lists_what_each_command_accepts() {
    let every: Vec<String> = BvKind::EVERY.iter().map(|k| k.name().to_string()).collect();
    let kdops: Vec<String> = BvKind::ALL.iter().map(|k| k.name().to_string()).collect();
    assert_eq!(listed_bv(&["query"]), every);
    let d = tmp_dir("help");
    common::write_obj(&d.join("a.obj"), &soup(5, 4));
    for cmd in ["self", "build"] {
        assert_eq!(listed_bv(&[cmd]), kdops, "`{cmd} --help`");
        for k in &every {
            let o = common::bin()
                .current_dir(&d)
                .args([cmd, "a.obj", "--out", "x.out", "--bv", k])
                .args(if cmd == "self" {
                    &["--backend", "cpu"][..]
                } else {
                    &[]
                })
                .output()
                .unwrap();
            let accepted = o.status.success();
            assert_eq!(
                accepted,
                kdops.contains(k),
                "`{cmd} --bv {k}`: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            if !accepted {
                assert_eq!(o.status.code(), Some(2), "`{cmd} --bv {k}`");
            }
            let _ = std::fs::remove_file(d.join("x.out"));
        }
    }
    let q = help(&["query"]);
    let mib = meshcollide::gpu::context::DEFAULT_BATCH_MEMORY >> 20;
    let gpu_memory: String = q
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--gpu-memory"))
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert!(
        gpu_memory.contains(&format!("[default: {mib}")),
        "--gpu-memory shows no default: {gpu_memory}"
    );
    let box_tests: Vec<&str> = q
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--box-test"))
        .skip_while(|l| l.trim() != "Possible values:")
        .skip(1)
        .take_while(|l| l.trim_start().starts_with("- "))
        .collect();
    assert_eq!(box_tests.len(), meshcollide::boxtree::BoxTest::ALL.len());
    for l in box_tests {
        assert!(l.contains("Zachmann"), "{l}");
    }
}

/// The meshes and poses of a small GPU query in `d`: two overlapping soups, three poses.
fn small_query_inputs(d: &Path) {
    common::write_obj(&d.join("a.obj"), &soup(11, 30));
    common::write_obj(&d.join("b.obj"), &soup(12, 30));
    let poses: Vec<Pose> = [0.0, 0.1, 0.5]
        .iter()
        .map(|&dx| Pose::translation([dx, 0.0, 0.0]))
        .collect();
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
}

/// Without `XDG_RUNTIME_DIR`, Mesa's Vulkan drivers print an error about it when wgpu
/// probes them; the CLI supplies a private directory, so a GPU query's stderr is ours only.
#[test]
fn gpu_query_without_xdg_runtime_dir_prints_no_driver_noise() {
    let Some(_ctx) = common::gpu() else { return };
    let d = tmp_dir("xdg");
    small_query_inputs(&d);
    let out = common::bin()
        .args(["query", "a.obj", "b.obj", "--poses", "poses.csv"])
        .args(["--out", "pairs.csv", "--backend", "gpu"])
        .env_remove("XDG_RUNTIME_DIR")
        .current_dir(&d)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
}

/// A bad input file is reported before the GPU is probed: exit 2 and the error naming the
/// file as the first line of stderr. With `WGPU_BACKEND=none` wgpu sees no adapter, so a
/// probe before the check would end with the GPU error (exit 1) instead.
#[test]
fn bad_input_is_reported_before_the_gpu_probe() {
    let d = tmp_dir("order");
    small_query_inputs(&d);
    std::fs::write(d.join("bad.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n").unwrap();
    let run = |a: &str, env: Option<(&str, &str)>| {
        let mut c = common::bin();
        c.args(["query", a, "b.obj", "--poses", "poses.csv"])
            .args(["--out", "pairs.csv", "--backend", "gpu"])
            .env_remove("XDG_RUNTIME_DIR")
            .current_dir(&d);
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, err) = run("a.obj", Some(("WGPU_BACKEND", "none")));
    assert_eq!(
        code,
        Some(1),
        "WGPU_BACKEND=none must hide every adapter: {err}"
    );
    for env in [Some(("WGPU_BACKEND", "none")), None] {
        let (code, err) = run("bad.obj", env);
        assert_eq!(code, Some(2), "{env:?}: {err}");
        let first = err.lines().next().unwrap_or("");
        assert!(
            first.starts_with("error: ") && first.contains("bad.obj"),
            "{env:?}: first line `{first}` of\n{err}"
        );
    }
}

/// A mesh bigger than the input limit, plain or as a gzip bomb, is refused with exit 2 and a
/// message naming the file and the limit, before its bytes are held in memory.
#[test]
fn oversized_and_bomb_inputs_are_refused() {
    use std::io::Write;
    let d = tmp_dir("oversized");
    let big = soup(7, 400);
    common::write_obj(&d.join("big.obj"), &big);
    // The OBJ and then a megabyte of comment (lines just under the 1 MiB line limit): a
    // stream that unzips to hundreds of times its size.
    let text = std::fs::read(d.join("big.obj")).unwrap();
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&text).unwrap();
    z.write_all(b"#").unwrap();
    z.write_all(&vec![b' '; (1 << 20) - 1]).unwrap();
    z.write_all(b"\n").unwrap();
    std::fs::write(d.join("bomb.obj.gz"), z.finish().unwrap()).unwrap();
    std::fs::write(d.join("poses.csv"), "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n").unwrap();
    let limit = (text.len() + 1000).to_string();
    for (a, needles) in [
        (
            "bomb.obj.gz",
            vec!["bomb.obj.gz", "once unzipped", limit.as_str()],
        ),
        ("big.obj", vec!["big.obj", "holds more than 100 bytes"]),
    ] {
        let lim = if a == "big.obj" {
            "100"
        } else {
            limit.as_str()
        };
        let out = common::bin()
            .args([
                "query",
                a,
                "big.obj",
                "--poses",
                "poses.csv",
                "--out",
                "pairs.csv",
            ])
            .env("MESHCOLLIDE_MAX_INPUT_BYTES", lim)
            .current_dir(&d)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{a}: {err}");
        for n in needles {
            assert!(err.contains(n), "{a}: `{err}` lacks `{n}`");
        }
        // The message names the limit's source: the variable that set it.
        let source = format!("the limit set by MESHCOLLIDE_MAX_INPUT_BYTES={lim}");
        assert!(err.contains(&source), "{a}: `{err}` lacks `{source}`");
        assert!(!err.contains("half the available memory"), "{a}: {err}");
        assert!(!d.join("pairs.csv").exists());
    }
    // Under the default limit (half the available memory) both read and query normally.
    let out = common::bin()
        .args([
            "query",
            "bomb.obj.gz",
            "big.obj",
            "--poses",
            "poses.csv",
            "--out",
            "pairs.csv",
        ])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Ctrl-C in the middle of a query: exit 130, no `pairs.csv` and no temporary file left,
/// a message that says so, and the whole poses done kept in `pairs.csv.partial`, equal to
/// the library's pairs for those poses.
#[cfg(unix)]
#[test]
fn interrupted_query_leaves_no_output_and_keeps_whole_poses() {
    let d = tmp_dir("interrupt");
    let (a, b) = common::tori(40);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let poses = meshcollide::pose::tumbling_poses(40_000, [0.0; 3], [1.0, 0.0, 0.0]);
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    let mut child = common::bin()
        .args([
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "pairs.csv",
        ])
        .args(["--backend", "cpu", "--threads", "1"])
        .current_dir(&d)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first block of pairs on disk: the query is streaming.
    let started = std::time::Instant::now();
    let tmp = d.join(format!(".pairs.csv.{}.tmp", child.id()));
    while std::fs::metadata(&tmp).map_or(true, |m| m.len() == 0) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the query ended before Ctrl-C"
        );
        assert!(
            started.elapsed().as_secs() < 120,
            "no pairs after 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let mut left: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["a.obj", "b.obj", "pairs.csv.partial", "poses.csv"],
        "{err}"
    );
    // "the pairs of poses 0..N (of 40000) are in pairs.csv.partial"
    let n: usize = err
        .split("the pairs of poses 0..")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no pose count in `{err}`"));
    assert!(n > 0 && n < poses.len(), "{err}");
    let text = std::fs::read_to_string(d.join("pairs.csv.partial")).unwrap();
    let got = parse_pairs(&text).unwrap();
    let col = meshcollide::Collider::builder(&a, &b).build().unwrap();
    let want: Vec<(u32, u32, u32)> = col
        .collide_batch(&poses[..n])
        .into_iter()
        .enumerate()
        .flat_map(|(i, r)| r.pairs.into_iter().map(move |(x, y)| (i as u32, x, y)))
        .collect();
    assert_eq!(got, want);
}

/// The GPU probe is timed apart from the build (`gpu_probe_ms` in stats.json, issue 38):
/// present for `--backend gpu` and `auto` in `query` and `self`, absent for `--backend cpu`,
/// and the pairs the same whichever backend ran.
#[test]
fn the_gpu_probe_is_reported_apart_from_the_build() {
    let Some(_ctx) = common::gpu() else { return };
    let d = tmp_dir("probe-ms");
    small_query_inputs(&d);
    let stats = |args: &[&str]| -> (serde_json::Value, Vec<u8>) {
        let o = common::bin()
            .args(args)
            .args(["--out", "pairs.csv", "--stats", "stats.json"])
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let s = std::fs::read_to_string(d.join("stats.json")).unwrap();
        (
            serde_json::from_str(&s).unwrap(),
            std::fs::read(d.join("pairs.csv")).unwrap(),
        )
    };
    for command in [
        &["query", "a.obj", "b.obj", "--poses", "poses.csv"][..],
        &["self", "a.obj"][..],
    ] {
        let mut pairs = Vec::new();
        for backend in ["cpu", "gpu", "auto"] {
            let mut args = command.to_vec();
            args.extend(["--backend", backend]);
            let (s, p) = stats(&args);
            pairs.push(p);
            let probe = &s["gpu_probe_ms"];
            if backend == "cpu" {
                assert!(probe.is_null(), "{args:?}: {s}");
            } else {
                let ms = probe.as_f64().unwrap_or_else(|| panic!("{args:?}: {s}"));
                assert!(ms > 0.0 && ms.is_finite(), "{args:?}: {ms}");
                assert!(s["build_ms"].as_f64().unwrap() >= 0.0);
            }
        }
        assert!(pairs.windows(2).all(|w| w[0] == w[1]), "{command:?}");
    }
}

/// `--budget N --status FILE` end to end: every status row obeys the budget and the oracle
/// (`free` only without a contact, `contact` with the pose's pairs in pairs.csv, `maybe`
/// with none), on the kdop18 tree, the boxtree and the R-tree; an unlimited budget writes
/// the unbudgeted query's pairs.csv byte for byte;
/// `--status` without `--budget` writes complete rows; bad budgets and what a budget does
/// not combine with are exit 2 naming the option.
#[test]
fn budget_writes_status_rows_the_oracle_allows() {
    let d = tmp_dir("budget");
    let (a, b) = (soup(41, 60), soup(42, 60));
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut rng = Rng::new(43);
    let poses: Vec<Pose> = (0..24)
        .map(|_| {
            let axis = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 1.0];
            let t = [
                rng.range(-0.6, 0.6),
                rng.range(-0.6, 0.6),
                rng.range(-0.6, 0.6),
            ];
            Pose::from_axis_angle(axis, rng.range(0.0, 6.0), t)
        })
        .collect();
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    let run = |args: &[&str]| {
        let out = common::bin()
            .args([
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--threads",
                "1",
            ])
            .args(args)
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let rows = |f: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(d.join(f)).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("pose,answer,complete,depth_bound,bv_tests")
        );
        lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let oracle: Vec<Vec<(u32, u32)>> = poses.iter().map(|p| brute_force(&a, &b, p)).collect();
    assert!(oracle.iter().filter(|o| !o.is_empty()).count() >= 6);
    run(&[
        "--bv",
        "kdop18",
        "--coherence",
        "off",
        "--out",
        "plain.csv",
        "--status",
        "plain-status.csv",
    ]);
    for (i, r) in rows("plain-status.csv").iter().enumerate() {
        let want = if oracle[i].is_empty() {
            "free"
        } else {
            "contact"
        };
        assert_eq!(
            (r[0].as_str(), r[1].as_str(), r[2].as_str(), r[3].as_str()),
            (i.to_string().as_str(), want, "1", "0")
        );
    }
    for bv in ["kdop18", "boxtree", "rtree"] {
        if bv != "kdop18" {
            run(&["--bv", bv, "--out", "plain.csv"]);
        }
        run(&[
            "--bv",
            bv,
            "--out",
            "unlimited.csv",
            "--budget",
            "18446744073709551615",
        ]);
        assert_eq!(
            std::fs::read(d.join("plain.csv")).unwrap(),
            std::fs::read(d.join("unlimited.csv")).unwrap(),
            "{bv}"
        );
    }
    let mut maybe = 0;
    for (bv, order) in ["auto", "boxtree", "rtree"]
        .into_iter()
        .flat_map(|bv| ["best", "depth", "breadth"].map(|order| (bv, order)))
    {
        for n in [1u64, 2, 5, 13, 40] {
            run(&[
                "--bv",
                bv,
                "--out",
                "p.csv",
                "--budget",
                &n.to_string(),
                "--budget-order",
                order,
                "--status",
                "s.csv",
            ]);
            let pairs = parse_pairs(&std::fs::read_to_string(d.join("p.csv")).unwrap()).unwrap();
            for (i, r) in rows("s.csv").iter().enumerate() {
                let mine: Vec<(u32, u32)> = pairs
                    .iter()
                    .filter(|p| p.0 as usize == i)
                    .map(|p| (p.1, p.2))
                    .collect();
                assert!(
                    mine.iter().all(|p| oracle[i].contains(p)),
                    "{bv} {order} {n} pose {i}"
                );
                assert!(r[4].parse::<u64>().unwrap() <= n);
                let bound: f64 = r[3].parse().unwrap();
                match r[1].as_str() {
                    "free" => assert!(oracle[i].is_empty() && r[2] == "1"),
                    "contact" => assert!(!mine.is_empty()),
                    "maybe" => {
                        maybe += 1;
                        assert!(mine.is_empty() && r[2] == "0" && bound >= 0.0)
                    }
                    other => panic!("answer {other}"),
                }
                if r[2] == "1" {
                    assert_eq!(mine, oracle[i], "{bv} {order} {n} pose {i}");
                }
            }
        }
    }
    assert!(maybe > 0);
    for (args, needle) in [
        (vec!["--budget", "0"], "--budget"),
        (vec!["--budget", "2.5"], "--budget"),
        (vec!["--budget", "-3"], "--budget"),
        (
            vec![
                "--budget",
                "5",
                "--backend",
                "gpu",
                "--budget-order",
                "best",
            ],
            "--budget-order best",
        ),
        (
            vec!["--budget", "5", "--backend", "gpu", "--budget-us", "9"],
            "--budget-us",
        ),
        (vec!["--budget", "5", "--tolerance", "0.1"], "--tolerance"),
        (vec!["--budget-us", "5"], "--budget"),
        (
            vec!["--budget", "5", "--budget-order", "sideways"],
            "--budget-order",
        ),
    ] {
        let mut all = vec![
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "bad.csv",
        ];
        all.extend(args);
        expect_input_error(&d, &all, &[needle]);
        assert!(!d.join("bad.csv").exists());
    }
}
