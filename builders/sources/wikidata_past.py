"""What the shared Wikidata slice says is of the past: polities no class tells (by id), the facts of death.

The slice gives each of these no class, only a class that today's units or standing states share, or no
date of its end, so no class rule (relations.PAST_POLITY_CLASSES, paraphrases.FORMER_STATE_CLASSES and the
like) finds it; a template or pattern in the present tense states a present that ended ("The capital of
Republic of Artsakh is Stepanakert", "Middle Francia's capital city is Aachen"). Each was read one by one
in the read named with it.

:data:`PAST_POLITIES` is the one table; the relations, paraphrases and rules families each read all of it,
so a polity of the past one family's read found is of the past in the others too.
"""

from __future__ import annotations

_NAPOLEONIC = "a Napoleonic department (twenty-sixth read: P36/P1376), no class in the slice"
_NAPOLEONIC_AS_TODAYS = "a Napoleonic department classed as today's departments of France (thirty-first read)"
_NO_CLASS_26 = "no class in the slice (twenty-sixth read: P36 subjects and P1376 objects of no P31)"
_NO_CLASS_31 = "no class in the slice (thirty-first read)"
_CROWN_COLONY = "a crown colony, a class that standing provinces share (thirty-first read)"

#: Every polity of the past the slice's classes cannot tell: id -> "label: why no class tells it".
PAST_POLITIES: dict[str, str] = {
    # the relations family's thirty-first ("The capital of Republic of Artsakh is Stepanakert") and
    # thirty-second ("Tiwanaku Empire is located in South America") reads
    "Q244165": "Republic of Artsakh: dissolved on 1 January 2024; classed 'country', 'de facto regime' in "
    "the slice",
    "Q1307407": "Tiwanaku Empire: a polity of about 500-1000 AD; no class in the slice",
    # the paraphrases family's twenty-sixth read ("Middle Francia's capital city is Aachen", "Gau East
    # Prussia has its seat of government in Kaliningrad", "Forlì, which is the capital city of Rubicon")
    "Q2705666": "Polesie Voivodeship: interwar Poland's, classed as today's voivodeships",
    "Q492437": f"Bouches-du-Weser: {_NAPOLEONIC}",
    "Q598193": f"Apennins: {_NAPOLEONIC}",
    "Q541589": f"Ems-Supérieur: {_NAPOLEONIC}",
    "Q2824441": f"Adige: {_NAPOLEONIC}",
    "Q894971": f"Bouches-de-l'Escaut: {_NAPOLEONIC}",
    "Q1270636": f"Ruhr Department: {_NAPOLEONIC}",
    "Q3446498": f"Rubicon: {_NAPOLEONIC}",
    "Q378004": f"Forêts: {_NAPOLEONIC}",
    "Q1270623": f"Meurthe: {_NAPOLEONIC}",
    "Q3479816": f"Serio: {_NAPOLEONIC}",
    "Q5527575": f"Gau East Prussia: a Nazi Gau; {_NO_CLASS_26}",
    "Q2071367": f"Reichsgau Flandern: a Nazi Gau; {_NO_CLASS_26}",
    "Q442925": f"Altmühlkreis: a Bavarian district of 1808-1837; {_NO_CLASS_26}",
    "Q2137422": f"Regenkreis: a Bavarian district of 1808-1837; {_NO_CLASS_26}",
    "Q639491": f"Lagunes region: a region of Côte d'Ivoire abolished in 2011; {_NO_CLASS_26}",
    "Q390331": f"Chaouia-Ouardigha: a region of Morocco abolished in 2015; {_NO_CLASS_26}",
    "Q590743": f"Ruanda-Urundi: {_NO_CLASS_26}",
    "Q1988079": f"Dutch colonisation of the Guianas: {_NO_CLASS_26}",
    "Q468902": f"Middle Francia: {_NO_CLASS_26}",
    "Q1018744": f"Byzacena: {_NO_CLASS_26}",
    "Q6592892": f"SAO Bosanska Krajina: {_NO_CLASS_26}",
    "Q3615645": f"Lower Volga Oblast: {_NO_CLASS_26}",
    "Q151999": f"Dauphiné: {_NO_CLASS_26}",
    "Q8735": f"Medes: {_NO_CLASS_26}",
    "Q1067513": f"Injuids: {_NO_CLASS_26}",
    "Q155578": f"Anhalt: {_NO_CLASS_26}",
    "Q809806": f"Bashkir Autonomous Soviet Socialist Republic: {_NO_CLASS_26}",
    "Q255931": f"Hariphunchai: {_NO_CLASS_26}",
    "Q2578028": f"misl: {_NO_CLASS_26}",
    "Q658161": "Neutral Municipality: of 1834-1889, classed only as some administrative unit (twenty-sixth "
    "read)",
    "Q6273074": "West Jersey: a colony, classed only as some administrative unit (twenty-sixth read)",
    # the paraphrases family's thirty-first read: classes of today's units, or none
    "Q290739": f"Sesia: {_NAPOLEONIC_AS_TODAYS}",
    "Q3514973": f"Tanaro: {_NAPOLEONIC_AS_TODAYS}",
    "Q568751": f"Mont-Tonnerre: {_NAPOLEONIC_AS_TODAYS}",
    "Q1393469": f"Jemmapes: {_NAPOLEONIC_AS_TODAYS}",
    "Q1452650": f"Ombrone: {_NAPOLEONIC_AS_TODAYS}",
    "Q2921378": f"Bouches-de-l'Èbre Department: {_NAPOLEONIC_AS_TODAYS}",
    "Q217242": "Katanga Province: a province of the Congo abolished in 2015, classed as today's "
    "(thirty-first read)",
    "Q831370": "Orientale Province: a province of the Congo abolished in 2015, classed as today's "
    "(thirty-first read)",
    "Q303645": "Moyen-Comoé: a region of Côte d'Ivoire abolished in 2011, classed as today's (thirty-first "
    "read)",
    "Q818774": f"Fromager: a region of Côte d'Ivoire abolished in 2011; {_NO_CLASS_31}",
    "Q376178": f"Straits Settlements: {_CROWN_COLONY}",
    "Q2510000": f"Colony of Vancouver Island: {_CROWN_COLONY}",
    "Q3108185": "Ba'athist Iraq: classed a republic, a state (thirty-first read)",
    "Q682318": "Swedish Pomerania: classed a territorial entity (thirty-first read)",
    "Q678658": "Kwantung Leased Territory: a concession, as Guantanamo Bay Naval Base is (thirty-first read)",
    "Q1185346": "Demerara: classed a region, once a colony (thirty-first read)",
    "Q4689103": "Transitional Islamic State of Afghanistan: classed a government agency (thirty-first read)",
    "Q4416712": "SAO Krajina: classed only as some administrative unit (thirty-first read)",
    "Q1315810": "Mexican Texas: classed a province (thirty-first read)",
    "Q2910242": "Nuevo Santander: classed a province (thirty-first read)",
    "Q8680": "British Empire: its own class (thirty-first read)",
    "Q5870215": f"Third Republic of the Philippines: of 1946-1965; {_NO_CLASS_31}",
    "Q133132": "Paris Commune: classed an organization (thirty-first read)",
    "Q3910149": f"praetorian prefecture of Africa: {_NO_CLASS_31}",
    # the paraphrases family's thirty-second read: P37 polities of no class or of a class that a standing
    # monarchy shares (sultanate: Yogyakarta)
    "Q673865": "Hohenzollern-Hechingen: a principality until 1850; no class in the slice (thirty-second "
    "read)",
    "Q157013": "Hohenzollern-Sigmaringen: a principality until 1850; no class in the slice (thirty-second "
    "read)",
    "Q3048747": "Pontianak Sultanate: classed a sultanate, as standing Yogyakarta is (thirty-second read)",
}


#: Facts only the dead have: a date of death (which the slice lacks), a place, cause or manner of death, a
#: burial. Paraphrases states no ownership in the present of an owner with one ("Neverland Ranch is owned by
#: Michael Jackson"); rules asks the facts of such a person in the past (``rules.the_dead``).
DEATH_FACTS = ("P570", "P20", "P509", "P119", "P1196")
