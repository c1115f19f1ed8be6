use super::*;

mod file_tests {
    use super::*;

    #[test]
    fn parses_and_normalizes() {
        let p = parse_poses(
            Path::new("p.csv"),
            "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0.5,0,0\n0.7071068,0,0,0.7071068,0.5,0,0\n",
        )
        .unwrap();
        assert_eq!(p.len(), 2);
        let q = p[1].apply([1.0, 0.0, 0.0]);
        assert!((q[0] - 0.5).abs() < 1e-12 && (q[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn errors_name_the_row() {
        let e = parse_poses(
            Path::new("p.csv"),
            "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n2,0,0,0,0,0,0\n",
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("line 3") && s.contains("pose 1"), "{s}");
        let e = parse_poses(Path::new("p.csv"), "a,b\n").unwrap_err();
        assert!(e.to_string().contains("header"));
        let e =
            parse_poses(Path::new("p.csv"), "qw,qx,qy,qz,tx,ty,tz\n1,0,0,x,0,0,0\n").unwrap_err();
        assert!(e.to_string().contains("qz"));
    }

    #[test]
    fn translations_outside_the_supported_range_are_row_errors() {
        let h = "qw,qx,qy,qz,tx,ty,tz\n";
        for bad in ["1e31", "-1e-70"] {
            let e = parse_poses(
                Path::new("p.csv"),
                &format!("{h}1,0,0,0,0,0,0\n1,0,0,0,0,{bad},0\n"),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("line 3") && e.contains("pose 1") && e.contains("ty"),
                "{e}"
            );
        }
        assert!(parse_poses(Path::new("p.csv"), &format!("{h}1,0,0,0,1e30,0,-1e-60\n")).is_ok());
    }

    #[test]
    fn tiny_rotation_entries_are_flushed_to_zero() {
        // A turn by 2·10⁻²⁰ rad: its off-diagonal entries (≈ 2·10⁻²⁰) are below 2⁻⁶⁰.
        let p = Pose::new([1.0, 1e-20, 0.0, 0.0], [0.0; 3]);
        assert_eq!(p.r, Pose::IDENTITY.r);
        // 10⁻¹⁶ stays.
        let p = Pose::new([1.0, 1e-16, 0.0, 0.0], [0.0; 3]);
        assert!(p.r[2][1] > 0.0);
    }

    #[test]
    fn rotation_is_orthonormal_and_inverse_matches() {
        let p = Pose::new([0.3, -0.5, 0.2, 0.7], [1.0, 2.0, 3.0]);
        let d = [0.2, -0.4, 0.9];
        let x = [0.7f64, -1.5, 2.25];
        let lhs: f64 = (0..3).map(|k| d[k] * (p.apply(x)[k] - p.t[k])).sum();
        let di = p.rotate_inverse(d);
        let rhs: f64 = (0..3).map(|k| di[k] * x[k]).sum();
        assert!((lhs - rhs).abs() < 1e-12);
    }

    #[test]
    fn tumbling_turns_about_the_centre() {
        let c = [0.5, -1.0, 2.0];
        let t = [0.1, 0.2, 0.3];
        let poses = tumbling_poses(8, c, t);
        for p in &poses {
            let m = p.apply(c);
            for k in 0..3 {
                assert!((m[k] - c[k] - t[k]).abs() < 1e-12);
            }
        }
        // Half way round: a half-turn about z after one about x is a half-turn about y.
        let h = poses[4].apply([c[0] + 1.0, c[1] + 2.0, c[2] + 3.0]);
        let want = [c[0] - 1.0 + t[0], c[1] + 2.0 + t[1], c[2] - 3.0 + t[2]];
        for k in 0..3 {
            assert!((h[k] - want[k]).abs() < 1e-12, "{h:?} vs {want:?}");
        }
    }
}

mod coherent_path_tests {
    use super::*;

    #[test]
    fn small_steps_are_a_path_large_steps_and_unrelated_poses_are_not() {
        let (lo, hi) = ([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]);
        // A turn in 900 steps (0.4°) is a path, in 90 (4°) it is not.
        assert!(coherent_path(
            &tumbling_poses(900, [0.0; 3], [1.0, 0.0, 0.0]),
            lo,
            hi
        ));
        assert!(!coherent_path(
            &tumbling_poses(90, [0.0; 3], [1.0, 0.0, 0.0]),
            lo,
            hi
        ));
        // Translations: the bound is |Δt| / r against COHERENT_STEP (r = √3 here).
        let r = 3f64.sqrt();
        let slide = |step: f64| -> Vec<Pose> {
            (0..10)
                .map(|i| Pose::translation([i as f64 * step * r, 0.0, 0.0]))
                .collect()
        };
        assert!(coherent_path(&slide(0.99 * COHERENT_STEP), lo, hi));
        assert!(!coherent_path(&slide(1.01 * COHERENT_STEP), lo, hi));
        // Only the first COHERENT_PROBE poses count; one pose is not a path.
        let mut poses = slide(0.5 * COHERENT_STEP);
        poses.resize(COHERENT_PROBE, poses[9]);
        poses.push(Pose::translation([1e3, 0.0, 0.0]));
        assert!(coherent_path(&poses, lo, hi));
        assert!(!coherent_path(&poses[..1], lo, hi));
        // Unrelated poses.
        let mut rng = crate::rng::Rng::new(7);
        let random: Vec<Pose> = (0..20)
            .map(|_| Pose::new(rng.unit_quaternion(), [0.0; 3]))
            .collect();
        assert!(!coherent_path(&random, lo, hi));
        // Far from the origin: the same path about a centre at 1e9 is still a path.
        let far = [1e9, -1e9, 5e8];
        let (flo, fhi) = (far.map(|x| x - 1.0), far.map(|x| x + 1.0));
        assert!(coherent_path(
            &tumbling_poses(900, far, [1.0, 0.0, 0.0]),
            flo,
            fhi
        ));
    }
}

mod forms_tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<Pose>, PoseError> {
        parse_poses(Path::new("p.csv"), text)
    }

    /// The same rotations written in the three forms: both quaternion orders give the same
    /// pose bit for bit, and a matrix row written from a pose's `r` (shortest round trip)
    /// gives that `r` as written.
    #[test]
    fn the_three_forms_give_the_same_poses() {
        let mut rng = crate::rng::Rng::new(3);
        let mut wxyz = String::from("qw,qx,qy,qz,tx,ty,tz\n");
        let mut xyzw = String::from(" qx, qy, qz, qw, tx, ty, tz\r\n");
        let mut rows = String::from("\u{feff}r00,r01,r02,r10,r11,r12,r20,r21,r22,tx,ty,tz\n");
        let mut want = Vec::new();
        for _ in 0..200 {
            let q = rng.unit_quaternion();
            let t = [rng.f64() - 0.5, rng.f64() * 3.0, -rng.f64()];
            let p = Pose::new(q, t);
            want.push(p);
            let [w, x, y, z] = q;
            let [a, b, c] = t;
            wxyz.push_str(&format!("{w},{x},{y},{z},{a},{b},{c}\n"));
            xyzw.push_str(&format!("{x},{y},{z},{w},{a},{b},{c}\n"));
            let r =
                p.r.as_flattened()
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>();
            rows.push_str(&format!("{},{a},{b},{c}\n", r.join(",")));
        }
        let (p1, p2, p3) = (
            parse(&wxyz).unwrap(),
            parse(&xyzw).unwrap(),
            parse(&rows).unwrap(),
        );
        assert_eq!(p1, want);
        assert_eq!(p2, want);
        for (got, w) in p3.iter().zip(&want) {
            assert_eq!(
                got.r.map(|r| r.map(f64::to_bits)),
                w.r.map(|r| r.map(f64::to_bits))
            );
            assert_eq!(got.t, w.t);
            // The derived quaternion is the same rotation (up to rounding).
            let again = Pose::new(got.q, got.t);
            for i in 0..3 {
                for j in 0..3 {
                    assert!((again.r[i][j] - w.r[i][j]).abs() < 1e-12);
                }
            }
        }
        // The scalar-last order of SciPy: `0,0,0,1` is the identity, not a half turn.
        let p = parse("qx,qy,qz,qw,tx,ty,tz\n0,0,0,1,0,0,0\n").unwrap();
        assert_eq!(p[0], Pose::IDENTITY);
    }

    /// A matrix is applied as written; a reflection is orthonormal and accepted.
    #[test]
    fn matrices_are_applied_as_written() {
        let text = "r00,r01,r02,r10,r11,r12,r20,r21,r22,tx,ty,tz\n\
                    0.6,0.8,0,-0.8,0.6,0,0,0,1,1,2,3\n\
                    1,0,0,0,1,0,0,0,-1,0,0,0\n";
        let p = parse(text).unwrap();
        assert_eq!(p[0].r, [[0.6, 0.8, 0.0], [-0.8, 0.6, 0.0], [0.0, 0.0, 1.0]]);
        assert_eq!(p[0].apply([1.0, 0.0, 0.0]), [0.6 + 1.0, -0.8 + 2.0, 3.0]);
        assert_eq!(p[1].apply([1.0, 2.0, 3.0]), [1.0, 2.0, -3.0]);
    }

    /// What a matrix row may not be: each error names the line and the pose row.
    #[test]
    fn bad_matrices_name_the_row() {
        let h = "r00,r01,r02,r10,r11,r12,r20,r21,r22,tx,ty,tz\n1,0,0,0,1,0,0,0,1,0,0,0\n";
        let bad = [
            ("1,0,0,0,1,0,0,0,1.00001,0,0,0", "orthonormal"),
            ("1,0,0,0,1,0,0.001,0,1,0,0,0", "orthonormal"),
            ("2,0,0,0,1,0,0,0,1,0,0,0", "orthonormal"),
            ("1,1e-30,0,0,1,0,0,0,1,0,0,0", "below 2^-60"),
            ("1,0,0,0,1,0,0,0,1,0,0", "expected 12 fields, found 11"),
            ("1,0,0,0,1,0,0,0,1,0,0,1e31", "field tz"),
            ("1,0,0,0,1,0,0,0,nan,0,0,0", "field r22 is not finite"),
            ("1,0,0,0,1,0,x,0,1,0,0,0", "field r20 (`x`)"),
        ];
        for (row, says) in bad {
            let e = parse(&format!("{h}{row}\n")).unwrap_err().to_string();
            assert!(
                e.contains("line 3") && e.contains("pose 1") && e.contains(says),
                "{row}: {e}"
            );
        }
        // Within the tolerance: accepted, and applied as written (not re-orthonormalized).
        let p = parse(&format!("{h}1,0,0,0,1,0,0,0,1.0000004,0,0,0\n")).unwrap();
        assert_eq!(p[1].r[2][2], 1.0000004);
    }

    #[test]
    fn headers_name_every_form() {
        let e = parse("x,y,z\n").unwrap_err().to_string();
        for c in PoseColumns::ALL {
            assert!(e.contains(c.header()), "{e}");
        }
        let e = parse("qx,qy,qz,qw,tx,ty,tz\n0,0,0,2,0,0,0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("norm") && e.contains("line 2"), "{e}");
    }

    /// The glam constructors read glam's column-major matrices by their entries.
    #[test]
    fn glam_constructors() {
        let q = glam::DQuat::from_axis_angle(glam::DVec3::new(0.0, 0.6, 0.8), 0.7);
        let t = glam::DVec3::new(1.0, -2.0, 0.5);
        let m = glam::DMat4::from_rotation_translation(q, t);
        let p = Pose::from_matrix(m).unwrap();
        let x = glam::DVec3::new(0.3, -0.2, 0.9);
        let want = m.transform_point3(x);
        let got = p.apply(x.to_array());
        for k in 0..3 {
            assert!((got[k] - want[k]).abs() < 1e-15);
        }
        let r = glam::DMat3::from_quat(q);
        assert_eq!(Pose::from_rotation_translation(r, t).unwrap().r, p.r);
        let mut skew = m;
        skew.x_axis.w = 1e-9;
        assert!(Pose::from_matrix(skew).unwrap_err().contains("last row"));
    }
}
