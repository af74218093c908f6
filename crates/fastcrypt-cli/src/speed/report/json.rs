//! The JSON format: the header's facts, every cell with its samples, and
//! the `--compare` rows.

use super::super::engine::State;
use super::{aad_bytes, compare_rows, cycles_per_byte, go_name, origin_text, Run};
use serde_json::{json, Value};

pub fn render(run: &Run) -> String {
    let mut s = serde_json::to_string_pretty(&value(run)).unwrap_or_default();
    s.push('\n');
    s
}

fn value(run: &Run) -> Value {
    let h = &run.header;
    let results: Vec<Value> = run
        .cells
        .iter()
        .map(|c| {
            let algo = run.algos[c.algo];
            let mut v = json!({
                "algorithm": algo.name,
                "size": c.size,
                "bytes_per_op": c.bytes,
                "benchmark": algo.row_name(c.size, &run.header.params),
                "go_name": go_name(run, c),
                "implementation": c.name,
                "origin": origin_text(&c.origin),
            });
            if let Some(n) = aad_bytes(run, c) {
                v["aad_bytes"] = json!(n);
            }
            match (&c.state, c.stats()) {
                (State::NotAvailable(why), _) => {
                    v["available"] = json!(false);
                    v["reason"] = json!(why);
                }
                (State::Runnable(r), s) => {
                    v["available"] = json!(true);
                    v["iterations_per_sample"] = json!(r.iters);
                    v["samples_ns_per_op"] = json!(r.samples);
                    if let Some(s) = s {
                        v["ns_per_op"] = json!({"median": s.median, "min": s.min, "max": s.max});
                        v["mb_per_s"] = json!(s.mb_s(c.bytes));
                        if h.clock.ghz().is_some() {
                            v["cycles_per_byte"] = json!(cycles_per_byte(run, &s, c.bytes));
                        }
                    }
                }
            }
            v
        })
        .collect();
    let mut compare = Vec::new();
    for ai in 0..run.algos.len() {
        if let Some((rows, n)) = compare_rows(run, ai) {
            let pair = run.compare.as_ref().expect("compare rows need --compare");
            compare.push(json!({
                "algorithm": run.algos[ai].name,
                "old": pair.old,
                "new": pair.new,
                "rows": rows.iter().zip(&n).map(|(r, (used, taken, loaded))| json!({
                    "rounds_used": used,
                    "rounds_taken": taken,
                    "too_few_quiet_rounds": loaded,
                    "benchmark": r.name,
                    "old_ns_per_op": r.old_ns,
                    "new_ns_per_op": r.new_ns,
                    "delta": r.delta,
                    "speedup": r.mb.map(|m| m.2),
                    "within_noise": r.same,
                })).collect::<Vec<_>>(),
            }));
        }
    }
    json!({
        "tool": "fastcrypt speed",
        "command": h.command,
        "cpu": h.cpu,
        "features": h.features,
        "rustc": h.rustc,
        "openssl": h.openssl,
        "openssl_ia32cap": h.ia32cap,
        "date": h.date,
        "auto": h.auto.iter().map(|(a, b)| (a.to_string(), json!(b))).collect::<serde_json::Map<_, _>>(),
        "min_time_s": h.plan.min_time.as_secs_f64(),
        "samples": h.plan.samples,
        "rounds": run.rounds,
        "interrupted": run.interrupted,
        "aad_bytes": h.aad.as_ref().map(|_| h.params.aad),
        "cpu_ghz": h.clock.ghz(),
        "cpu_ghz_source": h.clock.source(),
        "sweep": run.sweep,
        "results": results,
        "compare": compare,
    })
}
