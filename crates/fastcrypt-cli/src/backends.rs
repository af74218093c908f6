//! A primitive's backends as the CLI shows them. Read through the library's
//! [`PrimitiveBackend`] trait, so a backend added to a primitive shows up
//! here, in `fastcrypt cpu` and in the speed lab with no change to the CLI.

use fastcrypt::PrimitiveBackend;

/// One backend: its name, the CPU features it needs, and whether it runs
/// here.
#[derive(Clone, Debug)]
pub struct BackendRow {
    /// The backend's name (`portable`, `shani`, ...).
    pub name: &'static str,
    /// The CPU features it needs.
    pub needs: &'static str,
    /// Whether this CPU (and build) can run it.
    pub available: bool,
    /// Whether this build contains it (see `PrimitiveBackend::is_compiled`).
    pub compiled: bool,
}

/// Every backend of one primitive, slowest first, and the default choice.
pub struct BackendTable {
    /// The library's name for the primitive (`sha1`, `aes-gcm`, ...).
    pub primitive: &'static str,
    /// Its backends, slowest first.
    pub rows: Vec<BackendRow>,
    /// The backend the primitive's `new()` picks on this CPU.
    pub fastest: &'static str,
}

/// The table of backend type `B`.
pub fn backend_table<B: PrimitiveBackend>() -> BackendTable {
    BackendTable {
        primitive: B::PRIMITIVE,
        rows: B::ALL
            .iter()
            .map(|&b| BackendRow {
                name: b.name(),
                needs: b.needs(),
                available: b.is_available(),
                compiled: b.is_compiled(),
            })
            .collect(),
        fastest: B::fastest().name(),
    }
}
