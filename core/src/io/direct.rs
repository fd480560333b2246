//! The rest of a large output written past the page cache ([`Direct`], Linux `O_DIRECT`): once an
//! [`AtomicFile`](super::AtomicFile) has written [`DIRECT_AFTER`] bytes, its further bytes are staged in an aligned
//! buffer and written a whole buffer at a time straight to the disk. On this project's machine (a VM, ext4 on a
//! virtio disk) writing 2.5 GB through the page cache cost 4.1–6.5 s of system time (`dd bs=4M conv=fsync`), and
//! 0.2 s with `oflag=direct` (1.5 s in all): `export-perfetto`'s 2.55 GB output spent most of its system time
//! there, and that time varied from run to run with what the guest had to get from the host for the cache.
//!
//! A file system that refuses direct I/O (tmpfs before Linux 6.6, some network file systems) says so at the
//! `fcntl` or at the first write (`EINVAL`): the file then stays on the page cache, nothing lost. The tail that does
//! not fill an aligned block is written through the page cache at the end ([`Direct::finish`]). The bytes on disk
//! are the bytes written, whichever way they went.

use std::fs::File;
use std::io::{self, Write};

/// Bytes an output writes through the page cache before the rest goes direct: small outputs (every report, trace
/// and CSV but the biggest) never change mode. `[bytes]`
pub(super) const DIRECT_AFTER: u64 = 64 << 20;
/// Alignment of a direct write's memory, length and file offset (the largest logical block size in use). `[bytes]`
pub(super) const ALIGN: usize = 4096;
/// Bytes staged between two direct writes. `[bytes]`
const STAGE_BYTES: usize = 8 << 20;

/// An output's staging buffer while its file is open with `O_DIRECT`.
pub(super) struct Direct {
    /// `STAGE_BYTES + ALIGN` bytes, of which `[at, at + STAGE_BYTES)` is aligned.
    mem: Vec<u8>,
    at: usize,
    /// Bytes staged.
    len: usize,
}

/// Why [`Direct::write`] stopped staging.
pub(super) enum Stop {
    /// The file system refused a direct write: direct I/O is off again and every byte given so far was written
    /// through the page cache (the writer goes on without the stage).
    Refused,
    /// An I/O error.
    Io(io::Error),
}

impl Direct {
    /// Turns on direct I/O for `file`, whose next byte must be at a multiple of [`ALIGN`]; None where the file
    /// system (or the platform) does not allow it.
    pub(super) fn start(file: &File) -> Option<Direct> {
        set_direct(file, true).ok()?;
        let mem = vec![0u8; STAGE_BYTES + ALIGN];
        let at = mem.as_ptr().align_offset(ALIGN);
        Some(Direct { mem, at, len: 0 })
    }

    /// Stages `data`, writing each full buffer to `file` direct.
    pub(super) fn write(&mut self, file: &File, mut data: &[u8]) -> Result<(), Stop> {
        while !data.is_empty() {
            let n = data.len().min(STAGE_BYTES - self.len);
            let start = self.at + self.len;
            self.mem[start..start + n].copy_from_slice(&data[..n]);
            self.len += n;
            data = &data[n..];
            if self.len == STAGE_BYTES
                && let Err(stop) = self.write_stage(file)
            {
                if let Stop::Refused = stop {
                    // What is left of `data` follows the stage through the page cache.
                    (&*file).write_all(data).map_err(Stop::Io)?;
                }
                return Err(stop);
            }
        }
        Ok(())
    }

    /// Writes the full stage direct. A refusal (`EINVAL`) or a short write (which leaves an unaligned rest: a disk
    /// filling up, say) turns direct I/O off and writes the rest of the stage through the page cache.
    fn write_stage(&mut self, file: &File) -> Result<(), Stop> {
        let stage = &self.mem[self.at..self.at + self.len];
        let written = match (&*file).write(stage) {
            Ok(n) if n == stage.len() => {
                self.len = 0;
                return Ok(());
            }
            Ok(n) => n,
            Err(e) if e.raw_os_error() == Some(EINVAL) => 0,
            Err(e) => return Err(Stop::Io(e)),
        };
        set_direct(file, false).map_err(Stop::Io)?;
        (&*file).write_all(&stage[written..]).map_err(Stop::Io)?;
        Err(Stop::Refused)
    }

    /// Writes the staged tail through the page cache (it need not fill an aligned block) and turns direct I/O off.
    pub(super) fn finish(self, file: &File) -> io::Result<()> {
        set_direct(file, false)?;
        (&*file).write_all(&self.mem[self.at..self.at + self.len])
    }
}

/// What Linux answers a direct write it cannot do.
const EINVAL: i32 = 22;

#[cfg(target_os = "linux")]
fn set_direct(file: &File, on: bool) -> io::Result<()> {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    let flags = fcntl_getfl(file)?;
    let flags = if on {
        flags | OFlags::DIRECT
    } else {
        flags - OFlags::DIRECT
    };
    Ok(fcntl_setfl(file, flags)?)
}

#[cfg(not(target_os = "linux"))]
fn set_direct(_: &File, on: bool) -> io::Result<()> {
    match on {
        true => Err(io::Error::from(io::ErrorKind::Unsupported)),
        false => Ok(()),
    }
}
