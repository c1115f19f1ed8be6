//! Triangle–triangle intersection (temporary SAT stand-in; replaced by the exact test).

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn tri_tri_intersect(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> bool {
    let ea = [sub(a[1], a[0]), sub(a[2], a[1]), sub(a[0], a[2])];
    let eb = [sub(b[1], b[0]), sub(b[2], b[1]), sub(b[0], b[2])];
    let na = cross(ea[0], ea[1]);
    let nb = cross(eb[0], eb[1]);
    let mut axes = vec![na, nb];
    for x in ea {
        for y in eb {
            axes.push(cross(x, y));
        }
        axes.push(cross(na, x));
    }
    for y in eb {
        axes.push(cross(nb, y));
    }
    for ax in axes {
        let pa = a.map(|p| dot(ax, p));
        let pb = b.map(|p| dot(ax, p));
        let (amin, amax) = (
            pa.iter().cloned().fold(f64::INFINITY, f64::min),
            pa.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        );
        let (bmin, bmax) = (
            pb.iter().cloned().fold(f64::INFINITY, f64::min),
            pb.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        );
        if amax < bmin || bmax < amin {
            return false;
        }
    }
    true
}

pub fn tri_tri_intersect_f32(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3]) -> bool {
    tri_tri_intersect(&a.map(|p| p.map(f64::from)), &b.map(|p| p.map(f64::from)))
}
