"""NLTK, imported without its optional bridges to scikit-learn and SciPy's statistics.

NLTK's package ``__init__`` imports nearly every NLTK module, and two of them import scikit-learn
(``nltk.classify.scikitlearn``) and ``scipy.stats`` (``nltk.metrics.association``) where those are
installed, each inside ``try: ... except ImportError``. probesmith uses NLTK's WordNet reader and its
Snowball and Porter stemmers, none of which reads either; yet on a machine with both installed
(the dev extras' peer tools bring scikit-learn) the two bridges were ~75 of the 84 MB that importing
NLTK added to a WordNet build's memory, for the whole build. :func:`import_nltk` imports NLTK with
those two modules hidden, so NLTK takes its own fallback, and shows them again at once.
"""

from __future__ import annotations

import sys
from types import ModuleType

#: modules NLTK imports only to offer optional bridges (caught ImportError: NLTK works without them)
NLTK_OPTIONAL_BRIDGES = ("sklearn", "scipy.stats")


def import_nltk() -> ModuleType:
    """The ``nltk`` package, imported (on first use) without the modules of :data:`NLTK_OPTIONAL_BRIDGES`.

    A bridge module already imported in this process is left as it is. While NLTK imports, a hidden
    module's import raises ImportError (another thread importing one meanwhile would see that too;
    builds import from one thread). What NLTK built on them then stays unavailable in this process:
    its scikit-learn classifier wrapper, the SVM of its transition parser, SciPy's Fisher exact test
    in its association measures; probesmith calls none of them. Should an NLTK need a hidden module to
    import at all, the NLTK modules that first try loaded are dropped and NLTK is imported the plain
    way. Nothing NLTK computes for probesmith depends on it (same stems, same WordNet answers).
    """
    if "nltk" in sys.modules:
        return sys.modules["nltk"]
    loaded_before = set(sys.modules)
    hidden = [name for name in NLTK_OPTIONAL_BRIDGES if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
    try:
        import nltk
    except BaseException as exc:
        # a half-imported NLTK would be reused, half-initialised, by the next import: dropped
        for name in set(sys.modules) - loaded_before:
            if name == "nltk" or name.startswith("nltk."):
                del sys.modules[name]
        if not isinstance(exc, ImportError):
            raise
        nltk = None
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    if nltk is None:
        import nltk
    return nltk
