//! Ctrl-C, `SIGTERM` and `SIGHUP` during a write: the temporary files are removed before the
//! process dies of the signal (so the shell sees the usual status, 130 for Ctrl-C).
//!
//! The three signals are blocked in every thread (the mask is set before any thread starts
//! and inherited); one thread waits for them with `sigwait`, so the clean-up runs as ordinary
//! code, not inside a signal handler. It empties chess-core's registry of temporary files
//! (which also stops any commit from starting), then unblocks the signal with its default
//! action and raises it again.

/// Blocks the signals and starts the waiting thread. Call first thing in `main`.
pub fn install() {
    #[cfg(unix)]
    imp::install();
}

#[cfg(unix)]
mod imp {
    use std::mem::MaybeUninit;

    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    fn set() -> libc::sigset_t {
        let mut set = MaybeUninit::<libc::sigset_t>::uninit();
        // SAFETY: sigemptyset initialises the set; sigaddset only adds valid signal numbers.
        unsafe {
            libc::sigemptyset(set.as_mut_ptr());
            for s in SIGNALS {
                libc::sigaddset(set.as_mut_ptr(), s);
            }
            set.assume_init()
        }
    }

    pub fn install() {
        let set = set();
        // SAFETY: called from main before any other thread exists; the set is initialised.
        let blocked =
            unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } == 0;
        if !blocked {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut sig: libc::c_int = 0;
                // SAFETY: the set is initialised; `sig` is a valid out pointer.
                if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                    return;
                }
                chessfmt_files::atomic::remove_temporaries();
                // SAFETY: resetting to the default action and unblocking in this thread, then
                // raising: the process dies of the signal as it would have without us.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                    let mut one = MaybeUninit::<libc::sigset_t>::uninit();
                    libc::sigemptyset(one.as_mut_ptr());
                    libc::sigaddset(one.as_mut_ptr(), sig);
                    libc::pthread_sigmask(libc::SIG_UNBLOCK, one.as_ptr(), std::ptr::null_mut());
                    libc::raise(sig);
                }
                std::process::exit(128 + sig);
            });
        if spawned.is_err() {
            // No waiting thread: let the signals act as before.
            // SAFETY: as above.
            unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
        }
    }
}
