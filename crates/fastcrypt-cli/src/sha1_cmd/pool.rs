//! Hashing on a pool of threads, with every result handed back in the
//! order its input was submitted.
//!
//! The calling thread submits inputs ([`Pipeline::submit`]) and gets each
//! one's outcome through its `emit` callback only after every earlier
//! input's: whatever the callback prints comes out exactly as in a
//! sequential run, error messages included, however the threads finish.
//!
//! Workers take files from one shared queue. A worker reads each small
//! regular file (at most [`SMALL_FILE_MAX`]) whole into its batch and
//! hashes the batch in one call ([`Hashing::hash_many`], the multi-buffer
//! kernels), once the batch is full or the queue is empty. A large file,
//! a block device or a directory (which fails to read, as GNU's does) it
//! streams on its own, after hashing the batch it holds so that those
//! small files are not kept waiting behind it.
//!
//! Standard input is never given to a worker: it is hashed on the calling
//! thread when its turn comes, so its reads happen in order, one `-`
//! after the other, as in a sequential run. So is any input that others
//! may also read or feed, which a worker hands back without opening it: a
//! FIFO, a socket or a character device (a terminal, `/dev/stdin`, which
//! may be the same pipe as `-`). Opening a FIFO ahead of its turn would
//! attach that open to whichever writer comes first: a FIFO named twice
//! would read the first writer's data as one input and nothing as the
//! other, or block.
//!
//! Memory is bounded whatever the inputs: a worker holds at most
//! [`BATCH_BYTES`] plus one small file of data and a 256 KiB read
//! buffer, and the calling thread keeps at most `limit` outcomes waiting
//! for their turn (a digest or an error each).

use super::progress::Progress;
use super::{Hashed, Hashing};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::os::unix::ffi::OsStrExt;
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Duration;

/// The largest file read whole and hashed in a batch. A batch pays off
/// when it holds many messages, one per lane (16 with AVX-512): at this
/// size a full batch holds only four, and larger files would cost memory
/// for batches of one. They are streamed instead, each on a thread of
/// its own, still in parallel with the others.
const SMALL_FILE_MAX: u64 = 1 << 20;

/// A batch is hashed once it holds this many bytes...
const BATCH_BYTES: usize = 4 << 20;

/// ...or this many files: enough for the lanes to be refilled many times
/// over, few enough that the first results are printed early.
const BATCH_FILES: usize = 256;

/// What an input needs.
pub enum Work {
    /// A file (never `-`), hashed by a worker.
    File(Vec<u8>),
    /// Standard input, hashed on the calling thread in its turn.
    Stdin,
    /// Nothing to hash: an event that only keeps its place in the order
    /// (a message about a check list, the end of a list).
    Nothing,
}

impl Work {
    /// The work for the input named `name` (`-` is standard input).
    pub fn of(name: &[u8]) -> Work {
        if name == b"-" {
            Work::Stdin
        } else {
            Work::File(name.to_vec())
        }
    }
}

/// What an input gave: `None` for [`Work::Nothing`], else its digest or
/// why it could not be hashed.
pub type Outcome = Option<io::Result<Hashed>>;

/// Runs `body` with a pipeline of `jobs` threads (`jobs <= 1`: no thread,
/// every input hashed on the spot, streamed, as before there were
/// threads). The threads end when `body` returns.
pub fn run<T, R>(
    jobs: usize,
    how: Hashing,
    progress: &Progress,
    body: impl FnOnce(&mut Pipeline<'_, T>) -> R,
) -> R {
    if jobs <= 1 {
        return body(&mut Pipeline {
            how,
            progress,
            pool: None,
            window: VecDeque::new(),
            first: 0,
        });
    }
    let shared = Shared::default();
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let shared = &shared;
            spawn(s, move || worker(shared, tx, how, progress));
        }
        // Only the workers send: if they all died, `recv` says so.
        drop(tx);
        let mut pipe = Pipeline {
            how,
            progress,
            pool: Some(Pool {
                shared: &shared,
                results: rx,
                // Room for every worker's full batch and as many again
                // queued, so no worker waits for the printing to catch up.
                limit: (jobs * BATCH_FILES * 2).max(1024),
            }),
            window: VecDeque::new(),
            first: 0,
        };
        let r = body(&mut pipe);
        // Dropping the pool (also when `body` panics) closes the queue,
        // and the scope joins the workers as they see it closed.
        drop(pipe);
        r
    })
}

/// The stack of a hashing thread: the main thread's usual 8 MiB, not
/// the 2 MiB of other threads, which a detecting hasher's state (large
/// in an unoptimised build) can overflow.
const STACK: usize = 8 << 20;

/// Starts a hashing thread in `s`.
pub fn spawn<'s, 'e>(s: &'s std::thread::Scope<'s, 'e>, f: impl FnOnce() + Send + 's) {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn_scoped(s, f)
        .expect("start a hashing thread");
}

/// Inputs in, outcomes out in the same order; see the module docs.
pub struct Pipeline<'p, T> {
    how: Hashing,
    progress: &'p Progress,
    /// `None`: sequential, each input hashed as it is submitted.
    pool: Option<Pool<'p>>,
    /// Submitted inputs whose outcome has not been emitted, oldest first.
    window: VecDeque<(T, Slot)>,
    /// The sequence number of `window[0]`.
    first: u64,
}

/// The calling thread's side of the workers.
struct Pool<'p> {
    shared: &'p Shared,
    results: mpsc::Receiver<Msg>,
    /// At most this many inputs in the window.
    limit: usize,
}

impl Drop for Pool<'_> {
    fn drop(&mut self) {
        self.shared.close();
    }
}

/// Where an input in the window stands.
enum Slot {
    /// With the workers.
    Queued,
    Done(io::Result<Hashed>),
    /// To be hashed on the calling thread when it reaches the front.
    Stdin,
    /// A shared stream (see the module docs), to be opened and read on
    /// the calling thread in its turn.
    OpenInOrder(Vec<u8>),
    /// One that became a shared stream after a worker looked (it was
    /// replaced since), opened by the worker; read in its turn.
    InOrder(File),
    Nothing,
}

/// What a worker made of a file.
enum Done {
    Hashed(io::Result<Hashed>),
    /// A stream that must be opened and read in its turn (see the module
    /// docs).
    OpenInOrder(Vec<u8>),
    /// The same, found to be one only once opened.
    InOrder(File),
}

/// A worker's report.
enum Msg {
    /// Outcomes by sequence number, in no particular order.
    Done(Vec<(u64, Done)>),
    /// A worker panicked: its inputs will never be done.
    Died,
}

impl<T> Pipeline<'_, T> {
    /// Adds an input. Emits, in order, the outcomes that are ready
    /// (perhaps this input's), and waits for some when too many are out.
    pub fn submit(&mut self, tag: T, work: Work, emit: &mut impl FnMut(T, Outcome)) {
        let Some(pool) = &self.pool else {
            let outcome = match work {
                Work::File(name) => Some(super::hash_path(&name, self.how, self.progress)),
                Work::Stdin => Some(super::hash_path(b"-", self.how, self.progress)),
                Work::Nothing => None,
            };
            emit(tag, outcome);
            return;
        };
        let seq = self.first + self.window.len() as u64;
        let slot = match work {
            Work::File(name) => {
                pool.shared.push(seq, name);
                Slot::Queued
            }
            Work::Stdin => Slot::Stdin,
            Work::Nothing => Slot::Nothing,
        };
        let limit = pool.limit;
        self.window.push_back((tag, slot));
        self.collect(false);
        self.emit_ready(emit);
        while self.window.len() >= limit {
            self.collect(true);
            self.emit_ready(emit);
        }
    }

    /// Waits for and emits every outstanding outcome. Needed before
    /// anything else reads standard input, and at the end.
    pub fn finish(&mut self, emit: &mut impl FnMut(T, Outcome)) {
        loop {
            self.emit_ready(emit);
            if self.window.is_empty() {
                return;
            }
            self.collect(true);
        }
    }

    /// Emits the outcomes at the front of the window that are known,
    /// hashing standard input when its turn has come.
    fn emit_ready(&mut self, emit: &mut impl FnMut(T, Outcome)) {
        while let Some((_, slot)) = self.window.front() {
            if matches!(slot, Slot::Queued) {
                return;
            }
            let (tag, slot) = self.window.pop_front().expect("front exists");
            self.first += 1;
            let outcome = match slot {
                Slot::Done(r) => Some(r),
                Slot::Stdin => Some(super::hash_path(b"-", self.how, self.progress)),
                Slot::OpenInOrder(name) => Some(super::hash_path(&name, self.how, self.progress)),
                Slot::InOrder(f) => Some(super::hash_reader(f, self.how, self.progress)),
                Slot::Nothing => None,
                Slot::Queued => unreachable!("checked above"),
            };
            emit(tag, outcome);
        }
    }

    /// Files the workers' reports into the window: those already sent
    /// or, with `block`, at least one more.
    fn collect(&mut self, block: bool) {
        let Some(pool) = &self.pool else {
            return;
        };
        let mut msgs = Vec::new();
        if block {
            loop {
                match pool.results.recv_timeout(Duration::from_millis(100)) {
                    Ok(m) => {
                        msgs.push(m);
                        break;
                    }
                    // The bar appears after a while even when a long
                    // file keeps every result back.
                    Err(mpsc::RecvTimeoutError::Timeout) => self.progress.poll(),
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        panic!("every hashing thread has ended with inputs outstanding")
                    }
                }
            }
        }
        msgs.extend(pool.results.try_iter());
        for m in msgs {
            match m {
                Msg::Done(done) => {
                    for (seq, d) in done {
                        let i = usize::try_from(seq - self.first).expect("in the window");
                        self.window[i].1 = match d {
                            Done::Hashed(r) => Slot::Done(r),
                            Done::OpenInOrder(name) => Slot::OpenInOrder(name),
                            Done::InOrder(f) => Slot::InOrder(f),
                        };
                    }
                }
                Msg::Died => panic!("a hashing thread panicked"),
            }
        }
    }
}

/// The queue of files between the calling thread and the workers.
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

#[derive(Default)]
struct Queue {
    files: VecDeque<(u64, Vec<u8>)>,
    /// No more files will come.
    closed: bool,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // A panic elsewhere cannot leave the queue half-changed: every
        // change under the lock is one push, pop or store.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn push(&self, seq: u64, name: Vec<u8>) {
        self.lock().files.push_back((seq, name));
        self.ready.notify_one();
    }

    fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// The next file, waiting for one; `None` once closed and empty.
    fn wait(&self) -> Option<(u64, Vec<u8>)> {
        let mut q = self.lock();
        loop {
            if let Some(f) = q.files.pop_front() {
                return Some(f);
            }
            if q.closed {
                return None;
            }
            q = self
                .ready
                .wait(q)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// The next file, if one is queued now.
    fn try_take(&self) -> Option<(u64, Vec<u8>)> {
        self.lock().files.pop_front()
    }
}

/// A file type whose data others may read or write while we do: its
/// reads must happen in order.
fn is_shared_stream(t: std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    t.is_fifo() || t.is_socket() || t.is_char_device()
}

fn worker(shared: &Shared, results: mpsc::Sender<Msg>, how: Hashing, progress: &Progress) {
    let mut w = Worker {
        how,
        progress,
        results,
        // Reserved, not touched: no copy as the batches grow, and pages
        // only for what is read.
        arena: Vec::with_capacity(BATCH_BYTES + SMALL_FILE_MAX as usize + 1),
        batch: Vec::new(),
        done: Vec::new(),
        buf: Vec::new(),
    };
    while let Some((seq, name)) = shared.wait() {
        w.take(seq, &name);
        while w.batch.len() < BATCH_FILES && w.arena.len() < BATCH_BYTES {
            match shared.try_take() {
                Some((seq, name)) => w.take(seq, &name),
                None => break,
            }
        }
        w.flush();
    }
}

/// One worker's state between files.
struct Worker<'p> {
    how: Hashing,
    progress: &'p Progress,
    results: mpsc::Sender<Msg>,
    /// The batch's files, back to back.
    arena: Vec<u8>,
    /// Each batched file's sequence number and bytes in `arena`.
    batch: Vec<(u64, Range<usize>)>,
    /// Outcomes not yet sent.
    done: Vec<(u64, Done)>,
    /// The streaming buffer, allocated at the first large file.
    buf: Vec<u8>,
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.results.send(Msg::Died);
        }
    }
}

impl Worker<'_> {
    /// Hashes the file `name`, or adds it to the batch.
    fn take(&mut self, seq: u64, name: &[u8]) {
        // Looked at before it is opened: a shared stream is opened in its
        // turn (see the module docs).
        if std::fs::metadata(std::ffi::OsStr::from_bytes(name))
            .is_ok_and(|m| is_shared_stream(m.file_type()))
        {
            return self.done.push((seq, Done::OpenInOrder(name.to_vec())));
        }
        let file = match super::open(name) {
            Ok(f) => f,
            Err(e) => return self.done.push((seq, Done::Hashed(Err(e)))),
        };
        // Only a regular file's length says how much there is to read:
        // anything else is streamed, never held.
        match file.metadata() {
            Ok(m) if m.is_file() && m.len() <= SMALL_FILE_MAX => {
                self.read_small(seq, file, m.len() as usize)
            }
            Ok(m) if is_shared_stream(m.file_type()) => {
                self.done.push((seq, Done::InOrder(file)));
            }
            _ => {
                self.flush();
                let r = self
                    .how
                    .hasher()
                    .map_err(io::Error::other)
                    .and_then(|h| self.stream(h, file));
                self.done.push((seq, Done::Hashed(r)));
                self.flush();
            }
        }
    }

    /// Reads a small file whole into the batch (`len`: its length when
    /// opened).
    fn read_small(&mut self, seq: u64, file: File, len: usize) {
        if !self.batch.is_empty() && self.arena.len() + len > BATCH_BYTES {
            self.hash_batch();
        }
        let start = self.arena.len();
        // The exact size up front: read_to_end then fills it without
        // growing the arena past what the batch needs.
        self.arena.reserve(len + 1);
        match (&file)
            .take(SMALL_FILE_MAX + 1)
            .read_to_end(&mut self.arena)
        {
            Ok(n) if n as u64 <= SMALL_FILE_MAX => {
                self.batch.push((seq, start..start + n));
                self.progress.inc(n as u64);
            }
            // It grew past the limit since it was opened: stream the
            // rest after what has been read.
            Ok(n) => {
                let r = self
                    .how
                    .hasher()
                    .map_err(io::Error::other)
                    .and_then(|mut h| {
                        h.update(&self.arena[start..]);
                        self.progress.inc(n as u64);
                        self.arena.truncate(start);
                        self.flush();
                        self.stream(h, file)
                    });
                self.arena.truncate(start);
                self.done.push((seq, Done::Hashed(r)));
                self.flush();
            }
            Err(e) => {
                self.arena.truncate(start);
                self.done.push((seq, Done::Hashed(Err(e))));
            }
        }
    }

    /// Streams the rest of `file` into `h`.
    fn stream(&mut self, h: super::Hasher, file: File) -> io::Result<Hashed> {
        if self.buf.is_empty() {
            self.buf = vec![0u8; super::READ_LEN];
        }
        super::hash_stream(h, file, &mut self.buf, self.progress)
    }

    /// Hashes the batch, if any, into `done`.
    fn hash_batch(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let msgs: Vec<&[u8]> = self
            .batch
            .iter()
            .map(|(_, r)| &self.arena[r.clone()])
            .collect();
        let hashed = self.how.hash_many(&msgs);
        let seqs = self.batch.iter().map(|&(seq, _)| seq);
        self.done
            .extend(seqs.zip(hashed.into_iter().map(Done::Hashed)));
        self.batch.clear();
        self.arena.clear();
    }

    /// Hashes the batch and sends every outcome there is.
    fn flush(&mut self) {
        self.hash_batch();
        if !self.done.is_empty() {
            // The calling thread is gone only if it panicked; its panic
            // is the one to report.
            let _ = self.results.send(Msg::Done(std::mem::take(&mut self.done)));
        }
    }
}
