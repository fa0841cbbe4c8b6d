import pytest

from probesmith.builders.registry import load_spec
from probesmith.errors import SpecError
from probesmith.probes.spec import bundled_spec_names, spec_to_yaml, to_dict


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_bundled_specs_load_and_are_frozen():
    assert {"wordnet", "dictionary"} <= set(bundled_spec_names())
    spec = load_spec("wordnet")
    assert spec.family == "wordnet" and spec.max_hops == 4 and spec.distractors.count == 4
    with pytest.raises(AttributeError):
        spec.seed = 3  # frozen


def test_include_merges_nested_keys_and_seed_override(tmp_path):
    path = write(
        tmp_path, "shallow.yaml", "include: wordnet\nname: shallow\ndistractors:\n  sister_depth: 1\n"
    )
    spec = load_spec(path, seed=7)
    assert spec.name == "shallow" and spec.seed == 7
    assert spec.distractors.sister_depth == 1
    # inherited (hyponymy: no sister slot since v9)
    assert spec.distractors.mix == {"popular": 1, "random": 1}


def test_a_mapping_value_is_replaced_whole_not_merged(tmp_path):
    path = write(
        tmp_path, "mix.yaml", "include: wordnet\nname: m\ndistractors:\n  mix: {sister: 3, random: 1}\n"
    )
    spec = load_spec(path)
    assert spec.distractors.mix == {"sister": 3, "random": 1}
    assert spec.distractors.sister_depth == 2  # the section itself still merges


def test_unknown_key_suggests_the_right_one(tmp_path):
    path = write(tmp_path, "typo.yaml", "include: wordnet\nmax_hop: 3\n")
    with pytest.raises(SpecError, match=r"unknown key 'max_hop' \(did you mean 'max_hops'\?\)"):
        load_spec(path)


def test_nested_unknown_key_names_its_place(tmp_path):
    path = write(tmp_path, "typo.yaml", "include: wordnet\ndistractors:\n  sister_dept: 1\n")
    with pytest.raises(SpecError, match=r"distractors: unknown key 'sister_dept'.*sister_depth"):
        load_spec(path)


@pytest.mark.parametrize(
    "body, message",
    [
        ("max_hops: four\n", r"max_hops: expected an integer"),
        ("probes: [hypernymy, meronymy]\n", r"'meronymy' is not one of"),
        ("distractors:\n  mix: {sister: -1, random: 1}\n", r"distractors.mix must give a non-negative"),
        ("distractors:\n  mix: {sister: 0}\n", r"positive weight to at least one"),
        (
            "distractors:\n  mix_by_probe: {synonymy: {popular: 1, random: 1}}\n",
            r"mix_by_probe.synonymy asks for popular.*only hypernymy and hyponymy",
        ),
        ("distractors:\n  mix_by_probe: {meronymy: {random: 1}}\n", r"unknown probe 'meronymy'"),
        ("distractors:\n  mix: {sister: 2, cousin: 1, random: 1}\n", r"unknown type 'cousin'"),
        ("framings:\n  hypernymy: ['Is it {colour}?']\n", r"must use \{word\}"),
        ("concepts: [noun]\n", r"concepts must be a mapping"),
        (
            "framings:\n  hypernimy: ['a {word}']\n",
            r"framings: unknown key 'hypernimy' \(did you mean 'hypernymy'\?\)",
        ),
    ],
)
def test_bad_values_are_named(tmp_path, body, message):
    path = write(tmp_path, "bad.yaml", "include: wordnet\n" + body)
    with pytest.raises(SpecError, match=message):
        load_spec(path)


def test_unknown_family_and_missing_spec(tmp_path):
    with pytest.raises(SpecError, match=r"unknown probe family 'wordnt' \(did you mean 'wordnet'\?\)"):
        load_spec(write(tmp_path, "f.yaml", "family: wordnt\nname: x\n"))
    with pytest.raises(SpecError, match=r"neither a file nor a bundled spec \(did you mean 'wordnet'\?\)"):
        load_spec("wordnett")


def test_invalid_yaml_and_include_cycle(tmp_path):
    with pytest.raises(SpecError, match="not valid YAML"):
        load_spec(write(tmp_path, "broken.yaml", "family: [wordnet\n"))
    write(tmp_path, "a.yaml", "include: b.yaml\n")
    write(tmp_path, "b.yaml", "include: a.yaml\n")
    with pytest.raises(SpecError, match="includes itself"):
        load_spec(tmp_path / "a.yaml")


def test_resolved_spec_round_trips_through_yaml(tmp_path):
    spec = load_spec("dictionary")
    again = load_spec(write(tmp_path, "again.yaml", spec_to_yaml(spec)))
    assert to_dict(again) == to_dict(spec)


def test_a_mix_set_by_a_spec_is_the_mix_of_every_probe(tmp_path):
    # the default spec has per-probe mixes; a spec that sets `mix` alone means it for all probes
    base = load_spec("wordnet")
    assert base.distractors.mix_for("hypernymy") != base.distractors.mix_for("hyponymy")
    mine = load_spec(
        write(tmp_path, "mine.yaml", "include: wordnet\ndistractors:\n  mix: {sister: 3, random: 1}\n")
    )
    assert all(mine.distractors.mix_for(p) == {"sister": 3, "random": 1} for p in mine.probes)
    both = load_spec(
        write(
            tmp_path,
            "both.yaml",
            "include: wordnet\ndistractors:\n  mix: {sister: 3, random: 1}\n"
            "  mix_by_probe: {hyponymy: {opposite: 1}}\n",
        )
    )
    assert both.distractors.mix_for("hyponymy") == {"opposite": 1}
    assert both.distractors.mix_for("hypernymy") == {"sister": 3, "random": 1}
    # another key of the section leaves the included per-probe mixes alone
    other = load_spec(write(tmp_path, "other.yaml", "include: wordnet\ndistractors:\n  sister_depth: 1\n"))
    assert other.distractors.mix_by_probe == base.distractors.mix_by_probe
