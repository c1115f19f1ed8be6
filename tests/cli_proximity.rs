//! `query --tolerance` and `distance` end to end, as a user runs them: the files they
//! write against the library's oracles ([`meshcollide::proximity`]), and every bad value
//! a clear exit 2 naming the option.

mod common;

use meshcollide::formats::parse_pairs;
use meshcollide::proximity::brute_force_within;
use meshcollide::proximity::distance::brute_force_distance;
use meshcollide::{Mesh, Pose};
use std::path::Path;
use std::process::Output;

fn run(dir: &Path, args: &[&str]) -> Output {
    common::bin().current_dir(dir).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Two tori and tumbling poses that bring them from apart to touching, in a fresh folder.
fn scene(name: &str) -> (std::path::PathBuf, Mesh, Mesh, Vec<Pose>) {
    let d = common::fresh_tmp_dir("proximity", name);
    let (a, b) = common::tori(8);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut poses = meshcollide::pose::tumbling_poses(10, [0.0; 3], [2.8, 0.0, 0.0]);
    poses.extend(meshcollide::pose::tumbling_poses(
        6,
        [0.0; 3],
        [1.0, 0.1, 0.0],
    ));
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    // The file's decimals are what the command reads: read them back for the oracle.
    let poses = meshcollide::pose::read_poses(&d.join("poses.csv")).unwrap();
    (d, a, b, poses)
}

#[test]
fn tolerance_query_writes_the_pairs_within_eps() {
    let (d, a, b, poses) = scene("tolerance");
    for eps in ["0.05", "0.3"] {
        let o = run(
            &d,
            &[
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                "p.csv",
                "--tolerance",
                eps,
                "--force",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let got = parse_pairs(&std::fs::read_to_string(d.join("p.csv")).unwrap()).unwrap();
        let e: f64 = eps.parse().unwrap();
        let mut want = Vec::new();
        for (i, p) in poses.iter().enumerate() {
            for (x, y) in brute_force_within(&a, &b, p, e) {
                want.push((i as u32, x, y));
            }
        }
        assert_eq!(got, want, "ε {eps}");
        assert!(!want.is_empty());
    }
    // 0 is the ordinary query, byte for byte.
    let plain = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "q.csv",
        ],
    );
    assert!(plain.status.success(), "{}", stderr(&plain));
    let zero = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "z.csv",
            "--tolerance",
            "0",
        ],
    );
    assert!(zero.status.success(), "{}", stderr(&zero));
    assert_eq!(
        std::fs::read(d.join("q.csv")).unwrap(),
        std::fs::read(d.join("z.csv")).unwrap()
    );
}

#[test]
fn bad_tolerances_and_hierarchies_are_refused() {
    let (d, ..) = scene("tolerance-bad");
    for bad in ["-1", "nan", "inf", "x"] {
        let o = run(
            &d,
            &[
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                "p.csv",
                &format!("--tolerance={bad}"),
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--tolerance"), "{}", stderr(&o));
        assert!(!d.join("p.csv").exists());
    }
    for bv in ["boxtree", "rtree"] {
        let o = run(
            &d,
            &[
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                "p.csv",
                "--tolerance",
                "0.1",
                "--bv",
                bv,
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{bv}: {}", stderr(&o));
        assert!(stderr(&o).contains("--tolerance"), "{}", stderr(&o));
    }
    let o = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "p.csv",
            "--tolerance",
            "0.1",
            "--backend",
            "gpu",
            "--bv",
            "boxtree",
        ],
    );
    // The GPU answers tolerance queries on the binary trees (tests/gpu_tolerance.rs); the
    // boxtree has no GPU pipeline.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("boxtree"), "{}", stderr(&o));
    for bad in ["-0.5", "nan"] {
        let o = run(
            &d,
            &[
                "distance",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                "d.csv",
                &format!("--upto={bad}"),
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--upto"), "{}", stderr(&o));
        assert!(!d.join("d.csv").exists());
    }
    for bv in ["boxtree", "rtree"] {
        let o = run(
            &d,
            &[
                "distance",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                "d.csv",
                "--bv",
                bv,
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("--bv") && stderr(&o).contains(bv),
            "{}",
            stderr(&o)
        );
        assert!(!d.join("d.csv").exists());
    }
}

/// Parses one field of distance.csv as the format writes it.
fn num(s: &str) -> f64 {
    s.parse().unwrap()
}

#[test]
fn distance_writes_the_format_and_the_oracles_answer() {
    let (d, a, b, poses) = scene("distance");
    for (upto, bv) in [
        (None, "auto"),
        (Some("0.01"), "auto"),
        (None, "obb"),
        (Some("0.01"), "sphere"),
    ] {
        let mut args = vec![
            "distance",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "d.csv",
            "--force",
            "--bv",
            bv,
        ];
        if let Some(u) = upto {
            args.extend(["--upto", u]);
        }
        let o = run(&d, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(d.join("d.csv")).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("pose,distance,tri_a,tri_b,ax,ay,az,bx,by,bz")
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), poses.len());
        let mut infinite = 0;
        for (i, (r, p)) in rows.iter().zip(&poses).enumerate() {
            let want = brute_force_distance(&a, &b, p, upto.map(num));
            assert_eq!(r.len(), 10);
            assert_eq!(r[0], i.to_string());
            match want.witness {
                None => {
                    infinite += 1;
                    assert_eq!(&r[1..], ["inf", "", "", "", "", "", "", "", ""]);
                }
                Some(w) => {
                    assert_eq!(num(r[1]), want.distance, "pose {i}");
                    assert_eq!((r[2], r[3]), (&*w.tri_a.to_string(), &*w.tri_b.to_string()));
                    let pts: Vec<f64> = r[4..].iter().map(|s| num(s)).collect();
                    assert_eq!(pts, [w.a, w.b].concat(), "pose {i}");
                }
            }
        }
        // The poses run from apart (0.1 or more) to interlocked.
        assert_eq!(infinite > 0, upto.is_some(), "{text}");
        assert!(rows.iter().any(|r| r[1] == "0"), "{text}");
    }
}

/// A mesh file without triangles (only vertices): every other command refuses it, the
/// distance query answers `inf` without a witness at every pose (FORMATS.md, "Distance"),
/// whichever side it is, and still checks the poses.
#[test]
fn distance_with_an_empty_mesh_is_inf_at_every_pose() {
    let (d, _, _, poses) = scene("distance-empty");
    std::fs::write(d.join("empty.obj"), "v 0 0 0\nv 1 0 0\n").unwrap();
    for (a, b) in [("empty.obj", "b.obj"), ("a.obj", "empty.obj")] {
        let o = run(
            &d,
            &[
                "distance",
                a,
                b,
                "--poses",
                "poses.csv",
                "--out",
                "d.csv",
                "--force",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(d.join("d.csv")).unwrap();
        let want: String = std::iter::once("pose,distance,tri_a,tri_b,ax,ay,az,bx,by,bz\n".into())
            .chain((0..poses.len()).map(|i| format!("{i},inf,,,,,,,,\n")))
            .collect();
        assert_eq!(text, want);
    }
    let o = run(
        &d,
        &[
            "query",
            "empty.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "p.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("empty.obj"), "{}", stderr(&o));
    std::fs::write(d.join("bad.csv"), "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,x\n").unwrap();
    let o = run(
        &d,
        &[
            "distance",
            "empty.obj",
            "b.obj",
            "--poses",
            "bad.csv",
            "--out",
            "e.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    assert!(!d.join("e.csv").exists());
}

/// `--solid` as a user meets it: a small closed box inside a big one has no pairs (the
/// surfaces never meet) and is reported in `inside.csv` beside `--out`, the other way round
/// as `a`; a box outside or touching is not. The rows equal the library's decision,
/// [`meshcollide::solid::inside`], tested against containment oracles in `tests/solid.rs`.
#[test]
fn solid_reports_a_mesh_inside_the_other() {
    let d = common::fresh_tmp_dir("proximity", "solid");
    let big = meshcollide::mesh::generate::box_mesh([0.0; 3], [10.0; 3]);
    let small = meshcollide::mesh::generate::box_mesh([0.0; 3], [1.0; 3]);
    common::write_obj(&d.join("big.obj"), &big);
    common::write_obj(&d.join("small.obj"), &small);
    // Inside (turned), far outside, touching a face from inside, and straddling a face.
    let poses = vec![
        Pose::new([0.9, 0.3, 0.3, 0.1], [4.0, 4.0, 4.0]),
        Pose::translation([20.0, 0.0, 0.0]),
        Pose::translation([9.0, 4.0, 4.0]),
        Pose::translation([9.5, 4.0, 4.0]),
        Pose::translation([0.5, 0.5, 0.5]),
    ];
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    let poses = meshcollide::pose::read_poses(&d.join("poses.csv")).unwrap();
    let o = run(
        &d,
        &[
            "query",
            "big.obj",
            "small.obj",
            "--poses",
            "poses.csv",
            "--out",
            "p.csv",
            "--solid",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("inside.csv")).unwrap();
    assert_eq!(text, "pose,inner\n0,b\n4,b\n", "{text}");
    // The library's answer for every pose without pairs.
    let (sa, sb) = (
        meshcollide::solid::Solid::new(&big).unwrap(),
        meshcollide::solid::Solid::new(&small).unwrap(),
    );
    for (i, p) in poses.iter().enumerate() {
        let lib = meshcollide::solid::inside(&sa, &big, &sb, &small, p);
        let contact = !meshcollide::brute_force(&big, &small, p).is_empty();
        let row = text.lines().any(|l| l == format!("{i},b"));
        assert_eq!(row, !contact && lib.is_some(), "pose {i}");
    }
    // The other way round the big box is B: A (the small box) lies inside it.
    let o = run(
        &d,
        &[
            "query",
            "small.obj",
            "big.obj",
            "--poses",
            "poses.csv",
            "--out",
            "p.csv",
            "--solid",
            "--inside",
            "in.csv",
            "--force",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let inv: Vec<Pose> = poses
        .iter()
        .map(|p| {
            // B = big posed by the inverse: small sits where it sat in big's frame.
            let r = p.r;
            let rt = [0, 1, 2].map(|i| [0, 1, 2].map(|j| r[j][i]));
            let t = [0, 1, 2].map(|i| -(0..3).map(|j| rt[i][j] * p.t[j]).sum::<f64>());
            Pose::from_rows(rt, t).unwrap()
        })
        .collect();
    std::fs::write(d.join("inv.csv"), meshcollide::pose::format_poses(&inv)).unwrap();
    let o = run(
        &d,
        &[
            "query",
            "small.obj",
            "big.obj",
            "--poses",
            "inv.csv",
            "--out",
            "p.csv",
            "--solid",
            "--inside",
            "in.csv",
            "--force",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("in.csv")).unwrap();
    assert_eq!(text, "pose,inner\n0,a\n4,a\n", "{text}");
}

/// An open mesh is refused before any work, naming the file and an open edge; no output
/// is written.
#[test]
fn solid_refuses_an_open_mesh() {
    let d = common::fresh_tmp_dir("proximity", "solid-open");
    let open = meshcollide::mesh::generate::grid(3, 3, 1.0, 0.0);
    let cube = meshcollide::mesh::generate::box_mesh([0.0; 3], [1.0; 3]);
    common::write_obj(&d.join("sheet.obj"), &open);
    common::write_obj(&d.join("cube.obj"), &cube);
    std::fs::write(
        d.join("poses.csv"),
        meshcollide::pose::format_poses(&[Pose::translation([0.0; 3])]),
    )
    .unwrap();
    let o = run(
        &d,
        &[
            "query",
            "cube.obj",
            "sheet.obj",
            "--poses",
            "poses.csv",
            "--out",
            "p.csv",
            "--solid",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("sheet.obj") && e.contains("edge"), "{e}");
    assert!(!d.join("p.csv").exists() && !d.join("inside.csv").exists());
}

/// `self --tolerance` writes its oracle's pairs (pose 0), 0 writes the ordinary query's
/// file byte for byte, and a GPU backend or a bad value is exit 2 naming the option.
#[test]
fn self_tolerance_writes_the_oracles_pairs() {
    let d = common::fresh_tmp_dir("proximity", "self-tolerance");
    let sheet = meshcollide::mesh::generate::folded_sheet(10, 3, 0.1);
    common::write_obj(&d.join("s.obj"), &sheet);
    let sheet = meshcollide::mesh::load(&d.join("s.obj")).unwrap();
    for eps in ["0.02", "0.1"] {
        let o = run(
            &d,
            &[
                "self",
                "s.obj",
                "--out",
                "p.csv",
                "--tolerance",
                eps,
                "--force",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let got = parse_pairs(&std::fs::read_to_string(d.join("p.csv")).unwrap()).unwrap();
        let want: Vec<(u32, u32, u32)> = meshcollide::brute_force_self_within(&sheet, num(eps))
            .into_iter()
            .map(|(a, b)| (0, a, b))
            .collect();
        assert_eq!(got, want, "eps {eps}");
    }
    let o = run(&d, &["self", "s.obj", "--out", "z.csv", "--tolerance", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&d, &["self", "s.obj", "--out", "plain.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(d.join("z.csv")).unwrap(),
        std::fs::read(d.join("plain.csv")).unwrap()
    );
    for (args, want) in [
        (vec!["--tolerance=-1"], "--tolerance"),
        (vec!["--tolerance", "nan"], "--tolerance"),
    ] {
        let mut all = vec!["self", "s.obj", "--out", "bad.csv"];
        all.extend(args);
        let o = run(&d, &all);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
        assert!(!d.join("bad.csv").exists());
    }
}

/// `distance` takes `query`'s tree options: a hierarchy saved with `--split longest
/// --split-point median` serves `distance --split longest --split-point median`, with the
/// bytes of the same options on the mesh files (the witness does not depend on the tree),
/// and is refused without them, naming the option.
#[test]
fn distance_takes_the_saved_trees_split_options() {
    let (d, _, _, _) = scene("distance-split");
    for (mesh, saved) in [("a.obj", "a.mch"), ("b.obj", "b.mch")] {
        let o = run(
            &d,
            &[
                "build",
                mesh,
                "--out",
                saved,
                "--split",
                "longest",
                "--split-point",
                "median",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let distance = |a: &str, b: &str, out: &str, split: &[&str]| {
        let mut args = vec![
            "distance",
            a,
            b,
            "--poses",
            "poses.csv",
            "--out",
            out,
            "--force",
        ];
        args.extend(split);
        run(&d, &args)
    };
    let opts = ["--split", "longest", "--split-point", "median"];
    let o = distance("a.mch", "b.mch", "saved.csv", &opts);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = distance("a.obj", "b.obj", "files.csv", &opts);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = distance("a.obj", "b.obj", "default.csv", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |f: &str| std::fs::read(d.join(f)).unwrap();
    assert_eq!(read("saved.csv"), read("files.csv"));
    assert_eq!(read("saved.csv"), read("default.csv"));
    let o = distance("a.mch", "b.mch", "refused.csv", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--split"), "{}", stderr(&o));
    assert!(!d.join("refused.csv").exists());
}
