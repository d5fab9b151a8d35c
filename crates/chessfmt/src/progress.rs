//! Progress bars that draw only on a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar over `total` units (bytes when `bytes`), hidden unless stderr is a terminal.
#[allow(dead_code)] // used by long-running verbs as they land
pub fn bar(total: u64, bytes: bool, message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    }
    let template = if bytes {
        "{msg} [{bar:40}] {bytes}/{total_bytes} ({eta})"
    } else {
        "{msg} [{bar:40}] {pos}/{len} ({eta})"
    };
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    ProgressBar::new(total)
        .with_style(style)
        .with_message(message)
}

/// A spinner with a counter, hidden unless stderr is a terminal.
pub fn spinner(message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{spinner} {msg} {pos} ({per_sec})")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    ProgressBar::new_spinner()
        .with_style(style)
        .with_message(message)
}

/// A spinner with the time spent, ticking on its own, for work that reports no count (a
/// library call that runs for seconds): hidden unless stderr is a terminal. Clear it with
/// `finish_and_clear` when the work is done.
pub fn working(message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bar = ProgressBar::new_spinner()
        .with_style(style)
        .with_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// `items`, counted on `bar` as they pass (4,096 at a time: drawing is throttled anyway, and
/// a count per item would cost more than it shows).
pub fn counting<I: Iterator>(items: I, bar: &ProgressBar) -> impl Iterator<Item = I::Item> {
    const STEP: u64 = 4096;
    let bar = bar.clone();
    let mut n = 0u64;
    items.inspect(move |_| {
        n += 1;
        if n.is_multiple_of(STEP) {
            bar.inc(STEP);
        }
    })
}
