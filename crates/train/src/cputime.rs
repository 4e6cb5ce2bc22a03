//! CPU time of this process, for the learning curve's x axis (Elo vs
//! CPU-hours).
//!
//! Read from `/proc/self/stat` (fields 14 `utime` and 15 `stime`, in clock
//! ticks of `USER_HZ`, which Linux fixes at 100 for this interface;
//! `proc(5)`). Elsewhere the time is unknown (`None`) and the metrics leave
//! the CPU fields out rather than guess.

/// Clock ticks per second of `/proc/<pid>/stat` times (Linux `USER_HZ`).
const USER_HZ: f64 = 100.0;

/// User + system CPU seconds of this process (all threads) so far.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat(&stat)
}

/// `utime + stime` in seconds from the text of `/proc/<pid>/stat`. The
/// command name (field 2) may contain spaces and parentheses, so fields are
/// counted after its closing `)`.
fn parse_stat(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // `rest` starts at field 3 (state); utime is field 14, stime 15.
    let utime: f64 = fields.nth(11)?.parse().ok()?;
    let stime: f64 = fields.next()?.parse().ok()?;
    Some((utime + stime) / USER_HZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_utime_and_stime_after_the_command_name() {
        // A real line's shape, with a command name holding ") (".
        let line = "4242 (lokizero) (x) R 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 3 0 99";
        assert_eq!(parse_stat(line), Some(3.0));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (a) R 1 2"), None);
    }

    #[test]
    fn busy_work_advances_the_clock() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let t0 = process_cpu_seconds().unwrap();
        let started = std::time::Instant::now();
        let mut x = 1u64;
        // Spin until the clock moves by 3 ticks (wall guard: 20 s).
        while process_cpu_seconds().unwrap() < t0 + 0.03 && started.elapsed().as_secs() < 20 {
            for i in 0..100_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
            }
        }
        assert!(process_cpu_seconds().unwrap() >= t0 + 0.03, "{x}");
    }
}
