"""The polities of the past named by id: each is the entity its reason names, and no class tells it."""

import pytest

from probesmith.builders.sources.wikidata_past import PAST_POLITIES

from ...conftest import SHARED_DATA, slice_classes, slice_names

needs_slice = pytest.mark.skipif(
    not (SHARED_DATA / "wikidata_slice" / "entities.tsv.gz").is_file(),
    reason="shared Wikidata slice not present",
)

# classes of the past the families' class rules read (relations.PAST_POLITY_CLASSES: historical country,
# dynasty, Chinese dynasty, historical Chinese state, viceroyalty of the Spanish Empire), written out here: an
# id whose class says it already needs no entry
PAST_CLASSES = {"Q3024240", "Q164950", "Q12857432", "Q50068795", "Q20203507"}


@needs_slice
def test_each_past_polity_is_the_entity_its_reason_names():
    """The label before the reason's colon is the slice's English label of the id (a mistyped id fails)."""
    names = slice_names()
    wrong = {e: (why.split(":")[0], names.get(e, ("",))[0]) for e, why in PAST_POLITIES.items()}
    assert {e: pair for e, pair in wrong.items() if pair[0] != pair[1]} == {}


@needs_slice
def test_no_past_polity_is_told_by_a_class_of_the_past():
    """An id is listed because no class of the past tells it: none has one of ``PAST_CLASSES``."""
    classes = slice_classes()
    assert {e for e in PAST_POLITIES if classes.get(e, set()) & PAST_CLASSES} == set()
