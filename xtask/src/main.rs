//! Project automation: `cargo xtask <task>`. A plain binary with a table of tasks; CI calls it.

use std::{
    env,
    path::{Path, PathBuf},
    process::{Command, ExitCode},
    time::Instant,
};

type Task = fn(&[String]) -> bool;

const TASKS: &[(&str, &str, Task)] = &[
    (
        "test",
        "fmt check, clippy -D warnings, tests (snapshots checked, never written), the Python package (wheel, pytest), docs, cargo-deny, light dependencies, wasm32 build, feature pairs, minimal doc tests, cargo package, corpus goldens",
        test,
    ),
    (
        "python",
        "the Python package: a fresh venv, its wheel built by maturin and installed, its pytest suite (part of test)",
        |_| python_package(),
    ),
    (
        "publish-check",
        "every crate packaged and built from its package, in dependency order, carrying only what it needs (part of test)",
        publish_check,
    ),
    (
        "api",
        "write each library's public API listing (crates/*/API.txt) from its rustdoc output; --check compares instead (as `test` does)",
        |args| api(args.first().is_none_or(|a| a != "--check")),
    ),
    (
        "features",
        "each library with each feature and each pair of features; doc tests without default features (part of test)",
        |_| feature_powerset() & minimal_doc_tests(),
    ),
    (
        "bench",
        "criterion benches of all crates [-- criterion args]",
        bench,
    ),
    (
        "fuzz",
        "run each fuzz target for SECONDS (default 60) when a nightly toolchain exists",
        fuzz,
    ),
    (
        "snapshots",
        "review pending insta snapshots (cargo insta review when installed)",
        snapshots,
    ),
];

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let Some(name) = args.first() else {
        usage();
        return ExitCode::from(2);
    };
    match TASKS.iter().find(|(n, _, _)| n == name) {
        Some((_, _, task)) => {
            if task(&args[1..]) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        None => {
            usage();
            ExitCode::from(2)
        }
    }
}

fn usage() {
    eprintln!("usage: cargo xtask <task>\n\ntasks:");
    for (name, help, _) in TASKS {
        eprintln!("  {name:<10} {help}");
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut c = Command::new(env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    // A one-shot run gains nothing from incremental state, and it costs gigabytes of disk.
    c.env("CARGO_INCREMENTAL", "0");
    c
}

/// Runs a step, printing its name and duration; returns whether it succeeded.
fn step(name: &str, mut cmd: Command) -> bool {
    timed(name, || {
        cmd.status().map(|s| s.success()).unwrap_or_else(|e| {
            eprintln!("    could not start: {e}");
            false
        })
    })
}

/// [`step`] for a `cargo test`: its output passed on line by line as it comes, and the lines
/// that tell what failed (the failing tests, their panics and the lines after them, errors)
/// kept in `failures` — printed again at the end of `cargo xtask test`, where a log cut to
/// its tail (as CI's is) still shows them.
fn step_noting(name: &str, mut cmd: Command, failures: &mut Vec<String>) -> bool {
    use std::process::Stdio;
    timed(name, || {
        let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                eprintln!("    could not start: {e}");
                return false;
            }
        };
        let (out, err) = (child.stdout.take(), child.stderr.take());
        let out = std::thread::spawn(move || out.map(|o| watch(o, std::io::stdout())));
        let err = std::thread::spawn(move || err.map(|e| watch(e, std::io::stderr())));
        let ok = child.wait().is_ok_and(|s| s.success());
        for kept in [out.join(), err.join()].into_iter().flatten().flatten() {
            failures.extend(kept);
        }
        failures.truncate(300);
        ok
    })
}

/// Prints a step's name, runs it, and prints whether it succeeded, its duration and the
/// disk it leaves.
fn timed(name: &str, run: impl FnOnce() -> bool) -> bool {
    eprintln!("==> {name}");
    let start = Instant::now();
    let ok = run();
    eprintln!(
        "<== {name}: {} in {:.1}s{}",
        if ok { "ok" } else { "FAILED" },
        start.elapsed().as_secs_f64(),
        disk_note()
    );
    ok
}

/// Passes a test run's stream on to `to`, line by line, and keeps its telling lines: the
/// failing tests' headers, each panic and the few lines after it, errors, FAILED lines, and
/// the list of failures that ends a test binary's report (300 lines at most, of 400
/// characters at most each).
fn watch(r: impl std::io::Read, mut to: impl std::io::Write) -> Vec<String> {
    use std::io::BufRead;
    let mut kept = Vec::new();
    let (mut after_panic, mut in_list) = (0u8, false);
    // Bytes, not text: a line that is not UTF-8 is passed on as it is.
    for line in std::io::BufReader::new(r).split(b'\n') {
        let Ok(line) = line else { break };
        let _ = to.write_all(&line).and_then(|()| to.write_all(b"\n"));
        let line = String::from_utf8_lossy(&line).into_owned();
        if line.contains("panicked at") {
            after_panic = 7;
        }
        let telling = after_panic > 0
            || in_list && line.starts_with("    ")
            || line.starts_with("---- ")
            || line.starts_with("error")
            || line.contains("FAILED");
        after_panic = after_panic.saturating_sub(1);
        in_list = line == "failures:" || in_list && !line.is_empty();
        if telling && kept.len() < 300 {
            kept.push(line.chars().take(400).collect());
        }
    }
    kept
}

/// "; target N MB, M MB free": the CI machine's disk is small, and a step that fills it fails
/// in ways that do not say so; this makes the trend visible in every run's log.
fn disk_note() -> String {
    let target = target_dir();
    let used = dir_size(&target) / 1_000_000;
    let free = Command::new("df")
        .args(["-Pk"])
        .arg(&target)
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            let line = text.lines().nth(1)?.to_owned();
            let kb: u64 = line.split_whitespace().nth(3)?.parse().ok()?;
            Some(kb / 1000)
        });
    match free {
        Some(free) => format!(" (target {used} MB, {free} MB free)"),
        None => format!(" (target {used} MB)"),
    }
}

fn target_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// The Python packages the tests use (pinned).
const PYTHON_PACKAGES: &[&str] = &["duckdb==2.0.1"];

/// Spark, for the scale-out test, when a Java runtime is there to run it (`.ci/run` installs
/// one).
const SPARK_PACKAGE: &str = "pyspark==4.3.0";

/// Whether `java` runs.
fn has_java() -> bool {
    Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A virtual environment under the target folder with [`PYTHON_PACKAGES`] (and
/// [`SPARK_PACKAGE`] where Java runs; made once, pip from PyPI): its interpreter, or `None`
/// (said) when it cannot be made.
fn python_env() -> Option<PathBuf> {
    let mut packages = PYTHON_PACKAGES.to_vec();
    if has_java() {
        packages.push(SPARK_PACKAGE);
    } else {
        eprintln!("    no Java runtime: the Spark test will not run (install a JRE 17 to run it)");
    }
    eprintln!(
        "==> Python environment for the tests ({})",
        packages.join(", ")
    );
    let dir = target_dir().join("py-tests");
    let python = dir.join("bin").join("python");
    let stamp = dir.join("packages.txt");
    let wanted = packages.join("\n");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) && python.exists() {
        eprintln!("<== Python environment: ok (made before)");
        return Some(python);
    }
    let made = Command::new("python3")
        .args(["-m", "venv", "--clear"])
        .arg(&dir)
        .status()
        .is_ok_and(|s| s.success())
        && pip_install(&python)
            .args(&packages)
            .status()
            .is_ok_and(|s| s.success());
    if made && std::fs::write(&stamp, wanted).is_ok() {
        eprintln!("<== Python environment: ok");
        Some(python)
    } else {
        eprintln!("<== Python environment: FAILED (python3 -m venv, then pip install from PyPI)");
        None
    }
}

/// What the Python package's test environment installs (pinned): the wheel's build tool, the
/// test runner, and the package's own dependencies at known versions.
const PACKAGE_TEST_TOOLS: &[&str] = &[
    "maturin==1.16.0",
    "pytest==9.2.0",
    "chess==1.11.2",
    "numpy==2.4.6",
];

/// The Python package (`crates/chessfmt-py`, issue 33): a fresh virtual environment, the
/// README's `pip install ./crates/chessfmt-py` (the wheel built by maturin, release, and
/// installed), and its pytest suite run against python-chess and the corpus.
fn python_package() -> bool {
    timed(
        "Python package: wheel, install, pytest",
        python_package_steps,
    )
}

/// The steps of [`python_package`]: whether all succeeded (each failed one said).
fn python_package_steps() -> bool {
    let venv = target_dir().join("py-package");
    let python = venv.join("bin").join("python");
    let run = |what: &str, cmd: &mut Command| {
        let ok = cmd.status().is_ok_and(|s| s.success());
        if !ok {
            eprintln!("    {what}: FAILED");
        }
        ok
    };
    run(
        "python3 -m venv",
        Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv),
    ) && run(
        "pip install (test tools)",
        pip_install(&python).args(PACKAGE_TEST_TOOLS),
    ) && run(
        // The README's set-up command: pip builds the wheel (maturin, release) and installs
        // it; the environment's pinned maturin builds it (no isolated build environment).
        "pip install ./crates/chessfmt-py",
        pip_install(&python)
            .arg("--no-build-isolation")
            .arg(root().join("crates/chessfmt-py"))
            .env("CARGO_INCREMENTAL", "0")
            // The build backend runs the environment's `maturin`.
            .env("PATH", path_with(&venv.join("bin"))),
    ) && run(
        "pytest",
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root().join("crates/chessfmt-py/tests"))
            .current_dir(root())
            .env("CI", "true"),
    )
}

/// `python -m pip install`, quiet, without a cache (the CI machine's disk is small: no second
/// copy of the wheels); the packages are the caller's arguments.
fn pip_install(python: &Path) -> Command {
    let mut c = Command::new(python);
    c.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-cache-dir",
    ]);
    c
}

/// `PATH` with `dir` first.
fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![dir.to_path_buf()];
    if let Some(path) = env::var_os("PATH") {
        dirs.extend(env::split_paths(&path));
    }
    env::join_paths(dirs).unwrap_or_default()
}

fn has_cargo_subcommand(sub: &str) -> bool {
    cargo()
        .args([sub, "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn test(_args: &[String]) -> bool {
    let mut results: Vec<(&str, Option<bool>)> = Vec::new();

    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--", "--check"]);
    results.push(("fmt", Some(step("cargo fmt --check", fmt))));

    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]);
    results.push(("clippy", Some(step("cargo clippy -D warnings", clippy))));

    // The Python side of the tests (DuckDB reducing tables): a virtual environment of its own,
    // handed to the tests, which fail without it when CI is set.
    let python = python_env();
    results.push(("python", Some(python.is_some())));
    let mut t = cargo();
    // Every test binary run even after one fails: the log names every failure.
    t.args(["test", "--workspace", "--locked", "--no-fail-fast"])
        .env("INSTA_UPDATE", "no")
        .env("CI", "true");
    if let Some(py) = &python {
        t.env("CHESSFMT_PYTHON", py);
        if has_java() {
            t.env("CHESSFMT_SPARK", "1");
        }
    }
    let mut failures = Vec::new();
    results.push((
        "test",
        Some(step_noting("cargo test --workspace", t, &mut failures)),
    ));
    results.push(("python package", Some(python_package())));

    let mut doc = cargo();
    doc.args(["doc", "--workspace", "--no-deps", "--locked"])
        .env("RUSTDOCFLAGS", "-D warnings");
    results.push(("doc", Some(step("cargo doc -D warnings", doc))));
    results.push(("api", Some(api(false))));

    if has_cargo_subcommand("deny") {
        let mut deny = cargo();
        deny.args(["deny", "--locked", "check", "licenses", "bans", "sources"]);
        results.push((
            "deny",
            Some(step("cargo deny check licenses bans sources", deny)),
        ));
        eprintln!("    (advisories not checked: the advisory database is not reachable here)");
    } else {
        // A licence check that did not run is not a pass.
        eprintln!(
            "==> cargo deny: not installed: FAILED (install it with `cargo install cargo-deny --locked`, as .ci/run does)"
        );
        results.push(("deny", Some(false)));
    }

    results.push(("light", Some(light_dependencies())));
    results.push(("wasm", Some(wasm_build())));
    results.push(("features", Some(feature_powerset())));
    results.push(("minimal docs", Some(minimal_doc_tests())));

    // On a machine with little disk (CI sets XTASK_LOW_DISK=1), the debug build is not needed
    // by any later step: free it before verification builds the family again.
    if env::var_os("XTASK_LOW_DISK").is_some() {
        for dir in ["debug", "wasm32-unknown-unknown"] {
            let _ = std::fs::remove_dir_all(target_dir().join(dir));
        }
        eprintln!("    (XTASK_LOW_DISK: debug build removed{})", disk_note());
    }

    results.push(("package", Some(publish_check(&[]))));

    let corpus = root().join("../shared/corpus");
    if corpus.is_dir() {
        let mut golden = cargo();
        golden
            .args([
                "test",
                "--release",
                "--locked",
                "-p",
                "polyglot-book",
                "--test",
                "golden_full",
                "--",
                "--ignored",
            ])
            .env("INSTA_UPDATE", "no");
        results.push((
            "golden",
            Some(step_noting(
                "polyglot full-PGN golden (release)",
                golden,
                &mut failures,
            )),
        ));
        // The resource bounds on the crafted inputs at their full sizes (issue 20): ignored
        // by a plain `cargo test`, run here in release, one at a time (each measures its own
        // child's peak memory, and the generated inputs are large).
        let mut bounds = cargo();
        bounds
            .args([
                "test",
                "--release",
                "--locked",
                "-p",
                "chessfmt",
                "--test",
                "resource_bounds",
                "--test",
                "tally_bounds",
                "--test",
                "fuzz_findings",
                "--test",
                "fuzz_findings_cbh",
                "--",
                "--include-ignored",
                "--test-threads",
                "1",
            ])
            .env("INSTA_UPDATE", "no");
        results.push((
            "bounds",
            Some(step_noting(
                "crafted inputs at full size (release)",
                bounds,
                &mut failures,
            )),
        ));
    } else {
        eprintln!("==> corpus goldens: ../shared/corpus absent, skipped");
        results.push(("golden", None));
    }

    let summary: Vec<String> = results
        .iter()
        .map(|(n, r)| {
            format!(
                "{n} {}",
                match r {
                    Some(true) => "ok",
                    Some(false) => "FAILED",
                    None => "skipped",
                }
            )
        })
        .collect();
    let ok = results.iter().all(|(_, r)| *r != Some(false));
    if !failures.is_empty() {
        eprintln!("==> what the tests said of their failures (repeated from above):");
        for line in &failures {
            eprintln!("    {line}");
        }
    }
    println!(
        "xtask test: {} — {}",
        if ok { "PASS" } else { "FAIL" },
        summary.join(", ")
    );
    ok
}

/// What `cargo publish --dry-run` checks, for every crate at once in dependency order: each
/// is packaged and the packages are built from their own sources (`cargo package
/// --workspace`, verified), and no package carries files it does not need (tests, benches,
/// fixtures: they read data that is not packaged).
fn publish_check(_args: &[String]) -> bool {
    // Packages of the same version from an earlier run are cached by their version: clear
    // them, or verification would build against stale sources.
    let target = target_dir();
    // A target directory of its own, emptied first: registry crates (which our packaged
    // crates are, during verification) are never rebuilt once built, whatever their source.
    let verify_dir = target.join("package-verify");
    let _ = std::fs::remove_dir_all(&verify_dir);
    clear_packaged_sources();
    let mut package = cargo();
    package
        .args(["package", "--workspace", "--locked", "--allow-dirty"])
        // The Python package is published as a wheel (checked by `python_package`), not to
        // the crate registry.
        .args(["--exclude", "chessfmt-py"])
        .env("CARGO_TARGET_DIR", &verify_dir);
    let mut ok = step("cargo package --workspace (verified)", package);
    // Verification built the whole family once more; the disk is needed for the release steps.
    let _ = std::fs::remove_dir_all(&verify_dir);
    for name in ALL_LIBRARIES.iter().chain(&["chessfmt"]) {
        let out = cargo()
            .args(["package", "--list", "--locked", "--allow-dirty", "-p", name])
            .output();
        let Ok(out) = out else {
            eprintln!("    could not run cargo package --list -p {name}");
            ok = false;
            continue;
        };
        let listed = String::from_utf8_lossy(&out.stdout);
        let extra: Vec<&str> = listed
            .lines()
            .filter(|f| {
                !(f.starts_with("src/")
                    || matches!(
                        *f,
                        "Cargo.toml"
                            | "Cargo.toml.orig"
                            | "Cargo.lock"
                            | ".cargo_vcs_info.json"
                            | "README.md"
                            | "CHANGELOG.md"
                            | "LICENSE"
                    ))
            })
            .collect();
        if !out.status.success() || !extra.is_empty() {
            eprintln!("    {name}: the package carries {extra:?}");
            ok = false;
        }
    }
    eprintln!("<== publish check: {}", if ok { "ok" } else { "FAILED" });
    ok
}

/// `cargo package --workspace` unpacks our own `.crate` files into a local-registry folder
/// of `$CARGO_HOME/registry/src` (one not named after an index) and reuses an unpacked
/// folder of the same name and version: remove ours so verification sees today's sources.
fn clear_packaged_sources() {
    let home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else {
        return;
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return;
    };
    let version = env!("CARGO_PKG_VERSION");
    for reg in registries.flatten() {
        if reg.file_name().to_string_lossy().starts_with("index.") {
            continue;
        }
        for name in ALL_LIBRARIES.iter().chain(&["chessfmt"]) {
            let _ = std::fs::remove_dir_all(reg.path().join(format!("{name}-{version}")));
        }
    }
}

/// The library crates whose readers are light without default features: no C code, no
/// threads, no `rand`, and a wasm32 build.
const LIBRARIES: &[&str] = &[
    "chess-core",
    "chessfmt-files",
    "chessfmt-pgn",
    "polyglot-book",
    "ctg",
    "kvetka-book",
    "chessbase-db",
    "selfplay-format",
];

/// Every library crate, in the order they publish (a crate after those it depends on):
/// [`LIBRARIES`] and the table crate, which is bulk work on files by design (parallel,
/// temporary runs) and so not light.
const ALL_LIBRARIES: &[&str] = &[
    "chess-core",
    "chessfmt-files",
    "chessfmt-pgn",
    "chessfmt-tally",
    "polyglot-book",
    "ctg",
    "kvetka-book",
    "chessbase-db",
    "selfplay-format",
];

/// `cargo tree -e normal --no-default-features` of every library holds no C `-sys` crate,
/// no rayon and no rand.
fn light_dependencies() -> bool {
    eprintln!("==> dependencies without default features (no -sys, rayon, rand)");
    let mut ok = true;
    for lib in LIBRARIES {
        let out = cargo()
            .args([
                "tree",
                "-e",
                "normal",
                "--no-default-features",
                "--locked",
                "--prefix",
                "none",
                "-p",
                lib,
            ])
            .output();
        let Ok(out) = out.map_err(|e| eprintln!("    could not run cargo tree: {e}")) else {
            return false;
        };
        if !out.status.success() {
            eprintln!(
                "    cargo tree -p {lib} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            ok = false;
            continue;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        names.sort_unstable();
        names.dedup();
        let heavy: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| {
                n.ends_with("-sys") || *n == "rayon" || *n == "rand" || n.starts_with("rand_")
            })
            .collect();
        if heavy.is_empty() {
            eprintln!("    {lib}: {} crates, none heavy", names.len());
        } else {
            eprintln!("    {lib}: FORBIDDEN without default features: {heavy:?}");
            ok = false;
        }
    }
    eprintln!("<== dependencies: {}", if ok { "ok" } else { "FAILED" });
    ok
}

/// The text between `<tag …>` markup, unescaped.
fn plain_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// Every piece of `text` between `open` and `close`.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(open) {
        let after = &rest[i + open.len()..];
        let Some(j) = after.find(close) else { break };
        out.push(&after[..j]);
        rest = &after[j + close.len()..];
    }
    out
}

/// A library's public API as rustdoc documents it (default features): every item's
/// declaration and the signatures of its inherent methods, in rustdoc's order. Names and
/// signatures only: enough for a change to see what it adds, removes or alters.
fn api_listing(lib: &str) -> Option<String> {
    let dir = target_dir().join("doc").join(lib.replace('-', "_"));
    let all = std::fs::read_to_string(dir.join("all.html")).ok()?;
    let mut out = format!(
        "# The public API of `{lib}` (written by `cargo xtask api` with {})\n",
        rustdoc_version()
    );
    for entry in between(&all, "<li><a href=\"", "</a></li>") {
        let Some((page, name)) = entry.split_once("\">") else {
            continue;
        };
        let Ok(html) = std::fs::read_to_string(dir.join(page)) else {
            continue;
        };
        out.push('\n');
        out.push_str(&format!("## {}\n", plain_text(name)));
        for decl in between(
            &html,
            "<pre class=\"rust item-decl\"><code>",
            "</code></pre>",
        ) {
            out.push_str(plain_text(decl).trim());
            out.push('\n');
        }
        // Inherent methods: what precedes the trait implementations.
        let own = html
            .split("id=\"trait-implementations\"")
            .next()
            .unwrap_or("");
        for header in between(own, "<h4 class=\"code-header\">", "</h4>") {
            out.push_str("    ");
            out.push_str(plain_text(header).trim());
            out.push('\n');
        }
    }
    Some(out)
}

/// The rustdoc that makes the listings (its HTML may differ from one version to the next).
fn rustdoc_version() -> String {
    Command::new(env::var("RUSTDOC").unwrap_or_else(|_| "rustdoc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "an unknown rustdoc".into())
}

/// Writes (`update`) or checks each library's `API.txt` against its rustdoc output (run after
/// `cargo doc`): a change to the public API shows in the diff of that file.
fn api(update: bool) -> bool {
    if update {
        let mut doc = cargo();
        doc.args(["doc", "--workspace", "--no-deps", "--locked"]);
        if !step("cargo doc", doc) {
            return false;
        }
    }
    eprintln!("==> public API listings");
    let mut ok = true;
    for lib in ALL_LIBRARIES {
        let Some(now) = api_listing(lib) else {
            eprintln!("    {lib}: no rustdoc output (run `cargo doc` first)");
            ok = false;
            continue;
        };
        let path = library_dir(lib).join("API.txt");
        if update {
            if let Err(e) = std::fs::write(&path, &now) {
                eprintln!("    {}: {e}", path.display());
                ok = false;
            }
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed.lines().next() != now.lines().next() {
            // Another rustdoc writes other HTML: the listing cannot be compared, only remade.
            eprintln!(
                "    {lib}: listed with another rustdoc ({:?}); not compared (run `cargo xtask api`)",
                committed.lines().next().unwrap_or("")
            );
            continue;
        }
        if committed != now {
            let first = committed
                .lines()
                .zip(now.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(committed.lines().count().min(now.lines().count()));
            eprintln!(
                "    {lib}: the public API changed (first at line {}: {:?}); run `cargo xtask api` and commit {}",
                first + 1,
                now.lines().nth(first).unwrap_or(""),
                path.display()
            );
            ok = false;
        }
    }
    eprintln!(
        "<== public API listings: {}",
        if ok { "ok" } else { "FAILED" }
    );
    ok
}

/// Where each library's manifest is.
fn library_dir(lib: &str) -> PathBuf {
    let dir = match lib {
        "polyglot-book" => "polyglot",
        other => other,
    };
    root().join("crates").join(dir)
}

/// The features a library declares (its `[features]` table, `default` left out), in order.
fn library_features(lib: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(library_dir(lib).join("Cargo.toml")).unwrap_or_default();
    let mut in_features = false;
    let mut features = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_features = line == "[features]";
            continue;
        }
        if !in_features || line.starts_with('#') {
            continue;
        }
        if let Some((name, _)) = line.split_once('=') {
            let name = name.trim();
            if !name.is_empty() && name != "default" {
                features.push(name.to_string());
            }
        }
    }
    features
}

/// Every library builds with each of its features alone and with every pair of them, without
/// the defaults: what `cargo hack --feature-powerset --depth 2` checks (shakmaty's CI checks a
/// powerset), done here without installing it. In a target folder of its own, so that the
/// other steps' builds are not invalidated.
fn feature_powerset() -> bool {
    eprintln!("==> every library with each feature and each pair of features");
    let start = Instant::now();
    let dir = target_dir().join("powerset");
    let mut ok = true;
    let mut checked = 0;
    for lib in ALL_LIBRARIES {
        let features = library_features(lib);
        let mut sets: Vec<String> = features.clone();
        for (i, a) in features.iter().enumerate() {
            for b in &features[i + 1..] {
                sets.push(format!("{a},{b}"));
            }
        }
        for set in sets {
            let status = cargo()
                .args([
                    "check",
                    "--locked",
                    "--lib",
                    "--quiet",
                    "--no-default-features",
                ])
                .args(["-p", lib, "--features", &set])
                .env("CARGO_TARGET_DIR", &dir)
                .status();
            checked += 1;
            if !status.is_ok_and(|s| s.success()) {
                eprintln!("    {lib} --no-default-features --features {set}: FAILED");
                ok = false;
            }
        }
    }
    if env::var_os("XTASK_LOW_DISK").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!(
        "<== features: {checked} combinations {} in {:.1}s{}",
        if ok { "ok" } else { "FAILED" },
        start.elapsed().as_secs_f64(),
        disk_note()
    );
    ok
}

/// Every library's doc examples (the crate docs and the README) compile and pass without
/// default features: an example that needs a feature says so (`#[cfg(feature = ...)]`).
fn minimal_doc_tests() -> bool {
    let mut c = cargo();
    c.args(["test", "--locked", "--doc", "--no-default-features"]);
    for lib in ALL_LIBRARIES {
        c.args(["-p", lib]);
    }
    step("cargo test --doc --no-default-features (libraries)", c)
}

/// Every library builds with `--no-default-features` for wasm32-unknown-unknown (reading
/// from byte slices works there).
fn wasm_build() -> bool {
    let mut c = cargo();
    c.args([
        "build",
        "--locked",
        "--lib",
        "--no-default-features",
        "--target",
        "wasm32-unknown-unknown",
    ]);
    for lib in LIBRARIES {
        c.args(["-p", lib]);
    }
    let ok = step(
        "cargo build --no-default-features --target wasm32-unknown-unknown (libraries)",
        c,
    );
    if !ok {
        eprintln!(
            "    (needs the target: `rustup target add wasm32-unknown-unknown`, as .ci/run does)"
        );
    }
    ok
}

fn bench(args: &[String]) -> bool {
    let compare_only = args.first().is_some_and(|a| a == "--compare-only");
    let mut ok = true;
    if !compare_only {
        let mut b = cargo();
        b.args(["bench", "--workspace", "--locked"]);
        if !args.is_empty() {
            b.arg("--").args(args);
        }
        ok &= step("cargo bench --workspace", b);
    }
    // Whole-command comparisons against the reference tools, one script per format.
    let dir = root().join("xtask/compare");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    scripts.sort();
    for s in scripts
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "sh"))
    {
        let mut c = Command::new("bash");
        c.arg(&s).current_dir(root());
        ok &= step(&format!("compare {}", s.display()), c);
    }
    ok
}

fn fuzz(args: &[String]) -> bool {
    let seconds = args.first().map_or("60", String::as_str);
    let nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !nightly {
        println!(
            "xtask fuzz: no nightly toolchain on this machine; fuzzing skipped (the corpora are replayed by `cargo test`)"
        );
        return true;
    }
    if !has_cargo_subcommand("fuzz") {
        println!(
            "xtask fuzz: cargo-fuzz is not installed (`cargo install cargo-fuzz`); fuzzing skipped"
        );
        return true;
    }
    let targets = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.path()
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut ok = true;
    for t in targets {
        let mut c = Command::new("cargo");
        c.current_dir(root().join("fuzz")).args([
            "+nightly",
            "fuzz",
            "run",
            &t,
            "--",
            &format!("-max_total_time={seconds}"),
            // The targets that build on a pool leave one false leak: glibc's record of a
            // pool thread's thread-local destructors (32 bytes from
            // `__cxa_thread_atexit_impl`, made the first time a worker runs a kind of job),
            // reported as the input's leak and not reproduced by replaying it (session 36:
            // `ctg_book`, `pgn_builders`). Memory is bounded by libFuzzer's `-rss_limit_mb`.
            "-detect_leaks=0",
        ]);
        ok &= step(&format!("fuzz {t}"), c);
    }
    ok
}

fn snapshots(_args: &[String]) -> bool {
    if has_cargo_subcommand("insta") {
        let mut c = cargo();
        c.args(["insta", "review"]);
        step("cargo insta review", c)
    } else {
        println!(
            "cargo-insta is not installed: run `INSTA_UPDATE=always cargo test --workspace` to write new snapshots, then review the .snap files with git diff"
        );
        true
    }
}

#[cfg(test)]
mod tests {
    /// What `cargo test` prints of a failing test is kept, and nothing of the passing ones.
    #[test]
    fn watch_keeps_the_failures() {
        let run = "\
running 2 tests
test a ... ok
test b ... FAILED

failures:

---- b stdout ----
some output
thread 'b' panicked at src/lib.rs:3:5:
assertion `left == right` failed
  left: 1
 right: 2
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
more output
later output


failures:
    b

test result: FAILED. 1 passed; 1 failed; 0 ignored
error: test failed, to rerun pass `--lib`
";
        let mut passed_on = Vec::new();
        let kept = super::watch(run.as_bytes(), &mut passed_on);
        assert_eq!(passed_on, run.as_bytes());
        assert_eq!(
            kept,
            [
                "test b ... FAILED",
                "---- b stdout ----",
                "thread 'b' panicked at src/lib.rs:3:5:",
                "assertion `left == right` failed",
                "  left: 1",
                " right: 2",
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                "more output",
                "later output",
                "    b",
                "test result: FAILED. 1 passed; 1 failed; 0 ignored",
                "error: test failed, to rerun pass `--lib`",
            ]
        );
    }
}
