"""probesmith: knowledge-probing datasets for language models, built reproducibly.

The distribution is one package with four roles:

* ``probesmith.builders`` — read sources (WordNet, GCIDE, Wikidata) and build probe tables;
* ``probesmith.schemas``  — Arrow schemas, validation, Parquet I/O, manifests, dataset cards;
* ``probesmith.probes``   — declarative YAML specs and the dataclasses that load them;
* ``probesmith.eval``     — scoring, metrics and the partial-input artifact audit.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("probesmith")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
