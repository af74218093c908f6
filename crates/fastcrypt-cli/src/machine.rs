//! What the machine is: its CPU model and the features the library
//! detected. `fastcrypt cpu` prints it and every speed report's header
//! carries it.

use fastcrypt::cpu::{Features, FEATURES};

/// The CPU model: CPUID's brand string on x86, else the OS's idea of it.
pub fn cpu_model() -> String {
    if let Some(m) = fastcrypt::cpu::model() {
        return m;
    }
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| {
                    l.starts_with("model name")
                        || l.starts_with("Model")
                        || l.starts_with("cpu model")
                })
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| format!("unknown ({})", std::env::consts::ARCH))
}

/// One row of the library's feature table, as detected here.
pub struct Feature {
    /// The feature's name, as `fastcrypt cpu` prints it.
    pub name: &'static str,
    /// Whether this CPU (and OS) has it.
    pub present: bool,
    /// Which register state the OS saves (XCR0), not a CPU flag: such rows
    /// have no `/proc/cpuinfo` name.
    pub os_state: bool,
}

/// Every row of the library's feature table, in its order.
pub fn features() -> Vec<Feature> {
    FEATURES
        .iter()
        .zip(Features::get().list())
        .map(|(info, (name, present))| Feature {
            name,
            present,
            os_state: info.os_state,
        })
        .collect()
}

/// The features present, CPU flags and OS state alike.
pub fn present_features() -> Vec<&'static str> {
    features()
        .into_iter()
        .filter(|f| f.present)
        .map(|f| f.name)
        .collect()
}

/// Names separated by spaces, `none` for no name.
pub fn name_list(names: &[&str]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(" ")
    }
}
