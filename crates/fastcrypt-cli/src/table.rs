//! Aligned text tables and their Markdown twins, shared by every table the
//! speed lab and `benchcmp` print, and the number format of their cells.
//!
//! Self-contained (std only): fuzz/fuzz_targets/benchcmp_parse.rs includes
//! this file with `#[path]` for [`ns_text`], which `gobench` uses.

/// A column: header, alignment, and the separator printed before it in text
/// mode (so a layout like benchcmp's `%-*s %12s %12s  %7s` is exact).
pub struct Col {
    /// The header cell.
    pub header: String,
    /// Right-aligned (numbers) rather than left-aligned.
    pub right: bool,
    /// The narrowest the column may be.
    pub min_width: usize,
    /// Printed before the column in text mode.
    pub sep: &'static str,
}

impl Col {
    /// A left-aligned column headed `header`.
    pub fn left(header: &str) -> Col {
        Col {
            header: header.into(),
            right: false,
            min_width: 0,
            sep: "  ",
        }
    }

    /// A right-aligned column headed `header`.
    pub fn right(header: &str) -> Col {
        Col {
            header: header.into(),
            right: true,
            min_width: 0,
            sep: "  ",
        }
    }

    /// At least `w` characters wide.
    pub fn width(mut self, w: usize) -> Col {
        self.min_width = w;
        self
    }

    /// With `sep` before it in text mode.
    pub fn sep(mut self, sep: &'static str) -> Col {
        self.sep = sep;
        self
    }
}

enum Row {
    Cells(Vec<String>),
    /// Cells up to `at`, then free text that does not widen any column
    /// (`n/a (needs sha_ni)` across the number columns).
    Note(Vec<String>, String),
}

/// Rows under a header of [`Col`]s, printed aligned as text or as
/// Markdown.
pub struct Table {
    cols: Vec<Col>,
    rows: Vec<Row>,
}

fn width(s: &str) -> usize {
    s.chars().count()
}

impl Table {
    /// An empty table with these columns.
    pub fn new(cols: Vec<Col>) -> Table {
        Table {
            cols,
            rows: Vec::new(),
        }
    }

    /// Appends a row: one cell per column.
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.cols.len());
        self.rows.push(Row::Cells(cells));
    }

    /// Appends a row of `lead` cells followed by free text, which does
    /// not widen the columns it spans.
    pub fn note(&mut self, lead: Vec<String>, text: String) {
        self.rows.push(Row::Note(lead, text));
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self
            .cols
            .iter()
            .map(|c| c.min_width.max(width(&c.header)))
            .collect();
        for r in &self.rows {
            let cells = match r {
                Row::Cells(c) | Row::Note(c, _) => c,
            };
            for (i, c) in cells.iter().enumerate() {
                w[i] = w[i].max(width(c));
            }
        }
        w
    }

    fn line(&self, w: &[usize], cells: &[String], note: Option<&str>) -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let col = &self.cols[i];
            if i > 0 {
                s.push_str(col.sep);
            }
            let pad = " ".repeat(w[i].saturating_sub(width(c)));
            if col.right {
                s.push_str(&pad);
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&pad);
            }
        }
        if let Some(n) = note {
            s.push_str(self.cols.get(cells.len()).map_or("  ", |c| c.sep));
            s.push_str(n);
        }
        s.truncate(s.trim_end().len());
        s
    }

    /// Plain text, columns aligned with spaces.
    pub fn text(&self) -> String {
        let w = self.widths();
        let headers: Vec<String> = self.cols.iter().map(|c| c.header.clone()).collect();
        let mut out = self.line(&w, &headers, None);
        out.push('\n');
        for r in &self.rows {
            let l = match r {
                Row::Cells(c) => self.line(&w, c, None),
                Row::Note(c, n) => self.line(&w, c, Some(n)),
            };
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    /// A GitHub-flavoured Markdown table.
    pub fn markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let mut out = String::from("|");
        for c in &self.cols {
            out.push_str(&format!(" {} |", esc(&c.header)));
        }
        out.push_str("\n|");
        for c in &self.cols {
            out.push_str(if c.right { " ---: |" } else { " :--- |" });
        }
        out.push('\n');
        for r in &self.rows {
            let mut cells: Vec<String> = match r {
                Row::Cells(c) => c.clone(),
                Row::Note(c, n) => {
                    let mut c = c.clone();
                    c.push(n.clone());
                    c
                }
            };
            cells.resize(self.cols.len(), String::new());
            out.push('|');
            for c in cells {
                out.push_str(&format!(" {} |", esc(c.trim())));
            }
            out.push('\n');
        }
        out
    }
}

/// Go's `prettyPrint` for ns/op: integers from 100 up, then three or four
/// significant digits.
pub fn ns_text(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 {
        "0".into()
    } else if a >= 99.95 {
        format!("{x:.0}")
    } else if a >= 9.995 {
        format!("{x:.1}")
    } else if a >= 0.9995 {
        format!("{x:.2}")
    } else if a >= 0.099995 {
        format!("{x:.3}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_ns() {
        assert_eq!(ns_text(774.0), "774");
        assert_eq!(ns_text(48394.4), "48394");
        assert_eq!(ns_text(68.25), "68.2");
        assert_eq!(ns_text(5.123), "5.12");
    }

    #[test]
    fn benchcmp_layout() {
        let mut t = Table::new(vec![
            Col::left("benchmark").sep(""),
            Col::right("old ns/op").width(12).sep(" "),
            Col::right("new ns/op").width(12).sep(" "),
            Col::right("delta").width(7).sep("  "),
        ]);
        t.row(vec![
            "BenchmarkRC4_128".into(),
            "774".into(),
            "417".into(),
            "-46.12%".into(),
        ]);
        assert_eq!(
            t.text(),
            "benchmark           old ns/op    new ns/op    delta\n\
             BenchmarkRC4_128          774          417  -46.12%\n"
        );
    }

    #[test]
    fn notes_do_not_widen() {
        let mut t = Table::new(vec![Col::left("a"), Col::right("b")]);
        t.row(vec!["x".into(), "1".into()]);
        t.note(vec!["y".into()], "n/a (needs sha_ni)".into());
        assert_eq!(t.text(), "a  b\nx  1\ny  n/a (needs sha_ni)\n");
    }
}
