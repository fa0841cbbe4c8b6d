"""Declarative probe specs: the YAML files in this folder and the loader that reads them.

A new probe config is one YAML file here; a new probe family is one spec dataclass plus one
builder module in ``probesmith.builders``, found by the registry.
"""

from probesmith.probes.spec import (
    MultipleChoiceSpec,
    ProbeSpec,
    SplitSpec,
    bundled_spec_names,
    deep_merge,
    describe_fields,
    from_dict,
    load_spec_dict,
    load_spec_layers,
    merge_layers,
    spec_field,
    spec_to_yaml,
    to_dict,
)

__all__ = [
    "MultipleChoiceSpec",
    "ProbeSpec",
    "SplitSpec",
    "bundled_spec_names",
    "deep_merge",
    "describe_fields",
    "from_dict",
    "load_spec_dict",
    "load_spec_layers",
    "merge_layers",
    "spec_field",
    "spec_to_yaml",
    "to_dict",
]
