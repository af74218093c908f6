//! The CSV format: one line per cell.

use super::super::engine::State;
use super::{aad_bytes, cycles_per_byte, origin_text, Run};

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn render(run: &Run) -> String {
    let mut out = String::from(
        "algorithm,size,benchmark,implementation,origin,status,ns_per_op,ns_per_op_min,ns_per_op_max,mb_per_s,cycles_per_byte,iterations_per_sample,samples,note,bytes_per_op,aad_bytes\n",
    );
    for c in &run.cells {
        let algo = run.algos[c.algo];
        let mut f = vec![
            algo.name.to_string(),
            c.size.to_string(),
            algo.row_name(c.size, &run.header.params),
            c.name.to_string(),
            origin_text(&c.origin),
        ];
        match (&c.state, c.stats()) {
            (State::Runnable(r), Some(s)) => {
                f.extend([
                    "ok".to_string(),
                    format!("{:.3}", s.median),
                    format!("{:.3}", s.min),
                    format!("{:.3}", s.max),
                    s.mb_s(c.bytes).map_or(String::new(), |m| format!("{m:.3}")),
                    cycles_per_byte(run, &s, c.bytes).map_or(String::new(), |x| format!("{x:.3}")),
                    r.iters.to_string(),
                    s.n.to_string(),
                    String::new(),
                ]);
            }
            (State::NotAvailable(why), _) => {
                f.push("n/a".into());
                f.extend(std::iter::repeat_n(String::new(), 7));
                f.push(why.clone());
            }
            (State::Runnable(_), None) => {
                f.push("not measured".into());
                f.extend(std::iter::repeat_n(String::new(), 8));
            }
        }
        // Last, so that the columns before it keep their places.
        f.push(c.bytes.to_string());
        f.push(aad_bytes(run, c).map_or(String::new(), |n| n.to_string()));
        let line: Vec<String> = f.iter().map(|x| csv_field(x)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}
