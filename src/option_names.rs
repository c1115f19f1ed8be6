//! Names of the option enums (`--bv kdop18`, `"mode": "all"` in stats.json, table cells).
//!
//! One list per enum, written once in `option_names!`, gives the name of every variant,
//! its parsing ([`std::str::FromStr`], error [`UnknownName`]), its display and an optional
//! one-line help that the command line shows. The names are part of the file formats, so a
//! variant's name never changes. No clap here: the library builds without the `cli` feature.

/// A name that is no variant of an option enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What was being parsed (`bv`, `mode`, …).
    pub kind: &'static str,
    /// The name given.
    pub found: String,
    /// Every valid name, in list order.
    pub valid: &'static [&'static str],
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown {} `{}` (expected one of: {})",
            self.kind,
            self.found,
            self.valid.join(", ")
        )
    }
}

impl std::error::Error for UnknownName {}

/// Generates the names of a fieldless enum's variants:
///
/// ```text
/// option_names! {
///     SplitPoint, kind "split point", all ALL {
///         Mean => "mean": "optional one-line help",
///         Median => "median",
///     }
/// }
/// ```
///
/// gives `pub const ALL: [SplitPoint; 2]` (list order; the name after `all` is free so an
/// enum whose `ALL` means a subset keeps it), `name()`, `help()`, `Display` and `FromStr`
/// (`Err = UnknownName`). The list must name every variant: `name()` is an exhaustive match.
macro_rules! option_names {
    (
        $ty:ident, kind $kind:literal, all $all:ident {
            $( $var:ident => $name:literal $( : $help:literal )? ),+ $(,)?
        }
    ) => {
        impl $ty {
            /// Every variant, in the order of its name list.
            pub const $all: [$ty; [$($name),+].len()] = [$($ty::$var),+];

            /// The name on the command line and in output files.
            pub fn name(self) -> &'static str {
                match self {
                    $( $ty::$var => $name, )+
                }
            }

            /// A one-line description for `--help`, if the variant has one.
            pub fn help(self) -> Option<&'static str> {
                match self {
                    $( $ty::$var => option_names!(@help $($help)?), )+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::option_names::UnknownName;
            fn from_str(s: &str) -> Result<$ty, Self::Err> {
                $ty::$all.into_iter().find(|v| v.name() == s).ok_or_else(|| {
                    $crate::option_names::UnknownName {
                        kind: $kind,
                        found: s.to_string(),
                        valid: &[$($name),+],
                    }
                })
            }
        }
    };
    (@help $help:literal) => { Some($help) };
    (@help) => { None };
}

#[cfg(test)]
mod tests {
    use crate::bvh::{SplitPoint, SplitRule};
    use crate::kind::BvKind;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_valid_ones() {
        for k in BvKind::EVERY {
            assert_eq!(k.name().parse::<BvKind>(), Ok(k));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!("longest".parse::<SplitRule>(), Ok(SplitRule::LongestSide));
        let e = "middle".parse::<SplitPoint>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown split point `middle` (expected one of: mean, median)"
        );
    }
}
