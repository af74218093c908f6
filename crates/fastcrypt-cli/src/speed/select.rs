//! Which cells (algorithm x size x implementation) a run measures, from
//! the options.

use super::algos::{self, Algorithm, BufferUse, Origin, Params};
use super::engine::{self, buffer, Buffer, Cell};
use super::options::{split_list, sweep_sizes, Pair, Selection};
use super::SpeedArgs;

/// The algorithms named (default and `all`: every one), each once.
pub fn algorithms(names: &[String]) -> Result<Vec<&'static Algorithm>, String> {
    if names.is_empty() {
        return Ok(algos::ALL.to_vec());
    }
    let mut out: Vec<&'static Algorithm> = Vec::new();
    for n in names.iter().flat_map(|n| split_list(n)) {
        let named = if n == "all" {
            algos::ALL.to_vec()
        } else {
            vec![algos::find(&n)
                .ok_or_else(|| format!("unknown algorithm `{n}` (valid: {})", algos::names()))?]
        };
        for a in named {
            if !out.iter().any(|b| std::ptr::eq(*b, a)) {
                out.push(a);
            }
        }
    }
    Ok(out)
}

/// Every backend name given to `--backend` must belong to one of the
/// selected algorithms (a backend, or a reference row such as `sha1dc`'s
/// `sha1`).
fn check_backends(names: &Selection, algos: &[&'static Algorithm]) -> Result<(), String> {
    let Selection::Named(names) = names else {
        return Ok(());
    };
    let mut valid = vec!["auto", "all"];
    for a in algos {
        let backends = (a.backends)().rows.into_iter().map(|b| b.name);
        let references = (a.implementations)(&Params::default())
            .into_iter()
            .filter(|i| matches!(i.origin, Origin::Reference { .. }))
            .map(|i| i.name);
        for name in backends.chain(references) {
            if !valid.contains(&name) {
                valid.push(name);
            }
        }
    }
    match names.iter().find(|n| !valid.contains(&n.as_str())) {
        Some(n) => Err(format!(
            "unknown backend `{n}` (valid: {})",
            valid.join(", ")
        )),
        None => Ok(()),
    }
}

/// The cells to measure, in table order.
pub fn cells(args: &SpeedArgs, algos: &[&'static Algorithm]) -> Result<Vec<Cell>, String> {
    if let Some(b) = &args.backend {
        check_backends(b, algos)?;
    }
    let params = args.params();
    if args.aad.is_some() && !algos.iter().any(|a| a.takes_aad) {
        let takers: Vec<&str> = algos::ALL
            .iter()
            .filter(|a| a.takes_aad)
            .map(|a| a.name)
            .collect();
        return Err(format!(
            "--aad applies to {} only, and none of them is selected",
            takers.join(", ")
        ));
    }
    if args.sweep && args.sizes.is_some() {
        return Err("--sweep measures sizes of its own: leave out --sizes".into());
    }
    let compare = args.compare.as_ref();
    let sizes = if args.sweep {
        Some(sweep_sizes())
    } else {
        args.sizes.as_ref().map(|s| s.0.clone())
    };
    // --compare alone measures just the pair: fewer cells per round puts A
    // and B closer together in time.
    let compare_only = compare.is_some() && args.backend.is_none() && args.peers.is_none();
    let (backends, peers) = if compare_only {
        (Selection::Named(vec![]), Selection::Named(vec![]))
    } else {
        (
            args.backend.clone().unwrap_or(Selection::All),
            args.peers.clone().unwrap_or(Selection::All),
        )
    };
    let in_pair = |name: &str| compare.is_some_and(|p| name == p.old || name == p.new);

    let mut cells = Vec::new();
    let mut unswept = Vec::new();
    for (ai, algo) in algos.iter().enumerate() {
        if args.sweep && !algo.sweeps {
            unswept.push(algo.name);
            continue;
        }
        if let (true, Some(p)) = (compare_only, compare) {
            // Nothing to pair in an algorithm that lacks A or B.
            let names: Vec<&str> = (algo.implementations)(&params)
                .iter()
                .map(|i| i.name)
                .collect();
            if !names.contains(&p.old.as_str()) || !names.contains(&p.new.as_str()) {
                continue;
            }
        }
        let sizes = sizes.clone().unwrap_or_else(|| algo.default_sizes.to_vec());
        if let Some(&small) = sizes.iter().find(|&&s| s < algo.min_size) {
            return Err(format!(
                "--sizes {small}: {} takes sizes from {} (see --list for what its sizes mean)",
                algo.name, algo.min_size
            ));
        }
        for &size in &sizes {
            let bytes = algo.rows.bytes(size);
            let mut shared: Option<Buffer> = None;
            for imp in (algo.implementations)(&params) {
                let chosen = match &imp.origin {
                    Origin::Auto | Origin::Backend | Origin::Reference { .. } => {
                        backends.has(imp.name)
                    }
                    Origin::Peer(group) => peers.has(group),
                } || in_pair(imp.name);
                if !chosen {
                    continue;
                }
                if imp.origin == Origin::Backend && backends.named(imp.name) {
                    if let Err(why) = &imp.op {
                        return Err(format!(
                            "{} backend `{}` is not available on this CPU ({why})",
                            algo.name, imp.name
                        ));
                    }
                }
                let input = || match algo.buffer {
                    BufferUse::ReadOnly => shared.get_or_insert_with(|| buffer(bytes)).clone(),
                    BufferUse::Written => buffer(bytes),
                };
                cells.push(Cell::new(
                    ai, size, bytes, imp.name, imp.origin, imp.op, input,
                ));
            }
        }
    }
    if let Some(p) = compare {
        check_compare(p, algos, &cells)?;
    }
    if cells.is_empty() && !unswept.is_empty() {
        return Err(format!(
            "--sweep does not apply to {} (its size is not a message length)",
            unswept.join(", ")
        ));
    }
    if cells.is_empty() {
        return Err("nothing selected to measure (see --backend and --peers)".into());
    }
    Ok(cells)
}

/// `--compare A,B` applies to every selected algorithm that has both; it
/// is an error when none has, or when A or B is n/a where both exist.
fn check_compare(pair: &Pair, algos: &[&Algorithm], cells: &[Cell]) -> Result<(), String> {
    let (a, b) = (pair.old.as_str(), pair.new.as_str());
    let mut any = false;
    for (ai, algo) in algos.iter().enumerate() {
        let find = |name: &str| cells.iter().find(|c| c.algo == ai && c.name == name);
        let (Some(ca), Some(cb)) = (find(a), find(b)) else {
            continue;
        };
        for (name, cell) in [(a, ca), (b, cb)] {
            if let engine::State::NotAvailable(why) = &cell.state {
                return Err(format!(
                    "cannot compare on {}: `{name}` is n/a ({why})",
                    algo.name
                ));
            }
        }
        any = true;
    }
    if any {
        return Ok(());
    }
    let mut valid: Vec<&str> = Vec::new();
    for algo in algos {
        for i in (algo.implementations)(&Params::default()) {
            if !valid.contains(&i.name) {
                valid.push(i.name);
            }
        }
    }
    let algo_names: Vec<&str> = algos.iter().map(|x| x.name).collect();
    match [a, b].into_iter().find(|n| !valid.contains(n)) {
        Some(unknown) => Err(format!(
            "--compare: no implementation `{unknown}` in {} (valid: {})",
            algo_names.join(", "),
            valid.join(", ")
        )),
        None => Err(format!(
            "--compare: no selected algorithm ({}) has both `{a}` and `{b}`",
            algo_names.join(", ")
        )),
    }
}

/// The cell index pairs `(A, B)` that `--compare` will pair, per algorithm
/// and size.
pub fn compare_pairs(cells: &[Cell], pair: &Pair) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if c.name != pair.old {
            continue;
        }
        if let Some(j) = cells
            .iter()
            .position(|d| d.algo == c.algo && d.size == c.size && d.name == pair.new)
        {
            pairs.push((i, j));
        }
    }
    pairs
}
