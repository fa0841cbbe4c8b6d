"""Atomic, owned outputs: the one place where probesmith replaces anything on disk.

Every command that writes — ``build``, ``import``, ``export``, ``audit``, ``eval``, ``wikidata
load|snapshot``, ``data prepare`` — goes through :class:`OutputFolder` or :class:`OutputFile`::

    with OutputFolder(out, kind="build:wordnet") as staging:
        ...  # write everything into ``staging``
    # here ``out`` is the complete new folder; on any exception it is exactly as it was

What that guarantees:

* **Checked before any work.** Entering the ``with`` block checks the destination and takes its
  lock, so a bad ``--out`` is refused in milliseconds, not after a 5-minute build.
* **Only our own, and only the same kind.** An existing destination is replaced only when it is
  provably ours and of the same kind: a folder holding the marker file ``.probesmith-output.json``
  that names what wrote it (``build:wordnet``, ``eval``, ``audit``, ``export:bear``, ``store`` ...),
  or a file whose hidden sidecar ``.<name>.probesmith.json`` records its sha256. An empty folder
  may be filled. Anything else — a folder with other files, the parent of builds, a file the user
  made or edited — is refused with the path and the fix; ``force=True`` only lets one of our
  outputs of another kind (or another model's results) be replaced, never anything else.
* **Atomic.** Everything is staged in a hidden sibling (same file system), fsynced, and swapped
  in with one ``renameat2(RENAME_EXCHANGE)`` (or ``rename`` for a new destination); the previous
  copy is deleted last. A crash at any point leaves the previous output whole; the next run
  removes the leftovers (and, on file systems without the exchange call, puts back a previous
  folder that a crash left between its two renames).
* **One writer at a time.** A lock file ``.<name>.lock`` beside the destination (``flock``,
  released by the kernel when a process dies) makes a second writer fail at once with the pid
  of the first.
* **Clear failures.** A full or read-only disk, a permission problem or a file where a folder
  was asked for is an :class:`~probesmith.errors.ArtifactError` naming the path, the cause and the
  fix, and the previous output is unchanged.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import logging
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import probesmith
from probesmith.errors import ArtifactError, OutputError
from probesmith.schemas.manifest import file_sha256

log = logging.getLogger(__name__)

MARKER = ".probesmith-output.json"
_STAGING_TAG = ".tmp-"
_PREVIOUS_TAG = ".old-"
_FAILPOINT_ENV = "PROBESMITH_FAILPOINT"

#: Outputs that live inside another output and go with it (a build's ``audit/`` and ``review/``).
NESTED_OUTPUTS = ("audit", "review")

_WRITE_ERRNOS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exhausted",
    errno.EFBIG: "the file is larger than this process may write (disk or ulimit)",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a path component is a file, not a folder",
    errno.EISDIR: "the path is a folder, not a file",
    errno.ENAMETOOLONG: "the path is too long",
}


def failpoint(name: str) -> None:
    """Pause here when ``PROBESMITH_FAILPOINT`` names this point (crash-consistency tests).

    The process writes ``<name>`` to the file ``PROBESMITH_FAILPOINT_READY`` and sleeps, so a test
    can kill it at exactly this point. Costs one environment lookup otherwise.
    """
    if os.environ.get(_FAILPOINT_ENV) != name:
        return
    ready = os.environ.get(f"{_FAILPOINT_ENV}_READY")
    if ready:
        Path(ready).write_text(name)
    time.sleep(3600)


def owner_of(path: str | Path) -> dict[str, Any] | None:
    """The marker of an output probesmith wrote at ``path`` (``kind``, ``identity`` ...), or None.

    A folder is ours when it holds :data:`MARKER` with the list of what was written (a folder
    that merely looks like an output, e.g. a ``manifest.json`` with a ``family`` key, is not); a
    file is ours when its sidecar records the file's current sha256. Whether a folder of ours
    also holds something else is :func:`foreign_entries`'s question.
    """
    path = Path(path)
    if path.is_symlink():
        return None
    if path.is_dir():
        marker = _read_json(path / MARKER)
        if isinstance(marker, dict) and "kind" in marker and isinstance(marker.get("entries"), list):
            return marker
        return None
    if path.is_file():
        sidecar = _read_json(_sidecar(path))
        if isinstance(sidecar, dict) and "kind" in sidecar and sidecar.get("sha256") == file_sha256(path):
            return sidecar
    return None


def foreign_entries(folder: str | Path, marker: dict[str, Any] | None = None) -> list[str]:
    """What in our output ``folder`` its marker does not list (paths relative to ``folder``).

    Listed are the marker's ``files`` (every file the writer wrote; older markers have only the
    top-level ``entries``); a nested output (``audit/``, ``review/``) counts as listed when it is
    itself ours and holds nothing foreign, and the lock and staging leftovers of its writer too.
    """
    folder = Path(folder)
    marker = marker if marker is not None else owner_of(folder)
    if marker is None:
        return [p.name for p in sorted(folder.iterdir())]
    entries = set(marker.get("entries") or ())
    files = set(marker["files"]) if isinstance(marker.get("files"), list) else None
    foreign: list[str] = []
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if name == MARKER or _is_nested_leftover(name):
            continue
        if name in NESTED_OUTPUTS and name not in entries:
            nested = owner_of(entry)
            if nested is None:
                foreign.append(name)
            else:
                foreign += [f"{name}/{inner}" for inner in foreign_entries(entry, nested)]
            continue
        if name not in entries:
            foreign.append(name)
        elif files is not None:
            foreign += [rel for rel in _files_under(entry, folder) if rel not in files]
    return foreign


def check_not_an_input(out: str | Path, inputs: dict[str, Any], *, nested: str | None = None) -> None:
    """Refuse ``out`` when it is, holds, or lies inside an input of the same command.

    ``inputs`` maps how each input was given (``--probes``, ``FOLDER`` ...) to its path; values
    that are not existing paths (a hub id, a spec name) are skipped. ``--force`` does not change
    this: replacing or writing into what a command reads destroys or changes it. ``nested``
    names the one folder inside an input the command may write (``audit`` for ``BUILD/audit``).
    An existing ``out`` that is not probesmith's at all is left to :func:`check_destination`,
    which refuses it naming what it holds.
    """
    if _is_foreign(Path(out).expanduser()):
        return
    target = Path(os.path.realpath(Path(out).expanduser()))
    for given_as, value in inputs.items():
        if value is None or not os.path.lexists(Path(value).expanduser()):
            continue
        source = Path(os.path.realpath(Path(value).expanduser()))
        if nested and target == source / nested and source.is_dir():
            continue
        if target == source:
            how = f"is the input {given_as} {value} itself"
        elif source.is_relative_to(target):
            how = f"holds the input {given_as} {value}"
        elif target.is_relative_to(source):
            how = f"lies inside the input {given_as} {value}"
        else:
            continue
        raise OutputError(
            f"the output {out} {how}; writing there would replace or change what this command "
            f"reads, so nothing was written. Pass an output path that neither is, holds nor lies "
            f"inside {value}."
        )


def _is_foreign(out: Path) -> bool:
    """Whether ``out`` exists, is not empty and is not a probesmith output."""
    if out.is_dir() and not out.is_symlink():
        return any(_visible(out.iterdir())) and owner_of(out) is None
    return out.is_file() and owner_of(out) is None


def check_destination(
    out: str | Path,
    kind: str,
    *,
    folder: bool,
    identity: dict[str, Any] | None = None,
    force: bool = False,
) -> Path:
    """Refuse ``out`` unless writing ``kind`` there cannot lose anything; return it absolute.

    Raises :class:`ArtifactError` naming the path, what is there, and the fix.
    """
    out = Path(os.path.abspath(Path(out).expanduser()))
    what = "folder" if folder else "file"
    if out.parent == out:
        raise OutputError(f"{out} is the root of the file system; pass a {what} path inside it.")
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise OutputError(f"cannot write {out}: {parent} is a file, not a folder. Pass another path.")
    _check_writable_place(out)
    if not out.exists() and not out.is_symlink():
        return out
    if out.is_symlink():
        raise OutputError(f"{out} is a symbolic link; probesmith does not replace links. Pass another path.")
    if folder and out.is_file():
        raise OutputError(f"{out} is a file, but a folder is written there. Pass a folder path.")
    if not folder and out.is_dir():
        raise OutputError(f"{out} is a folder, but a file is written there. Pass a file path.")
    if folder and not any(_visible(out.iterdir())):
        return out
    owner = owner_of(out)
    if owner is None:
        fix = (
            f"Pass a new or empty folder (e.g. {out / 'NAME'}) with --out"
            if folder
            else "Pass another path with --out, or move the file away first"
        )
        holds = (
            f"it holds {_describe_contents(out)} that probesmith did not write"
            if folder
            else "a file probesmith did not write, or one edited since"
        )
        raise OutputError(
            f"{out} already exists and is not a probesmith output ({holds}); it would be "
            f"replaced, so nothing was written. {fix}."
        )
    if owner["kind"] != kind:
        if not force:
            raise OutputError(
                f"{out} holds a probesmith output of another kind ({owner['kind']}, not {kind}); "
                "nothing was written. Pass another --out, or --force to replace it."
            )
    elif identity is not None and owner.get("identity") not in (None, identity) and not force:
        differing = sorted(k for k in identity if (owner.get("identity") or {}).get(k) != identity[k])
        theirs = {k: (owner.get("identity") or {}).get(k) for k in differing}
        raise OutputError(
            f"{out} holds a {kind} output of something else ({theirs}); nothing was written. "
            "Pass another --out, or --force to replace it."
        )
    if folder:
        foreign = foreign_entries(out, owner)
        if foreign:
            raise OutputError(
                f"{out} is a probesmith output ({owner['kind']}) but also holds "
                f"{', '.join(foreign[:4])}{' ...' if len(foreign) > 4 else ''}, which it did not write; "
                "it would be replaced whole, so nothing was written (--force does not change this). "
                "Move those away, or pass another --out."
            )
    return out


def write_error(exc: OSError, out: Path, doing: str) -> ArtifactError:
    """An :class:`ArtifactError` for an ``OSError`` met while writing ``out``: path, cause, fix."""
    cause = _WRITE_ERRNOS.get(exc.errno or 0, exc.strerror or type(exc).__name__)
    where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
    return ArtifactError(
        f"could not {doing} {out}: {cause}{where}. Nothing there was changed; "
        "free space, fix the permissions, or pass another --out."
    )


class _Claim:
    """The destination checked, locked and cleaned of an interrupted run's leftovers."""

    def __init__(self, out, kind, *, folder, identity, force, command):
        self.kind, self.identity, self.folder, self.force = kind, identity, folder, force
        self.command = command or kind
        self.out = check_destination(out, kind, folder=folder, identity=identity, force=force)
        self.lock_path = self.out.parent / f".{self.out.name}.lock"
        self.staging = self.out.parent / f".{self.out.name}{_STAGING_TAG}{uuid.uuid4().hex[:12]}"
        self._lock_fd: int | None = None

    def acquire(self) -> None:
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self._lock_fd = _lock(self.lock_path, self.out)
            self._recover()
            # the check again, under the lock: another writer may have finished meanwhile
            check_destination(
                self.out, self.kind, folder=self.folder, identity=self.identity, force=self.force
            )
        except OSError as exc:
            self.release()
            raise write_error(exc, self.out, "prepare") from None
        except BaseException:
            self.release()
            raise

    def _recover(self) -> None:
        """Put back a previous folder a crash left mid-swap; remove stale staging copies."""
        siblings = list(self.out.parent.glob(f".{_glob_escape(self.out.name)}.*"))
        previous = sorted(p for p in siblings if p.name.startswith(f".{self.out.name}{_PREVIOUS_TAG}"))
        if previous and not self.out.exists():
            log.warning("restoring %s, left aside by an interrupted write", self.out)
            os.rename(previous[-1], self.out)
            previous = previous[:-1]
        for stale in previous + [p for p in siblings if p.name.startswith(f".{self.out.name}{_STAGING_TAG}")]:
            log.info("removing the leftovers of an interrupted write: %s", stale)
            _remove(stale)

    def release(self) -> None:
        if self._lock_fd is not None:
            _unlock(self._lock_fd, self.lock_path)
            self._lock_fd = None

    def marker(self, **extra: Any) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "identity": self.identity,
            "command": self.command,
            "written_by": f"probesmith {probesmith.__version__}",
            **extra,
        }


class _AtomicOutput:
    """Shared life cycle: claim on construction, stage in the block, commit or clean up after."""

    folder: bool

    def __init__(
        self,
        out: str | Path,
        kind: str,
        *,
        identity: dict[str, Any] | None = None,
        force: bool = False,
        command: str | None = None,
    ):
        self._claim = _Claim(out, kind, folder=self.folder, identity=identity, force=force, command=command)
        self.out = self._claim.out
        self.staging = self._claim.staging

    def __enter__(self) -> Path:
        self._claim.acquire()
        try:
            self._prepare()
        except OSError as exc:
            self._claim.release()
            raise write_error(exc, self.out, "write") from None
        return self.staging

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            if exc_type is None:
                try:
                    self._commit()
                except OSError as error:
                    raise write_error(error, self.out, "write") from None
            elif isinstance(exc, OSError) and exc.errno in _WRITE_ERRNOS:
                raise write_error(exc, self.out, "write") from None
        finally:
            for leftover in (self.staging, _sidecar(self.staging)):
                if leftover.exists():
                    _remove(leftover)
            self._claim.release()
        return False

    def _prepare(self) -> None:
        """Make the staging path ready (nothing to do for a file)."""

    def _commit(self) -> None:
        raise NotImplementedError


class OutputFolder(_AtomicOutput):
    """Write a folder atomically: ``with OutputFolder(out, kind) as staging: ...``.

    ``staging`` is an empty folder beside ``out``; when the block ends without an exception, its
    contents (plus the ownership marker) replace ``out`` in one atomic exchange. ``identity``
    (e.g. the model and build of an evaluation) must match to replace an output of the same kind
    unless ``force``.
    """

    folder = True

    def _prepare(self) -> None:
        self.staging.mkdir()

    def _commit(self) -> None:
        entries = sorted(p.name for p in self.staging.iterdir())
        files = sorted(rel for entry in self.staging.iterdir() for rel in _files_under(entry, self.staging))
        marker = self._claim.marker(entries=entries, files=files)
        (self.staging / MARKER).write_text(json.dumps(marker, indent=1, sort_keys=True) + "\n")
        _fsync_tree(self.staging)
        failpoint("swap")
        _swap(self.staging, self.out)
        _fsync_dir(self.out.parent)
        log.info("wrote %s", self.out)


class OutputFile(_AtomicOutput):
    """Write a file atomically: ``with OutputFile(out, kind) as tmp: tmp.write_bytes(...)``.

    ``tmp`` is a path beside ``out``; when the block ends without an exception it is fsynced and
    renamed over ``out``, and a hidden sidecar records its sha256, so a later run can tell that the
    file is ours (and unchanged) before replacing it.
    """

    folder = False

    def _commit(self) -> None:
        tmp = self.staging
        if not tmp.is_file():
            raise ArtifactError(f"nothing was written for {self.out}: the writer produced no file")
        _fsync_file(tmp)
        staged_sidecar = _sidecar(tmp)
        staged_sidecar.write_text(json.dumps(self._claim.marker(sha256=file_sha256(tmp)), indent=1) + "\n")
        _fsync_file(staged_sidecar)
        failpoint("swap")
        os.replace(tmp, self.out)
        os.replace(staged_sidecar, _sidecar(self.out))
        _fsync_dir(self.out.parent)
        log.info("wrote %s", self.out)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary sibling, fsync and rename (internal files: caches)."""
    tmp = path.parent / f".{path.name}{_STAGING_TAG}{uuid.uuid4().hex[:8]}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


# ---- internals ---------------------------------------------------------------------------------


def _check_writable_place(out: Path) -> None:
    """Refuse before any work when the folder that receives ``out`` (and its lock) is not writable."""
    place = out.parent
    while not place.exists() and place.parent != place:
        place = place.parent
    effective = os.access in os.supports_effective_ids
    if not os.access(place, os.W_OK | os.X_OK, effective_ids=effective):
        cause = "the file system is read-only" if _read_only_fs(place) else "permission denied"
        raise ArtifactError(
            f"cannot write {out}: {place} is not writable ({cause}); nothing was done. "
            "Pass an --out in a writable place, or fix the permissions."
        )


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _files_under(entry: Path, root: Path) -> list[str]:
    """The files (and links, and empty folders) at or under ``entry``, relative to ``root``."""
    if entry.is_symlink() or not entry.is_dir():
        return [entry.relative_to(root).as_posix()]
    found = []
    for folder, dirs, names in os.walk(entry):
        base = Path(folder)
        found += [(base / name).relative_to(root).as_posix() for name in names]
        found += [(base / d).relative_to(root).as_posix() for d in dirs if (base / d).is_symlink()]
        if not dirs and not names:
            found.append(base.relative_to(root).as_posix() + "/")
    return found


def _is_nested_leftover(name: str) -> bool:
    """A nested output writer's lock or staging copy beside it (``.audit.lock``, ``.review.tmp-*``)."""
    return any(
        name == f".{nested}.lock"
        or name.startswith((f".{nested}{_STAGING_TAG}", f".{nested}{_PREVIOUS_TAG}"))
        for nested in NESTED_OUTPUTS
    )


def _sidecar(path: Path) -> Path:
    return path.parent / f".{path.name}.probesmith.json"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _visible(paths) -> list[Path]:
    return [p for p in paths if p.name != MARKER]


def _describe_contents(folder: Path) -> str:
    names = sorted(p.name for p in folder.iterdir())
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return f"{len(names)} entr{'y' if len(names) == 1 else 'ies'} ({shown})"


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


def _remove(path: Path) -> None:
    """Remove a staging or previous copy this module created (never a user-given path)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def remove_folders_of_dead_processes(parent: Path, prefix: str) -> list[Path]:
    """Remove the folders ``parent/<prefix><pid>-*`` whose process ``pid`` no longer runs.

    Temp folders named so (slice spills) are left behind only by a killed process; a folder of a
    live process, a symlink, or a name of another shape is never touched.
    """
    removed = []
    for folder in sorted(parent.glob(_glob_escape(prefix) + "*")):
        pid = folder.name[len(prefix) :].split("-", 1)[0]
        if folder.is_dir() and not folder.is_symlink() and pid.isdigit() and not _process_alive(int(pid)):
            _remove(folder)
            removed.append(folder)
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return True


_READER_TAG = "reader "


class SharedReadLock:
    """The build's lock taken *shared* for a whole read: ``with SharedReadLock(build, "audit"): ...``.

    Readers (audit, eval, review-sample) hold it while they read a build and write their result;
    a writer replacing the build takes the same lock file (``.<name>.lock`` beside it) exclusively,
    so a rebuild during a read is refused naming the reader, and a read during a rebuild is refused
    naming the writer. Many readers may hold it at once. Where the lock file cannot be created (a
    read-only place, where no writer could replace the build either) the read goes on unlocked.
    """

    def __init__(self, path: str | Path, command: str):
        self.path = Path(path).expanduser().resolve()
        self.command = command
        self.lock_path = self.path.parent / f".{self.path.name}.lock"
        self._fd: int | None = None

    def __enter__(self) -> SharedReadLock:
        if not self.path.exists():  # nothing to lock: the reader reports the missing input itself
            return self
        while True:
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                    log.debug("not locking %s for reading: %s", self.path, exc.strerror)
                    return self
                raise write_error(exc, self.lock_path, "lock") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise ArtifactError(
                    f"{self.path} is being written by another probesmith process (pid {holder}) now; "
                    f"{self.command} read nothing and wrote nothing. Wait for it to finish, then run "
                    "again."
                ) from None
            try:  # a writer may have removed the file after we opened it: lock the live one
                if os.fstat(fd).st_ino == os.stat(self.lock_path).st_ino:
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"{_READER_TAG}{os.getpid()}".encode(), 0)
                    self._fd = fd
                    return self
            except FileNotFoundError:
                pass
            os.close(fd)

    def __exit__(self, *exc_info) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:  # the last reader out removes the lock file, as a writer does
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == os.stat(self.lock_path).st_ino:
                self.lock_path.unlink()
        except (BlockingIOError, FileNotFoundError):
            pass
        finally:
            os.close(fd)


def logical_hash_of(build: str | Path) -> str | None:
    """The ``logical_hash`` a build's manifest records now (None for a folder without one)."""
    data = _read_json(Path(build) / "manifest.json")
    return data.get("logical_hash") if isinstance(data, dict) else None


def check_unchanged(build: str | Path, read_hash: str | None, command: str) -> None:
    """Refuse to write a result of ``build`` when its logical hash is no longer the one read."""
    now = logical_hash_of(build)
    if now != read_hash:
        raise ArtifactError(
            f"{build} changed while {command} read it (logical hash {read_hash} when read, {now} now); "
            f"its result would describe another build, so nothing was written. Run {command} again."
        )


def _lock(lock_path: Path, out: Path) -> int:
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            if holder.startswith(_READER_TAG):
                raise ArtifactError(
                    f"{out} is being read by probesmith process {holder[len(_READER_TAG) :]} now "
                    "(audit, eval or review-sample); nothing was written. Wait for it to finish, "
                    "or pass another --out."
                ) from None
            raise ArtifactError(
                f"another probesmith process (pid {holder}) is writing {out} now; nothing was "
                "written. Wait for it to finish, or pass another --out."
            ) from None
        # the holder before us may have removed the file after we opened it: lock the live one
        try:
            if os.fstat(fd).st_ino == os.stat(lock_path).st_ino:
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode(), 0)
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def _unlock(fd: int, lock_path: Path) -> None:
    try:
        lock_path.unlink()
    except FileNotFoundError:
        pass
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_libc = None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2``); False where the call is unsupported."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
            _libc.renameat2  # noqa: B018 (attribute lookup: is the call there?)
        except (OSError, AttributeError):
            _libc = False
    if _libc is False:
        return False
    result = _libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap(staging: Path, out: Path) -> None:
    """Make ``staging`` the folder at ``out``; the previous one (if any) is removed last."""
    if not out.exists():
        os.rename(staging, out)
        return
    if _exchange(staging, out):
        _remove(staging)  # now holds the previous folder
        return
    previous = out.parent / f".{out.name}{_PREVIOUS_TAG}{uuid.uuid4().hex[:12]}"
    os.rename(out, previous)
    try:
        failpoint("swap-between-renames")
        os.rename(staging, out)
    except BaseException:
        os.rename(previous, out)
        raise
    _remove(previous)


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    for folder, _dirs, files in os.walk(root):
        for name in files:
            _fsync_file(Path(folder) / name)
        _fsync_dir(Path(folder))


def path_under(out: str | Path, name: str) -> Path:
    """``out / name``, refused unless it stays inside ``out``: names from data never escape ``--out``.

    ``name`` is one file name (or a relative path of plain parts) taken from data — a relation id,
    a config or task name. Absolute names, ``..`` parts and symlinks leading outside are refused.
    """
    out = Path(out)
    parts = Path(name).parts
    plain = parts and not Path(name).is_absolute() and ".." not in parts and "\x00" not in name
    if not plain or name.endswith(("/", "/.")):
        raise OutputError(
            f"the name {name!r} (from the data) is not a plain file name; nothing is written outside "
            f"{out}. Fix or drop that name in the input."
        )
    path = out / name
    resolved_out = out.resolve()
    if not path.resolve().is_relative_to(resolved_out):
        raise OutputError(
            f"{path} resolves to {path.resolve()}, outside {out}; nothing is written there. Remove the "
            "link, or fix the name in the input."
        )
    return path
