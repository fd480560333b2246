//! Atomic replacement of a file or a folder of files.
//!
//! An [`AtomicFile`] writes to a temporary file beside the destination (`.NAME.HOST-PID-N.tmp`, same folder, so the
//! same file system), and [`AtomicFile::commit`] flushes it, `fsync`s it, renames it over the destination and
//! `fsync`s the folder. A process killed at any instant therefore leaves the old file or the new one, never a
//! mixture or a truncation; a writer dropped without `commit` (an error on the way) removes its temporary file
//! and leaves the destination untouched. Because the destination is only replaced at the end, a command may read
//! the file it is about to replace (`gclab trace import k.gctrace -o k.gctrace`).
//!
//! A large file is handed to the kernel's writeback every [`WRITEBACK_BYTES`] as it is written, so the final
//! `fsync` waits for the last stretch only (a 2.5 GB `export-perfetto` output: 0.62 s of `fsync` → 0.02 s); past
//! 64 MiB the rest is written past the page cache where the file system allows it ([`super::direct`]).
//!
//! Invariants and edge cases:
//! - An existing destination's permissions are carried over to the new file; a symbolic link is followed (the
//!   file it points to is replaced, the link stays).
//! - A destination that exists but is not a regular file (`/dev/null`, a FIFO) is written in place: renaming over
//!   a device would replace the device.
//! - A kill leaves a stray `.NAME.*.tmp` beside the destination (nothing can clean up after `SIGKILL`); it is
//!   never the destination.
//!
//! [`write_dir_atomic`] does the same for a folder of files (`gclab run --csv DIR`): the files are written into a
//! temporary folder that is renamed into place, so the folder is complete or not there. The folder also gets a
//! manifest ([`MANIFEST`]) naming the files gclab wrote. A folder that also holds the user's files is never moved:
//! there each file is replaced atomically and the manifest, removed first, is written last, so a kill part-way
//! leaves whole files and no manifest (an incomplete set that says so), never a truncated file or a user's file
//! touched.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::direct::{ALIGN, DIRECT_AFTER, Direct, Stop};

/// A unique name beside `dest`: `.NAME.HOST-PID-N.tmp` (or `….old` for `tag = "old"`). The host keeps two machines
/// writing into one shared folder (the tasks of a cluster sweep) from ever sharing a temporary name.
fn sibling(dest: &Path, tag: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let host = HOST.get_or_init(|| {
        fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().replace(['/', '.'], "_"))
            .unwrap_or_default()
    });
    let name = dest
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dest.with_file_name(format!(".{name}.{host}-{}-{n}.{tag}", std::process::id()))
}

/// The folder holding `path` (`.` for a bare file name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `fsync` of a folder, so that a rename in it is durable. File systems that cannot sync a folder are ignored:
/// the rename itself is still atomic.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Bytes of a temporary file written between two hand-overs to the kernel's writeback ([`start_writeback`]).
const WRITEBACK_BYTES: u64 = 64 << 20;

/// Starts writing `len` bytes from `offset` of `file` to the disk without waiting for them (Linux: `fadvise`
/// `DONTNEED`, which begins writeback of the range's dirty pages — `generic_fadvise` in mm/fadvise.c — and drops
/// the pages already clean). A large output (`export-perfetto` writes gigabytes) is then mostly on disk when
/// [`AtomicFile::commit`] syncs it, instead of the whole file being written back by that `fsync`. Advice only:
/// an error changes nothing.
fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::fs::fadvise(
            file,
            offset,
            std::num::NonZeroU64::new(len),
            rustix::fs::Advice::DontNeed,
        );
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// The file a write to `path` must replace: the target of a symbolic link, else `path`.
fn resolve(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Whether a temporary file's further bytes go past the page cache ([`super::direct`]).
enum DirectState {
    /// Not yet: through the page cache until [`DIRECT_AFTER`] bytes.
    Due,
    On(Direct),
    /// Refused by the file system: the page cache throughout.
    Off,
}

enum Target {
    /// Written to `tmp`, renamed to `dest` on commit.
    Temp {
        file: File,
        tmp: PathBuf,
        dest: PathBuf,
        /// Bytes written, and how many of them were handed to the kernel's writeback ([`WRITEBACK_BYTES`]).
        written: u64,
        handed: u64,
        /// Whether the rest goes past the page cache ([`super::direct`]).
        direct: DirectState,
    },
    /// A device or FIFO: written in place.
    InPlace(File),
    /// Committed or failed: nothing left to do.
    Done,
}

/// A file that replaces its destination only when [`AtomicFile::commit`] is called (see the module docs).
/// Unbuffered: wrap it in a `BufWriter` for many small writes.
pub struct AtomicFile {
    target: Target,
}

impl std::fmt::Debug for AtomicFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.target {
            Target::Temp { tmp, dest, .. } => {
                write!(f, "AtomicFile({} → {})", tmp.display(), dest.display())
            }
            Target::InPlace(_) => f.write_str("AtomicFile(in place)"),
            Target::Done => f.write_str("AtomicFile(done)"),
        }
    }
}

impl AtomicFile {
    /// Starts replacing `dest`: creates the temporary file beside it. The destination itself is not touched.
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        let dest = resolve(dest);
        let existing = fs::metadata(&dest).ok();
        if let Some(m) = &existing {
            if m.is_dir() {
                return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a folder"));
            }
            if !m.is_file() {
                let file = fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(&dest)?;
                return Ok(AtomicFile {
                    target: Target::InPlace(file),
                });
            }
        }
        let tmp = sibling(&dest, "tmp");
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        if let Some(m) = existing {
            // Best effort: a file system without permissions keeps the default ones.
            let _ = file.set_permissions(m.permissions());
        }
        Ok(AtomicFile {
            target: Target::Temp {
                file,
                tmp,
                dest,
                written: 0,
                handed: 0,
                direct: DirectState::Due,
            },
        })
    }

    /// Flushes, syncs and renames the temporary file over the destination. On error the destination is left as
    /// it was and the temporary file is removed.
    pub fn commit(mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.target, Target::Done) {
            Target::Temp {
                mut file,
                tmp,
                dest,
                direct,
                ..
            } => {
                let tail = match direct {
                    DirectState::On(d) => d.finish(&file),
                    _ => Ok(()),
                };
                let done = tail
                    .and_then(|()| file.flush())
                    .and_then(|()| file.sync_all())
                    .and_then(|()| {
                        drop(file);
                        fs::rename(&tmp, &dest)
                    });
                if done.is_err() {
                    let _ = fs::remove_file(&tmp);
                }
                done?;
                sync_dir(parent_of(&dest));
                Ok(())
            }
            Target::InPlace(mut f) => f.flush(),
            Target::Done => Ok(()),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.target {
            Target::Temp {
                file,
                written,
                handed,
                direct,
                ..
            } => {
                // From DIRECT_AFTER, at an aligned offset, the rest goes past the page cache where the file system
                // allows it.
                let due = matches!(direct, DirectState::Due) && *written >= DIRECT_AFTER;
                if due && (*written).is_multiple_of(ALIGN as u64) {
                    *direct = Direct::start(file).map_or(DirectState::Off, DirectState::On);
                }
                if let DirectState::On(d) = direct {
                    match d.write(file, buf) {
                        Ok(()) => {}
                        Err(Stop::Refused) => *direct = DirectState::Off,
                        Err(Stop::Io(e)) => return Err(e),
                    }
                    *written += buf.len() as u64;
                    return Ok(buf.len());
                }
                // Once due, through the page cache only up to the next aligned offset.
                let take = match due {
                    true => buf.len().min(ALIGN - (*written % ALIGN as u64) as usize),
                    false => buf.len(),
                };
                let n = file.write(&buf[..take])?;
                *written += n as u64;
                if *written - *handed >= WRITEBACK_BYTES {
                    start_writeback(file, *handed, *written - *handed);
                    *handed = *written;
                }
                Ok(n)
            }
            Target::InPlace(file) => file.write(buf),
            Target::Done => Err(io::Error::other("write after commit")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.target {
            Target::Temp { file, .. } | Target::InPlace(file) => file.flush(),
            Target::Done => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Target::Temp { tmp, .. } = &self.target {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Replaces `dest` with `bytes` atomically.
pub fn write_file_atomic(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(dest)?;
    f.write_all(bytes)?;
    f.commit()
}

/// Removes a temporary folder unless disarmed.
struct TmpDir(Option<PathBuf>);

impl Drop for TmpDir {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            let _ = fs::remove_dir_all(d);
        }
    }
}

/// The file in a folder written by [`write_dir_atomic`] that lists, one name a line, the files gclab wrote there.
pub const MANIFEST: &str = ".gclab-outputs";

/// The entries of the existing folder `dest` that gclab did not write: not the manifest, not named in it, not one
/// of `names` (an output of a gclab from before the manifest), or not a regular file.
fn foreign_entries(dest: &Path, names: &[&str]) -> io::Result<Vec<String>> {
    let listed = fs::read_to_string(dest.join(MANIFEST)).unwrap_or_default();
    let ours = |n: &str| n == MANIFEST || names.contains(&n) || listed.lines().any(|l| l == n);
    let mut foreign = Vec::new();
    for e in fs::read_dir(dest)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !(e.file_type()?.is_file() && ours(&name)) {
            foreign.push(name);
        }
    }
    foreign.sort();
    Ok(foreign)
}

/// Writes `files` (name, contents) as the folder `dest`, complete or not at all, with a [`MANIFEST`] naming them.
///
/// Missing parent folders are created. The files go into a temporary folder beside `dest`, each synced, which is
/// then renamed to `dest`. An existing `dest` that is empty or holds only what gclab wrote there (the files its
/// manifest names, or files of these names) is moved aside first and removed after the rename: a kill between the
/// two renames leaves `dest` absent (and the old folder as `.DEST.*.old`), never half-written. An existing `dest`
/// holding anything else (`--csv .`, a folder of the user's, the `--json` file of the same command) cannot be
/// swapped without moving the user's files: there [`write_into_shared_dir`] replaces each file atomically and
/// rewrites the manifest last.
pub fn write_dir_atomic<C: AsRef<[u8]>>(dest: &Path, files: &[(&str, C)]) -> io::Result<()> {
    let dest = resolve(dest);
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    if let Ok(m) = fs::metadata(&dest) {
        if !m.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "exists and is not a folder",
            ));
        }
        if !foreign_entries(&dest, &names)?.is_empty() {
            return write_into_shared_dir(&dest, files, &names);
        }
    }
    fs::create_dir_all(parent_of(&dest))?;
    let tmp = TmpDir(Some(sibling(&dest, "tmp")));
    let tmp_path = tmp.0.clone().unwrap_or_default();
    fs::create_dir(&tmp_path)?;
    let manifest: String = names.iter().map(|n| format!("{n}\n")).collect();
    for (name, text) in files
        .iter()
        .map(|(n, t)| (*n, t.as_ref()))
        .chain([(MANIFEST, manifest.as_bytes())])
    {
        let mut f = File::create(tmp_path.join(name))?;
        f.write_all(text)?;
        f.sync_all()?;
    }
    sync_dir(&tmp_path);
    let old = sibling(&dest, "old");
    let moved_aside = match fs::rename(&dest, &old) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    if let Err(e) = fs::rename(&tmp_path, &dest) {
        if moved_aside {
            let _ = fs::rename(&old, &dest);
        }
        return Err(e);
    }
    let mut tmp = tmp;
    tmp.0 = None;
    sync_dir(parent_of(&dest));
    if moved_aside {
        let _ = fs::remove_dir_all(&old);
    }
    Ok(())
}

/// Writes `files` into `dest`, a folder that also holds files gclab did not write (they are never touched).
///
/// The manifest is removed first and written last, after every file has replaced its namesake atomically: each
/// file is always whole (the old or the new one), and a manifest is present only when the folder holds one run's
/// complete set, so a kill part-way leaves the set visibly incomplete (no manifest) rather than silently mixed.
fn write_into_shared_dir<C: AsRef<[u8]>>(
    dest: &Path,
    files: &[(&str, C)],
    names: &[&str],
) -> io::Result<()> {
    match fs::remove_file(dest.join(MANIFEST)) {
        Ok(()) => sync_dir(dest),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    for (name, text) in files {
        write_file_atomic(&dest.join(name), text.as_ref())?;
    }
    let manifest: String = names.iter().map(|n| format!("{n}\n")).collect();
    write_file_atomic(&dest.join(MANIFEST), manifest.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gclab-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    /// A file larger than [`WRITEBACK_BYTES`], written in odd-sized pieces so that hand-overs to writeback fall
    /// mid-write, reads back byte for byte.
    #[test]
    fn a_file_handed_to_writeback_as_it_is_written_reads_back_whole() {
        // Past 64 MiB the rest is written direct (`io::direct`) on a disk's file system, and through the page cache
        // on tmpfs where that refuses it: both must read back byte for byte, the unaligned switch and tail included.
        let byte = |k: usize| ((k * 7 + k / 4099) % 251) as u8;
        let mut folders = vec![scratch("writeback")];
        folders.extend(
            Some(Path::new("/dev/shm"))
                .filter(|p| p.is_dir())
                .map(|p| p.join(format!("gclab-writeback-{}", std::process::id())))
                .filter(|p| fs::create_dir_all(p).is_ok()),
        );
        for d in folders {
            let dest = d.join("big.bin");
            let piece_len = 999_983;
            let pieces = (WRITEBACK_BYTES as usize * 2) / piece_len + 3;
            let mut f = AtomicFile::create(&dest).unwrap();
            for p in 0..pieces {
                let piece: Vec<u8> = (p * piece_len..(p + 1) * piece_len).map(byte).collect();
                f.write_all(&piece).unwrap();
            }
            f.commit().unwrap();
            let back = fs::read(&dest).unwrap();
            assert_eq!(back.len(), pieces * piece_len, "length in {}", d.display());
            let wrong = back.iter().enumerate().position(|(k, &b)| b != byte(k));
            assert_eq!(wrong, None, "first wrong byte in {}", d.display());
            let _ = fs::remove_dir_all(&d);
        }
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_destination_changes_only_at_commit() {
        let d = scratch("commit");
        let p = d.join("out.json");
        fs::write(&p, "old").unwrap();
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"new, longer").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"old", "untouched before commit");
        f.commit().unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new, longer", "replaced at commit");
        assert_eq!(entries(&d), vec!["out.json"], "no temporary file left");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_dropped_writer_leaves_the_old_file_and_no_temporary() {
        let d = scratch("drop");
        let p = d.join("t.gctrace");
        fs::write(&p, "old").unwrap();
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"half").unwrap();
        drop(f);
        assert_eq!(fs::read(&p).unwrap(), b"old", "old file kept");
        assert_eq!(entries(&d), vec!["t.gctrace"], "temporary removed");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_symlink_is_followed_not_replaced() {
        let d = scratch("link");
        let real = d.join("real.txt");
        fs::write(&real, "old").unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_file_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "link kept"
        );
        assert_eq!(fs::read(&real).unwrap(), b"new", "target replaced");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_device_is_written_in_place() {
        write_file_atomic(Path::new("/dev/null"), b"x").unwrap();
        assert!(
            !fs::metadata("/dev/null").unwrap().is_file(),
            "/dev/null is still a device"
        );
    }

    #[test]
    fn a_folder_of_gclab_outputs_is_replaced_whole() {
        let d = scratch("dir");
        let out = d.join("csv");
        write_dir_atomic(&out, &[("a.csv", "1"), ("b.csv", "2")]).unwrap();
        assert_eq!(
            entries(&out),
            vec![MANIFEST, "a.csv", "b.csv"],
            "both written, and the manifest"
        );
        // An earlier output is replaced as a whole.
        write_dir_atomic(&out, &[("a.csv", "3"), ("b.csv", "4")]).unwrap();
        assert_eq!(
            fs::read_to_string(out.join("b.csv")).unwrap(),
            "4",
            "replaced"
        );
        assert_eq!(entries(&d), vec!["csv"], "no temporary or old folder left");
        assert_eq!(
            fs::read_to_string(out.join(MANIFEST)).unwrap(),
            "a.csv\nb.csv\n",
            "the manifest names what gclab wrote"
        );
        // A smaller set replaces a larger one whole: the manifest says the extra file was gclab's.
        write_dir_atomic(&out, &[("a.csv", "7")]).unwrap();
        assert_eq!(
            entries(&out),
            vec![MANIFEST, "a.csv"],
            "b.csv went with the old set"
        );
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_folder_with_foreign_files_keeps_them_and_gets_a_complete_set_and_manifest() {
        let d = scratch("foreign");
        let out = d.join("csv");
        write_dir_atomic(&out, &[("a.csv", "1"), ("b.csv", "2")]).unwrap();
        fs::write(out.join("notes.txt"), "mine").unwrap();
        fs::create_dir(out.join("sub")).unwrap();
        fs::write(out.join("sub").join("inner.txt"), "also mine").unwrap();
        let ino = |p: &Path| {
            fs::metadata(p)
                .map(|m| std::os::unix::fs::MetadataExt::ino(&m))
                .unwrap()
        };
        let folder_before = ino(&out);
        write_dir_atomic(&out, &[("a.csv", "5"), ("b.csv", "6")]).unwrap();
        assert_eq!(ino(&out), folder_before, "the user's folder is not moved");
        assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
        assert_eq!(
            fs::read_to_string(out.join("sub").join("inner.txt")).unwrap(),
            "also mine"
        );
        assert_eq!(fs::read_to_string(out.join("a.csv")).unwrap(), "5");
        assert_eq!(fs::read_to_string(out.join("b.csv")).unwrap(), "6");
        assert_eq!(
            fs::read_to_string(out.join(MANIFEST)).unwrap(),
            "a.csv\nb.csv\n"
        );
        assert_eq!(
            entries(&out),
            vec![MANIFEST, "a.csv", "b.csv", "notes.txt", "sub"],
            "no temporary file left"
        );
        assert_eq!(entries(&d), vec!["csv"], "no temporary folder left");
        // An empty folder (made by the user for the output) is taken.
        let empty = d.join("empty");
        fs::create_dir(&empty).unwrap();
        write_dir_atomic(&empty, &[("a.csv", "1")]).unwrap();
        assert_eq!(entries(&empty), vec![MANIFEST, "a.csv"], "written");
        let _ = fs::remove_dir_all(&d);
    }
}
