//! The generated crates' version, and what semver asks of it.

use std::fmt;

/// A version `MAJOR.MINOR.PATCH`, with an optional `-pre` part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// Incompatible changes (from 1.0 on).
    pub major: u64,
    /// Compatible additions; incompatible changes below 1.0.
    pub minor: u64,
    /// Fixes.
    pub patch: u64,
    /// A pre-release part after `-`, kept as written (empty when none).
    pub pre: String,
}

impl Version {
    /// Parses `1.2.3` or `1.2.3-rc.1`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Version> {
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) if !pre.is_empty() => (core, pre),
            Some(_) => return None,
            None => (text, ""),
        };
        let mut parts = core.split('.').map(|p| {
            let valid = !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            valid.then(|| p.parse::<u64>().ok()).flatten()
        });
        let version = Version {
            major: parts.next()??,
            minor: parts.next()??,
            patch: parts.next()??,
            pre: pre.to_owned(),
        };
        parts.next().is_none().then_some(version)
    }

    /// The first version that semver allows to break what `self` offered:
    /// the next major, or the next minor below 1.0.
    pub fn next_breaking(&self) -> Version {
        if self.major == 0 {
            Version {
                major: 0,
                minor: self.minor + 1,
                patch: 0,
                pre: String::new(),
            }
        } else {
            Version {
                major: self.major + 1,
                minor: 0,
                patch: 0,
                pre: String::new(),
            }
        }
    }

    /// Whether `self` may break what `base` offered: a higher major, or a
    /// higher minor when `base` is below 1.0 (a pre-release of such a
    /// version counts too).
    pub fn allows_breaking_from(&self, base: &Version) -> bool {
        if base.major == 0 {
            self.major > 0 || self.minor > base.minor
        } else {
            self.major > base.major
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).unwrap()
    }

    #[test]
    fn parses_semver_and_refuses_the_rest() {
        assert_eq!(v("1.20.3").to_string(), "1.20.3");
        assert_eq!(v("0.2.0-rc.1").pre, "rc.1");
        for bad in [
            "1.2", "1.2.3.4", "v1.2.3", "1.x.3", "1.2.3-", "", "1..3", "1.+2.3",
        ] {
            assert!(Version::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_breaking_change_needs_a_major_or_below_one_a_minor() {
        assert!(v("0.2.0").allows_breaking_from(&v("0.1.0")));
        assert!(v("1.0.0").allows_breaking_from(&v("0.1.0")));
        assert!(!v("0.1.1").allows_breaking_from(&v("0.1.0")));
        assert!(v("2.0.0").allows_breaking_from(&v("1.4.2")));
        assert!(!v("1.5.0").allows_breaking_from(&v("1.4.2")));
        assert!(!v("1.4.2").allows_breaking_from(&v("1.4.2")));
        assert_eq!(v("0.3.7").next_breaking().to_string(), "0.4.0");
        assert_eq!(v("1.3.7").next_breaking().to_string(), "2.0.0");
    }
}
