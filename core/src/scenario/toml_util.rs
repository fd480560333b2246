//! Small TOML helpers for the two-stage scenario loader: line numbers from byte spans, the line of a dotted key,
//! deep merging of tables (workload profile + scenario overrides) and `--set KEY=VALUE` overrides.

use toml::{Table, Value};

/// 1-based line of a byte offset in `src`.
pub fn line_of_offset(src: &str, offset: usize) -> usize {
    let end = offset.min(src.len());
    src.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The 1-based line where the dotted key `path` (e.g. `heap.bank_size`) is set in `src`, if it is written there
/// as `[table]` + `key = …`, as a dotted key, or inside an array of tables (`[[workload.phases]]`, first match).
pub fn line_of_key(src: &str, path: &str) -> Option<usize> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut table: Vec<String> = Vec::new();
    for (idx, raw) in src.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.trim_start_matches('[');
            let name = name.split(']').next().unwrap_or("").trim();
            table = name
                .split('.')
                .map(|s| s.trim().trim_matches('"').to_string())
                .collect();
            continue;
        }
        let Some((key, _)) = line.split_once('=') else {
            continue;
        };
        let mut full: Vec<String> = table.clone();
        full.extend(
            key.trim()
                .split('.')
                .map(|s| s.trim().trim_matches('"').to_string()),
        );
        // Indices in the path (`phases.0.sizes`) are not written in TOML: drop numeric parts before comparing.
        let want: Vec<&str> = parts
            .iter()
            .copied()
            .filter(|p| p.parse::<usize>().is_err())
            .collect();
        if full.len() == want.len() && full.iter().zip(&want).all(|(a, b)| a == b) {
            return Some(idx + 1);
        }
    }
    None
}

/// Merges `over` into `base`: tables merge key by key, every other value (arrays included) replaces.
pub fn deep_merge(base: &mut Table, over: &Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Table(b)), Value::Table(o)) => deep_merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Parses the VALUE of `--set KEY=VALUE` as a TOML value (`0.9`, `75`, `true`, `"16KiB"`, `[1, 2]`); a bare word
/// that is not TOML (`adaptive`, `16KiB`) is taken as a string.
pub fn parse_override_value(text: &str) -> Value {
    let doc = format!("v = {text}");
    match doc.parse::<Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(text.to_string())),
        Err(_) => Value::String(text.to_string()),
    }
}

/// Sets the dotted `path` in `root` to `value`, creating tables on the way. Numeric parts index arrays
/// (`workload.phases.0.allocations`). Fails when a part crosses a non-table value or an index is out of range.
pub fn set_path(root: &mut Table, path: &str, value: Value) -> Result<(), String> {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "`{path}` is not a dotted key (expected e.g. heap.target_util)"
        ));
    }
    set_in_table(root, &parts, value, path)
}

fn set_in_table(t: &mut Table, parts: &[&str], value: Value, path: &str) -> Result<(), String> {
    let (head, rest) = (parts[0], &parts[1..]);
    if rest.is_empty() {
        t.insert(head.to_string(), value);
        return Ok(());
    }
    let entry = t
        .entry(head.to_string())
        .or_insert_with(|| Value::Table(Table::new()));
    set_in_value(entry, rest, value, path)
}

fn set_in_value(v: &mut Value, parts: &[&str], value: Value, path: &str) -> Result<(), String> {
    match v {
        Value::Table(t) => set_in_table(t, parts, value, path),
        Value::Array(a) => {
            let idx: usize = parts[0].parse().map_err(|_| {
                format!(
                    "`{path}`: `{}` indexes an array and must be a number",
                    parts[0]
                )
            })?;
            let len = a.len();
            let slot = a.get_mut(idx).ok_or_else(|| {
                format!("`{path}`: index {idx} is out of range (array has {len})")
            })?;
            if parts.len() == 1 {
                *slot = value;
                Ok(())
            } else {
                set_in_value(slot, &parts[1..], value, path)
            }
        }
        _ => Err(format!("`{path}`: `{}` is not a table", parts[0])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_in_tables() {
        let src = "seed = 1\n[heap]\n# c\nsize = 5\n[collector]\nk = 3\n";
        assert_eq!(line_of_key(src, "heap.size"), Some(4));
        assert_eq!(line_of_key(src, "collector.k"), Some(6));
        assert_eq!(line_of_key(src, "seed"), Some(1));
        assert_eq!(line_of_key(src, "heap.k"), None);
    }

    #[test]
    fn overrides_parse_and_set() {
        let mut t: Table = "[heap]\nsize = 1\n".parse().unwrap();
        set_path(&mut t, "heap.size", parse_override_value("\"16KiB\"")).unwrap();
        set_path(&mut t, "collector.kind", parse_override_value("adaptive")).unwrap();
        assert_eq!(t["heap"]["size"].as_str(), Some("16KiB"));
        assert_eq!(t["collector"]["kind"].as_str(), Some("adaptive"));
        assert_eq!(parse_override_value("0.9").as_float(), Some(0.9));
        assert!(set_path(&mut t, "heap.size.x", Value::Integer(1)).is_err());
    }
}
