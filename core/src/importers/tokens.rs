//! Numbers with units as logs write them: exact decimals ([`decimal_scaled`]), durations (`15.568ms`) and sizes
//! (`23M`, `12KB`) as the GC logs print them.

/// 10^k for every k with 10^k in a `u64` (`10u64.checked_pow(k)` is `None` beyond): a look-up, not a loop per token.
const POW10: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut k = 1;
    while k < 20 {
        t[k] = t[k - 1] * 10;
        k += 1;
    }
    t
};

/// Parses a decimal number times 10^`scale` as an integer, exactly (`"15.568"`, 6 → 15 568 000); rounds half up
/// beyond the available digits. `None` for anything but digits with at most one point.
pub(crate) fn decimal_scaled(text: &str, scale: u32) -> Option<u64> {
    // One pass over the bytes, no allocation: the integer part accumulated with overflow checks (an overflow is
    // `None`, as `str::parse` would say), the fraction checked for digits and rounded below 10^-scale.
    let bytes = text.as_bytes();
    let point = memchr::memchr(b'.', bytes).unwrap_or(bytes.len());
    let (int, frac) = (&bytes[..point], bytes.get(point + 1..).unwrap_or(&[]));
    if int.is_empty() && frac.is_empty() || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for &b in int {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    v = v.checked_mul(*POW10.get(scale as usize)?)?;
    // The first `scale` fraction digits as an integer (below 10^scale ≤ 10^19, so no overflow), scaled up by the
    // digits missing: the sum of each digit times its place, without a division per digit. The digit after them
    // rounds (half up); the rest are ignored.
    let kept = frac.len().min(scale as usize);
    let digits = (frac[..kept].iter()).fold(0u64, |a, &d| a * 10 + u64::from(d - b'0'));
    v = v.checked_add(digits * POW10[scale as usize - kept])?;
    if frac.get(kept).is_some_and(|&d| d >= b'5') {
        v = v.checked_add(1)?;
    }
    Some(v)
}

/// Where the number of a `12.5ms`-style token ends: its first byte that is neither a digit nor a point.
fn number_end(t: &str) -> Option<usize> {
    t.bytes().position(|b| !(b.is_ascii_digit() || b == b'.'))
}

/// A duration token with its unit (`15.568ms`, `0.081s`, `123us`, `12ns`, `2ms`) in nanoseconds.
pub(crate) fn duration_token_ns(token: &str) -> Option<u64> {
    let t = trim(token);
    let split = number_end(t)?;
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
    let t = trim(token);
    let split = number_end(t)?;
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

/// `s.trim()`, without the Unicode whitespace search when both ends are printable ASCII (a log's common case).
#[inline]
pub(crate) fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    if b.first().is_some_and(u8::is_ascii_graphic) && b.last().is_some_and(u8::is_ascii_graphic) {
        s
    } else {
        s.trim()
    }
}

/// `s.trim_start()`, without the Unicode whitespace search when the first byte is printable ASCII.
#[inline]
pub(crate) fn trim_start(s: &str) -> &str {
    if s.as_bytes().first().is_some_and(u8::is_ascii_graphic) {
        s
    } else {
        s.trim_start()
    }
}

/// `s.trim_end()`, without the Unicode whitespace search when the last byte is printable ASCII.
#[inline]
pub(crate) fn trim_end(s: &str) -> &str {
    if s.as_bytes().last().is_some_and(u8::is_ascii_graphic) {
        s
    } else {
        s.trim_end()
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_scaled;

    /// The digit-by-digit form `decimal_scaled` had before (a division per fraction digit), as the reference.
    fn by_places(text: &str, scale: u32) -> Option<u64> {
        let bytes = text.as_bytes();
        let point = memchr::memchr(b'.', bytes).unwrap_or(bytes.len());
        let (int, frac) = (&bytes[..point], bytes.get(point + 1..).unwrap_or(&[]));
        if int.is_empty() && frac.is_empty() || !frac.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let mut v: u64 = 0;
        for &b in int {
            if !b.is_ascii_digit() {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        }
        v = v.checked_mul(10u64.checked_pow(scale)?)?;
        let mut place = 10u64.pow(scale);
        for &d in frac {
            place /= 10;
            let d = u64::from(d - b'0');
            if place == 0 {
                if d >= 5 {
                    v = v.checked_add(1)?;
                }
                break;
            }
            v = v.checked_add(d * place)?;
        }
        Some(v)
    }

    #[test]
    fn decimal_scaled_equals_the_sum_of_digits_times_places() {
        let ints = [
            "",
            "0",
            "7",
            "18446744073",
            "18446744073709551615",
            "99999999999",
            "1x",
        ];
        let fracs = [
            None,
            Some(""),
            Some("5"),
            Some("4"),
            Some("568"),
            Some("23456789"),
            Some("999999999999999999999"),
            Some("0000000005"),
            Some("12a"),
        ];
        for int in ints {
            for frac in fracs {
                let text = match frac {
                    Some(f) => format!("{int}.{f}"),
                    None => int.to_string(),
                };
                for scale in [0, 1, 3, 6, 9, 19, 20] {
                    assert_eq!(
                        decimal_scaled(&text, scale),
                        by_places(&text, scale),
                        "`{text}` at scale {scale}"
                    );
                }
            }
        }
    }
}
