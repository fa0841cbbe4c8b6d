"""NLTK imported without its scikit-learn and SciPy bridges (builders/nltk_import.py).

Each case runs in a fresh interpreter: the test process may have imported NLTK, SciPy or scikit-learn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest


def _run(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_nltk_imports_without_scipy_stats_and_both_import_after():
    seen = _run(
        """
        import json, sys
        from probesmith.builders.nltk_import import import_nltk
        nltk = import_nltk()
        from nltk.stem.snowball import SnowballStemmer
        from nltk.stem.porter import PorterStemmer
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
        during = {name: name in sys.modules for name in ("scipy.stats", "sklearn")}
        hidden_left = [name for name, module in sys.modules.items() if module is None]
        import scipy.stats
        stems = [SnowballStemmer("english").stem(w) for w in ("baptization", "running", "geese")]
        print(json.dumps({"during": during, "hidden_left": hidden_left, "same": import_nltk() is nltk,
                          "stats_after": hasattr(scipy.stats, "norm"), "stems": stems,
                          "porter": PorterStemmer().stem("running")}))
        """
    )
    assert seen["during"] == {"scipy.stats": False, "sklearn": False}
    assert seen["hidden_left"] == []  # every hidden name shown again
    assert seen["same"] and seen["stats_after"]
    assert seen["stems"] == ["baptize", "run", "gees"] and seen["porter"] == "run"


def test_a_bridge_already_imported_is_left_as_it_is():
    seen = _run(
        """
        import json, sys
        import scipy.stats
        before = sys.modules["scipy.stats"]
        from probesmith.builders.nltk_import import import_nltk
        import_nltk()
        association = sys.modules["nltk.metrics.association"]  # (nltk.metrics names another module)
        print(json.dumps({"same": sys.modules["scipy.stats"] is before,
                          "fisher": association.fisher_exact is scipy.stats.fisher_exact}))
        """
    )
    assert seen == {"same": True, "fisher": True}


@pytest.mark.parametrize(
    "needed",
    [
        "regex",  # imported unguarded by NLTK's first modules
        "nltk.downloader",  # imported late in NLTK's __init__, after dozens of NLTK modules
    ],
)
def test_an_nltk_that_needs_a_hidden_module_is_imported_the_plain_way(needed):
    if needed == "regex":
        pytest.importorskip("regex")
    seen = _run(
        f"""
        import json, sys
        import probesmith.builders.nltk_import as nltk_import
        nltk_import.NLTK_OPTIONAL_BRIDGES = ({needed!r},)
        nltk = nltk_import.import_nltk()
        from nltk.stem.snowball import SnowballStemmer
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
        print(json.dumps({{"needed": sys.modules.get({needed!r}) is not None, "data": hasattr(nltk, "data"),
                          "stem": SnowballStemmer("english").stem("running")}}))
        """
    )
    assert seen == {"needed": True, "data": True, "stem": "run"}
