"""Statements tokenised once, as flat arrays, and kept for the next model with the same tokenizer.

:func:`tokenise` turns every text into token ids in one batched call of a fast tokenizer's Rust
backend (which encodes the batch in parallel), and returns them as flat numpy arrays
(:class:`Encoded`): no Python list per statement survives past the call.

:class:`TokenCache` keeps encodings so that a second model with the same tokenizer starts scoring
at once: in memory for the process (the last few encodings), and on disk where a folder is given.
``probesmith eval`` gives ``<data home>/token-cache/<build's logical hash>/`` (data home is
``$PROBESMITH_DATA`` or ``~/.local/share/probesmith``, as for the SPARQL cache), never the build
folder itself, which readers do not write. An entry's key is the tokenizer's identity (the sha256
of its full serialised definition, special tokens included) and the sha256 of the exact texts, so
another tokenizer, another option that changes the statements, or an edited build never reads
another encoding.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import logging
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

#: Encodings kept in memory per process (the most recently used).
MEMORY_ENTRIES = 8
#: The cache format; a change of the arrays' meaning bumps it.
CACHE_VERSION = 1


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: a cache key
class Encoded:
    """Token ids of many texts as flat arrays; text ``i`` is ``ids[starts[i]:starts[i + 1]]``.

    ``special`` marks special tokens (never scored); ``ends`` holds each token's end character
    offset in its text (only when asked: answer spans need it).
    """

    ids: np.ndarray  # int64, every text's tokens one after another
    special: np.ndarray  # bool, aligned with ids
    starts: np.ndarray  # int64, len(texts) + 1 offsets into ids
    ends: np.ndarray | None = None  # int64, aligned with ids

    @property
    def lengths(self) -> np.ndarray:
        """Tokens per text."""
        return np.diff(self.starts)

    def __len__(self) -> int:
        return len(self.starts) - 1

    def row(self, index: int) -> list[int]:
        """Token ids of text ``index`` as a list."""
        return self.ids[self.starts[index] : self.starts[index + 1]].tolist()


def _flat(lists, total: int, dtype) -> np.ndarray:
    return np.fromiter(itertools.chain.from_iterable(lists), dtype=dtype, count=total)


def tokenise(tokenizer, texts: list[str], offsets: bool = False) -> Encoded:
    """Every text's token ids (special tokens added), in one batched call of the tokenizer.

    A fast tokenizer's backend is called directly (the transformers wrapper costs more than the
    tokenisation itself) unless it carries padding or truncation settings of its own.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None) if getattr(tokenizer, "is_fast", False) else None
    if backend is not None and backend.padding is None and backend.truncation is None:
        encode = (
            backend.encode_batch if offsets else getattr(backend, "encode_batch_fast", backend.encode_batch)
        )
        encodings = encode(texts, add_special_tokens=True)
        ids = [e.ids for e in encodings]
        special = [e.special_tokens_mask for e in encodings]
        spans = [e.offsets for e in encodings] if offsets else None
    else:
        encoded = tokenizer(
            texts, add_special_tokens=True, return_special_tokens_mask=True, return_offsets_mapping=offsets
        )
        ids, special = encoded["input_ids"], encoded["special_tokens_mask"]
        spans = encoded["offset_mapping"] if offsets else None
    lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    starts = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    total = int(starts[-1])
    ends = None
    if spans is not None:
        pairs = itertools.chain.from_iterable(spans)  # (start, end) per token
        ends = _flat(pairs, 2 * total, np.int64)[1::2].copy()
    return Encoded(
        ids=_flat(ids, total, np.int64),
        special=_flat(special, total, np.int8).astype(bool),
        starts=starts,
        ends=ends,
    )


_IDENTITIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tokenizer_identity(tokenizer) -> str | None:
    """The sha256 of a fast tokenizer's full definition (vocabulary, merges, special tokens, steps).

    None for tokenizers without a serialisable backend: their encodings are not cached.
    """
    try:
        known = _IDENTITIES.get(tokenizer)
    except TypeError:  # not weakly referenceable
        known = None
    if known is not None:
        return known
    backend = getattr(tokenizer, "backend_tokenizer", None) if getattr(tokenizer, "is_fast", False) else None
    if backend is None:
        return None
    digest = hashlib.sha256(backend.to_str().encode())
    digest.update(repr((type(tokenizer).__name__, tokenizer.bos_token, tokenizer.bos_token_id)).encode())
    identity = digest.hexdigest()
    try:
        _IDENTITIES[tokenizer] = identity
    except TypeError:
        pass
    return identity


def texts_digest(texts: list[str]) -> str:
    """The sha256 of the texts, in order (a separator no statement holds between them)."""
    digest = hashlib.sha256()
    for start in range(0, len(texts), 65536):
        digest.update("\x00\x01".join(texts[start : start + 65536]).encode("utf-8", "surrogatepass"))
        digest.update(b"\x00\x02")
    return digest.hexdigest()


class TokenCache:
    """Encodings by (tokenizer identity, texts, offsets): in memory, and in ``folder`` when given.

    Files are ``<tokenizer identity[:16]>-<texts digest[:24]>-<offsets>.npz``, written
    atomically; a file that does not read back is ignored (and replaced).
    """

    _memory: OrderedDict = OrderedDict()

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder is not None else None
        self.hits = 0
        self.misses = 0

    def encode(self, tokenizer, texts: list[str], offsets: bool = False) -> Encoded:
        """The encoding of ``texts``: from memory, from the folder, or tokenised (and kept)."""
        identity = tokenizer_identity(tokenizer)
        if identity is None:
            self.misses += 1
            return tokenise(tokenizer, texts, offsets)
        key = f"{identity[:16]}-{texts_digest(texts)[:24]}-{int(offsets)}-v{CACHE_VERSION}"
        found = self._memory.get(key)
        if found is None and self.folder is not None:
            found = self._read(key, len(texts))
        if found is not None:
            self.hits += 1
        else:
            self.misses += 1
            found = tokenise(tokenizer, texts, offsets)
            if self.folder is not None:
                self._write(key, found)
        self._memory[key] = found
        self._memory.move_to_end(key)
        while len(self._memory) > MEMORY_ENTRIES:
            self._memory.popitem(last=False)
        return found

    @classmethod
    def clear_memory(cls) -> None:
        """Forget the encodings kept in memory (the folder's files stay)."""
        cls._memory.clear()

    def _read(self, key: str, count: int) -> Encoded | None:
        path = self.folder / f"{key}.npz"
        if not path.is_file():
            return None
        try:
            with np.load(path) as data:
                arrays = {name: data[name] for name in data.files}
            encoded = Encoded(
                ids=arrays["ids"].astype(np.int64),
                special=arrays["special"].astype(bool),
                starts=arrays["starts"].astype(np.int64),
                ends=arrays["ends"].astype(np.int64) if "ends" in arrays else None,
            )
        except (OSError, ValueError, KeyError) as exc:
            log.warning("token cache %s does not read back (%s); tokenising again", path, exc)
            return None
        if len(encoded) != count or len(encoded.ids) != encoded.starts[-1]:
            log.warning("token cache %s does not match its texts; tokenising again", path)
            return None
        return encoded

    def _write(self, key: str, encoded: Encoded) -> None:
        # deferred: probesmith.schemas imports datasets and pyarrow, which scoring needs only here
        from probesmith.schemas.output import write_bytes_atomic

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            arrays = {
                "ids": encoded.ids.astype(np.int32 if encoded.ids.max(initial=0) < 2**31 else np.int64),
                "special": encoded.special,
                "starts": encoded.starts,
            }
            if encoded.ends is not None:
                arrays["ends"] = encoded.ends.astype(np.int32)
            buffer = io.BytesIO()
            np.savez(buffer, **arrays)
            write_bytes_atomic(self.folder / f"{key}.npz", buffer.getvalue())
        except OSError as exc:  # a cache that cannot be written only costs the next run time
            log.warning("token cache not written to %s (%s); scoring goes on without it", self.folder, exc)
