//! Resident memory of this process (Linux `/proc/self/status`).

/// A `/proc/self/status` field in kB, as bytes.
fn status_field(name: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line
        .get(name.len()..)?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

/// The peak resident set size in bytes (`VmHWM`), or `None` where it cannot be read.
pub fn peak_rss_bytes() -> Option<u64> {
    status_field("VmHWM:")
}

/// The current resident set size in bytes (`VmRSS`), or `None` where it cannot be read.
pub fn current_rss_bytes() -> Option<u64> {
    status_field("VmRSS:")
}
