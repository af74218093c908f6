//! What the CLI test files share: running the built `fastcrypt`, its
//! output as text, and scratch directories that go away with the test.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The built binary, ready for arguments.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fastcrypt"))
}

/// Runs `fastcrypt` with `args` and no standard input.
pub fn fastcrypt(args: &[&str]) -> Output {
    bin().args(args).output().expect("run fastcrypt")
}

/// Waits for `child` at most `secs` seconds; past that it is killed and
/// the test fails with `what`. Outputs must fit in a pipe's buffer.
pub fn finish_within(mut child: Child, secs: u64, what: &str) -> Output {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("collect output")
}

/// Starts `fastcrypt` with `args` and a pipe on each standard stream.
pub fn spawn_piped(args: &[&str]) -> Child {
    bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fastcrypt")
}

/// Runs `fastcrypt` with `args`, `stdin` on its standard input (written
/// from a thread, so a large input cannot deadlock against the output).
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn_piped(args);
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The command may refuse before reading: a broken pipe is fine.
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait for fastcrypt");
    writer.join().unwrap();
    out
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `(succeeded, stdout, stderr)`.
pub fn text(o: &Output) -> (bool, String, String) {
    (o.status.success(), stdout(o), stderr(o))
}

/// A scratch directory of one test's own, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new, empty directory; `name` must be unique within the test
    /// binary (the process id keeps parallel runs apart).
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "fastcrypt-cli-{}-{name}-{}",
            env!("CARGO_CRATE_NAME"),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// A path inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Every file name in the directory, sorted.
    pub fn listing(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
