//! Numbers with units as logs write them: exact decimals ([`decimal_scaled`]), durations (`15.568ms`) and sizes
//! (`23M`, `12KB`) as the GC logs print them.

/// Parses a decimal number times 10^`scale` as an integer, exactly (`"15.568"`, 6 → 15 568 000); rounds half up
/// beyond the available digits. `None` for anything but digits with at most one point.
pub(crate) fn decimal_scaled(text: &str, scale: u32) -> Option<u64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut v: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    v = v.checked_mul(10u64.checked_pow(scale)?)?;
    let digits = frac.as_bytes();
    let mut place = 10u64.pow(scale);
    for (i, &d) in digits.iter().enumerate() {
        place /= 10;
        let d = u64::from(d - b'0');
        if place == 0 {
            if i < digits.len() && d >= 5 {
                v = v.checked_add(1)?;
            }
            break;
        }
        v = v.checked_add(d * place)?;
    }
    Some(v)
}

/// A duration token with its unit (`15.568ms`, `0.081s`, `123us`, `12ns`, `2ms`) in nanoseconds.
pub(crate) fn duration_token_ns(token: &str) -> Option<u64> {
    let t = token.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = t.split_at(split);
    let scale = match unit {
        "ns" => 0,
        "us" | "µs" => 3,
        "ms" => 6,
        "s" => 9,
        _ => return None,
    };
    decimal_scaled(num, scale)
}

/// A size with a binary unit (`23M`, `4096K`, `1.5G`, `12KB`, `48B`, `5MB`) in bytes.
pub(crate) fn size_token_bytes(token: &str) -> Option<u64> {
    let t = token.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = t.split_at(split);
    let shift = match unit {
        "B" => 0,
        "K" | "KB" | "k" => 10,
        "M" | "MB" => 20,
        "G" | "GB" => 30,
        "T" | "TB" => 40,
        _ => return None,
    };
    let milli = decimal_scaled(num, 3)?;
    u64::try_from((u128::from(milli) << shift) / 1000).ok()
}
