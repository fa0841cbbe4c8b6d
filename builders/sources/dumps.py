"""Reading an N-Triples dump (``.nt``, ``.nt.gz``, ``.nt.bz2``, ``.nt.zst``) as a stream of text.

One reader for ``probesmith wikidata slice`` and ``probesmith wikidata load``: decompression runs
in its own process (``pigz``/``gzip``, ``lbzip2``/``pbzip2``/``bzip2``, ``zstd``) where one is
installed, else in Python; a truncated or corrupt archive is an error that names the byte where
decompression failed.
"""

from __future__ import annotations

import bz2
import gzip
import shutil
import subprocess
from pathlib import Path

from probesmith.errors import SourceError

DUMP_SUFFIXES = (".nt", ".nt.gz", ".nt.bz2", ".nt.zst")
# external decompressors, fastest first: each streams the archive to stdout
_DECOMPRESSORS = {
    ".gz": ("pigz", "gzip"),
    ".bz2": ("lbzip2", "pbzip2", "bzip2"),
    ".zst": ("zstd",),
}


def checked_dump(dump: str | Path) -> Path:
    """The dump's path, once it is known to be an N-Triples file that exists (else a clear error)."""
    dump = Path(dump)
    if not dump.is_file():
        raise SourceError(f"dump {dump} does not exist; pass an N-Triples dump ({', '.join(DUMP_SUFFIXES)}).")
    if not dump.name.endswith(DUMP_SUFFIXES):
        raise SourceError(f"{dump}: a dump must be N-Triples: {', '.join(DUMP_SUFFIXES)}.")
    return dump


class DumpStream:
    """The dump's decompressed text, and how many compressed bytes were read.

    ``outcome`` ends the error of a truncated archive: what the caller leaves behind.
    """

    def __init__(self, path: Path, outcome: str = "nothing was written"):
        self.path, self.size, self.outcome = path, path.stat().st_size, outcome
        self.process: subprocess.Popen | None = None
        self.raw = open(path, "rb")
        self.decompressor = "none"
        suffix = path.suffix
        tools = _DECOMPRESSORS.get(suffix, ())
        tool = next((t for t in tools if shutil.which(t)), None)
        if tool:
            self.process = subprocess.Popen(
                [tool, "-dc"], stdin=self.raw, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            self.text = self.process.stdout
            self.decompressor = tool
        elif suffix == ".gz":
            self.text, self.decompressor = gzip.GzipFile(fileobj=self.raw), "python gzip"
        elif suffix == ".bz2":
            self.text, self.decompressor = bz2.BZ2File(self.raw), "python bz2"
        elif suffix == ".zst":
            raise SourceError(f"{path}: reading .zst needs the `zstd` program (apt-get install zstd).")
        else:
            self.text = self.raw

    @property
    def compressed_read(self) -> int:
        """Compressed bytes consumed so far."""
        return self.raw.tell() if not self.raw.closed else self.size

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes of text; a decompression error is the archive's (truncated)."""
        try:
            return self.text.read(size)
        except (EOFError, OSError, ValueError) as exc:
            raise self.truncated(f"{type(exc).__name__}: {exc}") from None

    def readable(self) -> bool:
        """A readable binary stream (for pyoxigraph's loader)."""
        return True

    def truncated(self, why: str) -> SourceError:
        """The error of an archive that ended early or does not decompress."""
        return SourceError(
            f"dump {self.path} is truncated or corrupt: decompression failed at byte "
            f"{self.compressed_read:,} of {self.size:,} ({why}); {self.outcome}. Download or "
            "copy the dump again."
        )

    def abort(self) -> None:
        """Stop reading: end the decompressor, close the dump."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.raw.close()

    def close(self) -> None:
        """Wait for the decompressor; a failure is the archive's (truncated, corrupt)."""
        if self.process is not None:
            self.process.stdout.close()
            error = " ".join(self.process.stderr.read().decode(errors="replace").split())
            if self.process.wait() != 0:
                self.raw.close()
                raise self.truncated(
                    f"{self.decompressor}: {error or 'exit ' + str(self.process.returncode)}"
                )
        self.raw.close()
