//! Test hooks that make the rare cases of the commit protocol and of mapped files happen on
//! demand, for the tests of programs built on this crate (chessfmt's kill matrix and
//! `SIGBUS` tests).
//!
//! Each hook reads an environment variable only with the feature `failpoints`, which is off
//! by default: a program built without it (every release build of a crate that does not ask
//! for it) contains no hook, and these functions do nothing. Tests turn it on through a
//! dev-dependency (`chessfmt-files = { features = ["failpoints"] }`).

use std::path::Path;

/// `CHESSFMT_FAILPOINT_COMMIT=<n>` aborts the process (as `kill -9` would stop it: no
/// destructor runs) at the n-th commit point it reaches: after staging, after the journal,
/// after each rename, after the last step.
#[inline]
pub fn commit_point() {
    #[cfg(feature = "failpoints")]
    {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static HITS: AtomicUsize = AtomicUsize::new(0);
        let Some(at) = std::env::var_os("CHESSFMT_FAILPOINT_COMMIT") else {
            return;
        };
        let at: usize = at.to_str().and_then(|s| s.parse().ok()).unwrap_or(0);
        if HITS.fetch_add(1, Ordering::SeqCst) + 1 == at {
            std::process::abort();
        }
    }
}

/// `CHESSFMT_FAILPOINT_STAGE_SLEEP_MS=<ms>` makes every staged write wait that long after its
/// temporary file exists (to deliver a signal while it does).
#[inline]
pub fn stage_sleep() {
    #[cfg(feature = "failpoints")]
    if let Some(ms) = std::env::var_os("CHESSFMT_FAILPOINT_STAGE_SLEEP_MS")
        .and_then(|v| v.to_str().and_then(|v| v.parse().ok()))
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// `CHESSFMT_FAILPOINT_SHRINK=<path>`: called by a program right after it maps `path`,
/// truncates that file when it is the one named (the next read of a lost page raises
/// `SIGBUS`).
#[inline]
pub fn shrink_after_map(path: &Path) {
    #[cfg(feature = "failpoints")]
    if let Some(target) = std::env::var_os("CHESSFMT_FAILPOINT_SHRINK")
        && Path::new(&target) == path
        && let Ok(f) = std::fs::OpenOptions::new().write(true).open(path)
    {
        let _ = f.set_len(0);
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    /// The hooks act only with the feature: without it, a file named for shrinking stays
    /// whole. (`cargo test --workspace` builds this crate with the feature, which the CLI's
    /// tests ask for; `cargo test -p chessfmt-files` without it.)
    #[test]
    #[allow(unsafe_code)]
    fn hooks_act_only_with_the_feature() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("mapped.bin");
        std::fs::write(&p, b"12345").unwrap();
        // SAFETY: no other test of this crate reads or writes this variable.
        unsafe { std::env::set_var("CHESSFMT_FAILPOINT_SHRINK", &p) };
        super::shrink_after_map(&p);
        // SAFETY: as above.
        unsafe { std::env::remove_var("CHESSFMT_FAILPOINT_SHRINK") };
        let len = std::fs::metadata(&p).unwrap().len();
        assert_eq!(len, if cfg!(feature = "failpoints") { 0 } else { 5 });
    }
}
