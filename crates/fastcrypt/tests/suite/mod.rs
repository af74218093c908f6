//! Registration of every test group. Each primitive's module has a
//! `register(&mut Vec<Trial>)`; `common` and `valgrind` are the helpers
//! they share; `ct` holds the constant-time probes of every primitive.

mod aes_gcm;
pub mod common;
mod ct;
mod ghash;
mod hmac;
mod rc4;
mod sha1;
mod sha1_many;
mod sha1dc;
mod valgrind;

pub fn register_all(trials: &mut Vec<libtest_mimic::Trial>) {
    aes_gcm::register(trials);
    ghash::register(trials);
    rc4::register(trials);
    sha1::register(trials);
    sha1dc::register(trials);
    sha1_many::register(trials);
    hmac::register(trials);
    ct::register(trials);
}
