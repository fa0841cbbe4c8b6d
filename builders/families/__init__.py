"""Probe families: one module each, found by the registry (``probesmith.builders.registry``).

wordnetqa (WordNetQA), dictionaryqa (DictionaryQA from GCIDE), relations (BEAR-style relation
sets), paraphrases (ParaRel / Cao et al. grids), rules (DepEdit-style rule cliques and knowledge
sets); bear.py reads and writes BEAR's layout. A new family is a new module here
(docs/adding-a-family.md).
"""
