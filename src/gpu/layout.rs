//! Rust ↔ WGSL layout checks: every Rust struct shared with WGSL names its twin, and a test
//! parses the WGSL with naga and compares size, alignment-free offsets and member names.

/// Size and member offsets of WGSL struct `name` in `source` (naga's layouter, std430-like
/// storage rules), or an error naming what is missing.
pub fn wgsl_struct_layout(source: &str, name: &str) -> Result<(u32, Vec<(String, u32)>), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| format!("layout: {e:?}"))?;
    for (handle, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            let _ = layouter[handle];
            return Ok((
                *span,
                members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                    .collect(),
            ));
        }
    }
    Err(format!("no struct {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bv::{Kdop, KdopNode};
    use std::mem::{offset_of, size_of};

    fn check_kdop<const H: usize>() {
        let src = crate::gpu::shader::source("kdop_refit.wgsl", H);
        let (size, m) = wgsl_struct_layout(&src, "Kdop").unwrap();
        assert_eq!(size as usize, size_of::<Kdop<H>>());
        assert_eq!(
            m,
            vec![
                ("min".into(), offset_of!(Kdop<H>, min) as u32),
                ("max".into(), offset_of!(Kdop<H>, max) as u32)
            ]
        );
        let (size, m) = wgsl_struct_layout(&src, "KdopNode").unwrap();
        assert_eq!(size as usize, size_of::<KdopNode<H>>());
        assert_eq!(
            m,
            vec![
                ("bv".into(), offset_of!(KdopNode<H>, bv) as u32),
                ("first".into(), offset_of!(KdopNode<H>, first) as u32),
                ("count".into(), offset_of!(KdopNode<H>, count) as u32),
            ]
        );
    }

    #[test]
    fn refit_range_matches_wgsl() {
        use crate::gpu::refit::RefitRange;
        let src = crate::gpu::shader::source("kdop_refit.wgsl", 9);
        let (size, m) = wgsl_struct_layout(&src, "RefitRange").unwrap();
        assert_eq!(size as usize, size_of::<RefitRange>());
        assert_eq!(
            m,
            vec![
                ("start".into(), offset_of!(RefitRange, start) as u32),
                ("count".into(), offset_of!(RefitRange, count) as u32),
                ("pad0".into(), offset_of!(RefitRange, pad0) as u32),
                ("pad1".into(), offset_of!(RefitRange, pad1) as u32),
            ]
        );
    }

    #[test]
    fn kdop_layouts_match_wgsl() {
        check_kdop::<3>();
        check_kdop::<7>();
        check_kdop::<9>();
        check_kdop::<13>();
    }
}
