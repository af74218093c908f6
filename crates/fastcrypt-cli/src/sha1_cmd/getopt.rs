//! Usage errors in `getopt_long`'s words, as `sha1sum` prints them.
//!
//! clap parses the command line; when it refuses it, this module walks
//! the same arguments as glibc's `getopt_long` would (options anywhere
//! before `--`, clustered short options, unambiguous prefixes of long
//! ones, `--opt=value`) over the options clap knows, and names the first
//! one getopt rejects in getopt's own message. Scripts and people who
//! know `sha1sum` then read the same line. When getopt would accept the
//! command line, clap's message stands.

use clap::Command;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

/// One option as getopt sees it.
struct Opt {
    long: Option<String>,
    /// Other long names, matched only whole (`--b` for `--binary`).
    aliases: Vec<String>,
    short: Option<char>,
    takes_value: bool,
}

/// The options of `cmd` (built, so that `--help` and `--version` are
/// among them), in declaration order.
fn options(cmd: &Command) -> Vec<Opt> {
    cmd.get_arguments()
        .filter(|a| !a.is_positional())
        .map(|a| Opt {
            long: a.get_long().map(str::to_string),
            aliases: a
                .get_all_aliases()
                .unwrap_or_default()
                .into_iter()
                .map(str::to_string)
                .collect(),
            short: a.get_short(),
            takes_value: a.get_action().takes_values(),
        })
        .collect()
}

/// What `getopt_long` would print (without the program's name) for the
/// first option of `args` it rejects, or `None` if it rejects none.
/// `cmd` is the built subcommand whose options `args` are.
pub fn rejected(cmd: &Command, args: &[OsString]) -> Option<String> {
    let opts = options(cmd);
    let mut rest = args.iter().map(|a| a.as_bytes());
    while let Some(arg) = rest.next() {
        if arg == b"--" {
            return None;
        }
        if let Some(body) = arg.strip_prefix(b"--") {
            let (name, value) = match body.iter().position(|&b| b == b'=') {
                Some(eq) => (&body[..eq], Some(&body[eq + 1..])),
                None => (body, None),
            };
            fn long(o: &Opt) -> Option<&[u8]> {
                o.long.as_deref().map(str::as_bytes)
            }
            let exact: Vec<&Opt> = opts
                .iter()
                .filter(|o| long(o) == Some(name) || o.aliases.iter().any(|a| a.as_bytes() == name))
                .collect();
            let found = if exact.is_empty() {
                opts.iter()
                    .filter(|o| long(o).is_some_and(|l| l.starts_with(name)))
                    .collect()
            } else {
                exact
            };
            let quoted = String::from_utf8_lossy(arg);
            let o = match found[..] {
                [] => return Some(format!("unrecognized option '{quoted}'")),
                [o] => o,
                ref many => {
                    let names: Vec<String> = many
                        .iter()
                        .filter_map(|o| o.long.as_ref().map(|l| format!("'--{l}'")))
                        .collect();
                    return Some(format!(
                        "option '{quoted}' is ambiguous; possibilities: {}",
                        names.join(" ")
                    ));
                }
            };
            let full = o.long.as_deref().unwrap_or_default();
            match (o.takes_value, value) {
                (false, Some(_)) => {
                    return Some(format!("option '--{full}' doesn't allow an argument"))
                }
                (true, None) if rest.next().is_none() => {
                    return Some(format!("option '--{full}' requires an argument"))
                }
                _ => {}
            }
        } else if arg.len() > 1 && arg[0] == b'-' {
            for (i, &c) in arg.iter().enumerate().skip(1) {
                let c = char::from(c);
                let Some(o) = opts.iter().find(|o| o.short == Some(c)) else {
                    return Some(format!("invalid option -- '{c}'"));
                };
                if o.takes_value {
                    // The rest of the cluster is its value, else the next
                    // argument is.
                    if i + 1 == arg.len() && rest.next().is_none() {
                        return Some(format!("option requires an argument -- '{c}'"));
                    }
                    break;
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::rejected;
    use clap::{Arg, ArgAction, Command};
    use std::ffi::OsString;

    fn cmd() -> Command {
        let flag = |id: &'static str| Arg::new(id).long(id).action(ArgAction::SetTrue);
        let mut c = Command::new("t")
            .arg(flag("status"))
            .arg(flag("strict"))
            .arg(flag("tag").short('t'))
            .arg(flag("tagged"))
            .arg(Arg::new("jobs").long("jobs").short('j').num_args(1))
            .arg(Arg::new("files").num_args(0..));
        c.build();
        c
    }

    fn says(args: &[&str]) -> Option<String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        rejected(&cmd(), &args)
    }

    #[test]
    fn getopt_messages() {
        let s = |m: &str| Some(m.to_string());
        assert_eq!(
            says(&["a", "--st"]),
            s("option '--st' is ambiguous; possibilities: '--status' '--strict'")
        );
        assert_eq!(
            says(&["--st=1"]),
            s("option '--st=1' is ambiguous; possibilities: '--status' '--strict'")
        );
        assert_eq!(says(&["--bogus=1"]), s("unrecognized option '--bogus=1'"));
        assert_eq!(
            says(&["--stat=1"]),
            s("option '--status' doesn't allow an argument")
        );
        assert_eq!(says(&["--jobs"]), s("option '--jobs' requires an argument"));
        assert_eq!(says(&["-tx"]), s("invalid option -- 'x'"));
        assert_eq!(says(&["-j"]), s("option requires an argument -- 'j'"));
        assert_eq!(
            says(&["--help=x"]),
            s("option '--help' doesn't allow an argument")
        );
        // An exact name wins over the longer names it is a prefix of.
        assert_eq!(says(&["--tag"]), None);
        assert_eq!(
            says(&["--ta"]),
            s("option '--ta' is ambiguous; possibilities: '--tag' '--tagged'")
        );
        // Accepted: values in every form, operands, `-`, and anything
        // after `--`.
        for ok in [
            &["--jobs", "--bogus"][..],
            &["--jobs=2", "-j3", "-tj", "4", "-", "x"],
            &["--stat", "--stri", "--tagg"],
            &["--", "--bogus", "-x"],
        ] {
            assert_eq!(says(ok), None, "{ok:?}");
        }
    }
}
