"""Filling templates (articles agreed, names read with "the") and the name-stem leakage rule, on
the cases reviewers found."""

import pytest

from probesmith.builders.text import (
    EnglishToolMissing,
    common_taxon_name,
    content_stems,
    english_lexicon,
    fill_template,
    filled_problem,
    is_plural_band_name,
    pattern_form,
    plural_verb,
    possessive_after_qualifier,
    shared_stems,
    takes_definite_article,
)


@pytest.mark.parametrize(
    ("template", "subject", "obj", "statement"),
    [
        ("[X] is a [Y].", "Einstein", "actor", "Einstein is an actor."),
        ("[X] is an [Y].", "Einstein", "physicist", "Einstein is a physicist."),
        ("[X] is a [Y].", "Kant", "university professor", "Kant is a university professor."),
        ("[X] is a [Y].", "Ness", "FBI agent", "Ness is an FBI agent."),
        (
            "[X]'s home venue is the [Y].",
            "Millwall F.C.",
            "The Den",
            "Millwall F.C.'s home venue is The Den.",
        ),
        (
            "The [X] crosses the [Y].",
            "The Glen Bridge",
            "Hudson River",
            "The Glen Bridge crosses the Hudson River.",
        ),
        (
            "[X] was associated with the [Y] movement.",
            "Zulma Steele",
            "Arts and Crafts movement",
            "Zulma Steele was associated with the Arts and Crafts movement.",
        ),
        (
            "The capital of [X] is [Y].",
            "American Samoa",
            "Pago Pago",
            "The capital of American Samoa is Pago Pago.",
        ),
        # names read with "the" get it; never after an article, a determiner or a possessive
        (
            "[X] is a citizen of [Y].",
            "Lewis Porter",
            "United States of America",
            "Lewis Porter is a citizen of the United States of America.",
        ),
        ("[X] works for [Y].", "Kant", "University of Vienna", "Kant works for the University of Vienna."),
        ("[X] is located in [Y].", "United Kingdom", "Europe", "The United Kingdom is located in Europe."),
        (
            "[Y] is the capital of [X].",
            "Netherlands",
            "Amsterdam",
            "Amsterdam is the capital of the Netherlands.",
        ),
        ("[X] flows into the [Y].", "Oka", "Volga River", "Oka flows into the Volga River."),  # already there
        (
            "[X] is a member of [Y].",
            "Meg White",
            "The White Stripes",
            "Meg White is a member of The White Stripes.",
        ),
        (
            "[X] was born in [Y].",
            "Catherine of Aragon",
            "Alcalá de Henares",
            "Catherine of Aragon was born in Alcalá de Henares.",
        ),
        ("[X] is a [Y].", "Harvard University", "university", "Harvard University is a university."),
        ("[X]'s house is [Y].", "Jon", "House of Zhu", "Jon's house is the House of Zhu."),
        # no article before a noun Link Grammar's dictionary lists only as uncountable
        (
            "[X] takes the form of a [Y].",
            "Bolero",
            "instrumental music",
            "Bolero takes the form of instrumental music.",
        ),
        ("[X] takes the form of a [Y].", "Tosca", "opera", "Tosca takes the form of an opera."),
        ("[X] is a [Y] player.", "Kenny G", "jazz", "Kenny G is a jazz player."),  # [Y] is no head there
        # a plural label agrees with its verb; names, titles and fields stay singular
        (
            "The [X] crosses the [Y].",
            "Preobrazhenskyi bridges",
            "Dnieper",
            "The Preobrazhenskyi bridges cross the Dnieper.",
        ),
        (
            "[X], which is named after [Y].",
            "Pauline epistles",
            "Paul the Apostle",
            "Pauline epistles, which are named after Paul the Apostle.",
        ),
        (
            "Which country is [X] located in?",
            "Pamir mountains",
            None,
            "Which country are the Pamir mountains located in?",
        ),
        (
            "What is [X]'s official language?",
            "Palestinian territories",
            None,
            "What is Palestinian territories' official language?",
        ),
        (
            "The capital of [X] is [Y].",
            "Palestinian territories",
            "Ramallah",
            "The capital of Palestinian territories is Ramallah.",
        ),
        (
            "[Y] is the specialization of [X].",
            "Fisher",
            "statistics",
            "Statistics is the specialization of Fisher.",
        ),
        ("[X] was created in [Y].", "macaroni soup", "Italy", "Macaroni soup was created in Italy."),
        (
            "[X] was detained at [Y].",
            "Karel Ančerl",
            "Theresienstadt Ghetto",
            "Karel Ančerl was detained in the Theresienstadt Ghetto.",
        ),
        (
            "[X] is part of [Y].",
            "Allegheny Plateau",
            "Appalachia",
            "The Allegheny Plateau is part of Appalachia.",
        ),
        ("[X] was created in [Y].", "iPhone 4", "Italy", "iPhone 4 was created in Italy."),
        ("[X] was written in [Y].", "Avec le temps", "French", "Avec le temps was written in French."),
        ("[X] is located in [Y].", "Niagara Falls", "New York", "Niagara Falls is located in New York."),
        # a label ending in a full stop ends the sentence: one period, not ".." (fourth read)
        (
            "[X] was a screenwriter for [Y].",
            "Blake Edwards",
            "S.O.B.",
            "Blake Edwards was a screenwriter for S.O.B.",
        ),
        ("[Y] was a language used by [X].", "A. H.", "Russian", "Russian was a language used by A. H."),
        # fifth read: the label decides a template's "the"; an appositive closes with a comma
        ("[X] is next to the [Y].", "Chicago", "Lake Michigan", "Chicago is next to Lake Michigan."),
        ("[X] is next to the [Y].", "Heidelberg", "Neckar", "Heidelberg is next to the Neckar."),
        ("[X] is next to [Y].", "Oxford", "River Thames", "Oxford is next to the River Thames."),
        ("[X] lies by the [Y].", "Baudette", "Lake of the Woods", "Baudette lies by the Lake of the Woods."),
        (
            "[X] is operated by [Y].",
            "JS Shimokita",
            "Japan Maritime Self-Defense Force",
            "JS Shimokita is operated by the Japan Maritime Self-Defense Force.",
        ),
        ("[X] is operated by [Y].", "USS Iowa", "Marine Corps", "USS Iowa is operated by the Marine Corps."),
        (
            "[X] held the noble title of [Y].",
            "Edward, the Black Prince",
            "duke",
            "Edward, the Black Prince, held the noble title of duke.",
        ),
        (
            "The title of [X] is [Y].",
            "Edward, the Black Prince",
            "duke",
            "The title of Edward, the Black Prince, is duke.",
        ),
        ("[X] was born in [Y].", "Ann Smith", "Paris, Texas", "Ann Smith was born in Paris, Texas."),
        # a title ending in its own mark closes there, no comma after it (fourteenth read)
        (
            "[X] was authored by [Y].",
            "Absalom, Absalom!",
            "William Faulkner",
            "Absalom, Absalom! was authored by William Faulkner.",
        ),
        (
            "[X] was written by [Y].",
            "If You Don't Love Me, What Do I Care?",
            "Bob Dylan",
            "If You Don't Love Me, What Do I Care? was written by Bob Dylan.",
        ),
        (  # an ordinal opens an appositive too (eighth read)
            "[X] was a member of [Y].",
            "Hussey Vivian, 3rd Baron Vivian",
            "House of Lords",
            "Hussey Vivian, 3rd Baron Vivian, was a member of the House of Lords.",
        ),
        (
            "[X] worked as a [Y].",
            "Sir Walter Calverley-Blackett, 2nd Bt.",
            "politician",
            "Sir Walter Calverley-Blackett, 2nd Bt., worked as a politician.",
        ),
        (
            "[X] is located in [Y].",
            "Washington, D.C.",
            "Illinois",
            "Washington, D.C., is located in Illinois.",
        ),
        (
            "[Y] is the capital of [X].",
            "United States",
            "Washington, D.C.",
            "Washington, D.C., is the capital of the United States.",
        ),
        ("[Y] produced [X].", "¿Quién es quién?", "Telemundo", "Telemundo produced ¿Quién es quién?"),
        (  # "that" before a name is a relative pronoun (eighth read's counts: P1412 of the paraphrases)
            "The language that [X] used is [Y].",
            "Canary Islands",
            "Spanish",
            "The language that the Canary Islands used is Spanish.",
        ),
        (
            "[X] is affiliated with [Y].",
            "Voltaire",
            "Académie Française",
            "Voltaire is affiliated with the Académie Française.",
        ),
        (
            "Which country does [X] come from?",
            "Blood, Sweat & Tears",
            None,
            "Which country does Blood, Sweat & Tears come from?",
        ),
    ],
)
def test_fill_template_reads_right(template, subject, obj, statement):
    assert fill_template(template, subject, obj) == statement
    assert filled_problem(statement, subject, obj) is None


def test_filled_problem_names_what_filling_broke_not_what_the_name_is():
    assert filled_problem("He is is here.") == "a word doubled when filled"
    assert filled_problem("It is the a thing.") == "two articles in a row when filled"
    assert filled_problem("Han Han plays voice.", "Han Han", "voice") is None
    assert filled_problem("The A-Team was created in the US.", "The A-Team", "US") is None


@pytest.mark.parametrize(
    ("subject", "obj"),
    [
        ("Ford Crown Victoria", "Ford Motor Company"),
        ("AppleWorks", "Apple Inc."),
        ("Sturnus", "Sturnidae"),
        ("Panasonic Lumix DMC-FX90", "Panasonic"),
        ("Anna of Russia", "Russian Empire"),
    ],
)
def test_leaks_by_name_stem_are_caught(subject, obj):
    assert shared_stems([subject], [obj])


def test_generic_heads_are_not_leaks():
    assert not shared_stems(["University of Oxford"], ["Harvard University"])
    assert not shared_stems(["Football Association of Wales"], ["UEFA"])
    assert content_stems("Sebastian Miczyński") == {"sebas", "miczy"}  # no split inside a word


def test_a_space_before_punctuation_is_named():
    assert filled_problem("Malayalam is the language used by Thakazhi .") == "a space before punctuation"
    assert filled_problem("Gorillaz was formed in London.", "Gorillaz", "London") is None


def test_names_known_by_their_class_take_no_article_and_no_plural():
    """A film named like a river, a species named like a plural: the caller knows them by their class."""
    assert fill_template("[X] was directed by [Y].", "Mystic River", "Clint Eastwood") == (
        "The Mystic River was directed by Clint Eastwood."
    )
    named = frozenset({"Mystic River", "Eurycea troglodytes"})
    assert fill_template("[X] was directed by [Y].", "Mystic River", "Clint Eastwood", names=named) == (
        "Mystic River was directed by Clint Eastwood."
    )
    assert fill_template("[X] is endemic to [Y].", "Eurycea troglodytes", "Texas") == (
        "Eurycea troglodytes are endemic to Texas."
    )
    assert fill_template("[X] is endemic to [Y].", "Eurycea troglodytes", "Texas", names=named) == (
        "Eurycea troglodytes is endemic to Texas."
    )


def test_lexicon_comes_from_link_grammar_and_says_what_to_install(tmp_path):
    lexicon = english_lexicon()
    assert {"music", "jazz"} <= lexicon.mass_nouns and "music" not in lexicon.singular_nouns
    assert "bridges" in lexicon.plural_nouns and {"cross", "crosses"} <= lexicon.verbs
    assert [plural_verb(v) for v in ("crosses", "empties", "is", "Was", "eventually")] == [
        "cross",
        "empty",
        "are",
        "Were",
        None,
    ]
    with pytest.raises(EnglishToolMissing, match="link-grammar-dictionaries-en"):
        english_lexicon.__wrapped__(tmp_path)


@pytest.mark.parametrize(
    ("band", "plural"),
    [
        ("The Beatles", True),
        ("Black Eyed Peas", True),
        ("The Temptations", True),
        ("Nine Inch Nails", False),  # a name opening with a number names one band
        ("Blood, Sweat & Tears", False),  # a coordination names one band
        ("Guns N' Roses", False),
        ("Bee Gees", True),  # a last word the dictionary lacks, in "-es"
        ("Texas", False),
        ("Genesis", False),
    ],
)
def test_a_band_is_plural_by_its_last_words_number_not_its_s(band, plural):
    """Fifth read: "Which country do the Nine Inch Nails come from?" came of a trailing "s"."""
    assert is_plural_band_name(band) is plural


@pytest.mark.parametrize(
    ("template", "form"),
    [
        ("[X] is located in [Y].", "sentence"),
        ("In [X], the official language is [Y].", "sentence"),
        ("[X], located in [Y].", "fragment"),
        ("[Y]'s capital city, [X].", "fragment"),
        ("[X], that is the capital of [Y].", "fragment"),
        ("the [Y] debut of [X].", "fragment"),
        ("playing as a [Y], [X].", "fragment"),
        ("[Y] and its product [X].", "fragment"),
        ("The [Y]-owned [X].", "fragment"),  # nineteenth read: a noun phrase, no verb
        ("[X] is a [Y]-language work.", "sentence"),
    ],
)
def test_pattern_form_tells_a_fragment_from_a_sentence(template, form):
    assert pattern_form(template) == form


@pytest.mark.parametrize(
    ("template", "subject", "obj", "statement"),
    [
        # seventh read: number, articles per filled object
        ("The [X] crosses the [Y].", "U.S. 40 and 59 Bridges", "Kansas River", "The U.S. 40 and 59 Bridges cross the Kansas River."),
        ("[X] is owned by [Y].", "North River Tunnels", "Amtrak", "North River Tunnels are owned by Amtrak."),
        ("[X] is performed by [Y].", "Walls and Bridges", "John Lennon", "Walls and Bridges is performed by John Lennon."),
        ("[X] has played as a [Y].", "David Bridges", "defender", "David Bridges has played as a defender."),
        ("[X] was born in [Y].", "Ruby Bridges", "Tylertown", "Ruby Bridges was born in Tylertown."),
        ("[X] takes the form of a [Y].", "The Man Who Walked Between the Towers", "song", "The Man Who Walked Between the Towers takes the form of a song."),
        ("[X] was detained at [Y].", "Edith Leffmann", "Tower of London", "Edith Leffmann was detained at the Tower of London."),
        ("[X] has worked for [Y].", "Ban Ki-moon", "United Nations", "Ban Ki-moon has worked for the United Nations."),
        ("[X] died from [Y].", "Andrew Johnson", "stroke", "Andrew Johnson died from a stroke."),
        ("[X] died due to [Y].", "Jane Wyman", "diabetes", "Jane Wyman died due to diabetes."),
        ("[X]'s death was caused by [Y].", "A", "cardiac arrest", "A's death was caused by cardiac arrest."),
        ("[X] is a follower of [Y].", "Robert Sanchez", "Catholic Church", "Robert Sanchez is a follower of the Catholic Church."),
    ],
)  # fmt: skip
def test_seventh_read_fills(template, subject, obj, statement):
    assert fill_template(template, subject, obj) == statement


def test_filled_problem_finds_a_word_doubled_across_of():
    """The seventh read's "the historic county of County Leitrim": doubled across a function word."""
    assert filled_problem("N is in the historic county of County Leitrim.", "N", "County Leitrim")
    assert filled_problem("N is in County Leitrim, a historic county.", "N", "County Leitrim") is None
    assert filled_problem("The Isle of Man is in the sea.", "Isle of Man", "sea") is None


def test_a_team_named_by_its_number_is_plural():
    """The seventh read's "49ers, which is located in": a team named by a number is plural, a band named "10cc" is not."""
    assert is_plural_band_name("San Francisco 49ers") and is_plural_band_name("Philadelphia 76ers")
    assert not is_plural_band_name("10cc") and not is_plural_band_name("Nine Inch Nails")


def test_a_label_ending_in_apostrophe_s_takes_only_an_apostrophe():
    """The eighth independent read's "Nelly's's place of death": a label ending in 's takes only '."""
    assert fill_template("[X]'s place of death was [Y].", "Nelly's", "Athens") == (
        "Nelly's' place of death was Athens."
    )
    assert (
        fill_template("[X]'s place of death was [Y].", "Nelly", "Athens")
        == "Nelly's place of death was Athens."
    )
    assert fill_template("[X]'s place of death was [Y].", "Nelly’s", "Athens").startswith("Nelly’s' place")


@pytest.mark.parametrize(
    ("template", "obj", "statement"),
    [
        (
            "[X] was associated with [Y].",
            "German Renaissance",
            "Holbein was associated with the German Renaissance.",
        ),
        ("[X] specialized in [Y].", "art of painting", "Holbein specialized in the art of painting."),
        (
            "[X] was detained at [Y].",
            "United States Penitentiary, Florence ADMAX",
            "Holbein was detained at the United States Penitentiary, Florence ADMAX.",
        ),
        ("[X] was associated with [Y].", "surrealism", "Holbein was associated with surrealism."),
        ("[X] was associated with [Y].", "Renaissance", "Holbein was associated with the Renaissance."),
    ],
)
def test_ninth_read_bare_labels_read_with_the(template, obj, statement):
    """The ninth read's bare labels take "the" by their form (a final "Renaissance", "art of ...", a
    "... Penitentiary, <place>" prison); a movement named by one word ("surrealism", and "Renaissance" alone,
    not judged) takes none."""
    assert fill_template(template, "Holbein", obj) == statement


@pytest.mark.parametrize(
    ("name", "takes_the"),
    [
        # the tenth read's bare labels: a possessive of a plural common noun is part of the name
        ("People's Republic of China", True),
        ("Children's Hospital of Philadelphia", True),
        ("Women's Army Corps", True),
        ("First Barons' War", True),
        # a singular or proper possessor is the name's own determiner
        ("St Mary's Cathedral", False),
        ("McDonald's", False),
        ("King's College", False),
        ("SVT's Christmas calendar", False),
        ("St. Bartholomew's Day massacre", True),  # a feast's name inside an event's
        # heads of roads, railways, municipalities, wars; lower-case heads
        ("Tauern Autobahn", True),
        ("Midland Railway", True),
        ("ZF Mgcawu District Municipality", True),
        ("Botkyrka Municipality", False),
        ("Livonian War", True),
        ("This Means War", False),
        ("Love After War", False),
        ("Shang dynasty", True),
        ("Tamil language", True),
        ("Zulu people", True),
        ("Brazil national football team", True),
        ("Medusa and Gorgons in popular culture", False),
        ("Trinity", True),
        # "X of Y" in lower case: a field or an event of a named thing takes "the", a role none
        ("art of painting", True),
        ("history of art", True),
        ("death of John Lennon", True),
        ("member of parliament", False),
        ("justice of the peace", False),
        # the head before a comma decides
        ("United States Penitentiary, Florence ADMAX", True),
        ("University of California, Berkeley", True),
        ("Paris, Texas", False),
        ("Fall River, Massachusetts", False),
        ("Trinity, North Carolina", False),
        ("Blood, Sweat & Tears", False),
        ("Ultima Online: Samurai Empire", False),
        # a local government area named by its kind (the twenty-fifth read: 'Shire of Yarriambiack, whose
        # capital is')
        ("Shire of Yarriambiack", True),
        ("Canton of Vaud", True),
        ("Municipality of Kiruna", True),
        ("District of Columbia", True),
        ("Prince Constantijn of the Netherlands", False),
    ],
)
def test_tenth_read_names_and_the(name, takes_the):
    from probesmith.builders.text import takes_definite_article

    assert takes_definite_article(name) is takes_the


def test_tenth_read_fills_read_with_the():
    assert fill_template("[X] is located in [Y].", "Hangzhou", "People's Republic of China") == (
        "Hangzhou is located in the People's Republic of China."
    )
    assert fill_template("[X] was founded by [Y].", "Shang", "Shang dynasty").endswith(
        "by the Shang dynasty."
    )
    assert fill_template("[X] is part of [Y].", "Ettringer Bridge", "Tauern Autobahn").endswith(
        "part of the Tauern Autobahn."
    )


@pytest.mark.parametrize(
    ("template", "subject", "obj", "statement"),
    [
        # a title's comma before a lower-case word is no appositive: no comma is added after it
        (
            "[X] was created in [Y].",
            "Goede tijden, slechte tijden",
            "Netherlands",
            "Goede tijden, slechte tijden was created in the Netherlands.",
        ),
        ("[X] was composed by [Y].", "Non, je ne regrette rien", "Charles Dumont", None),
        # an appositive or a qualifier still closes with one: "the", a title of nobility, a part of a work
        ("[X] died in [Y].", "Armand, duc d'Aiguillon", "Paris", "Armand, duc d'Aiguillon, died in Paris."),
        (
            "[X] died in [Y].",
            "Edward, the Black Prince",
            "London",
            "Edward, the Black Prince, died in London.",
        ),
        ("[X] was created in [Y].", "Ed, Edd n Eddy, season 2", "Canada", None),
        # a name plural in form takes only an apostrophe as a possessive
        ("[X]'s label is [Y].", "Absent Friends", "Parlophone", "Absent Friends' label is Parlophone."),
        ("[X]'s label is [Y].", "Genesis", "Atlantic Records", "Genesis's label is Atlantic Records."),
        # a ship titled by its navy and type, a church "of" its dedication, a facility take "the"
        (
            "[X] is a product of [Y].",
            "Japanese battleship Mikasa",
            "Vickers",
            "The Japanese battleship Mikasa is a product of Vickers.",
        ),
        (
            "[X] is in [Y].",
            "Basilica of Santa Croce",
            "Florence",
            "The Basilica of Santa Croce is in Florence.",
        ),
        (
            "[X] was detained at [Y].",
            "Iuliu Hossu",
            "Parwan Detention Facility",
            "Iuliu Hossu was detained at the Parwan Detention Facility.",
        ),
    ],
)
def test_eleventh_read_commas_possessives_and_articles(template, subject, obj, statement):
    """The eleventh read (issue 25): "Goede tijden, slechte tijden, was created", "Absent Friends's label",
    "Japanese battleship Mikasa is a product", "Basilica of Santa Croce is in", a gold "at the Sighet prison"
    beside "at Parwan Detention Facility"."""
    filled = fill_template(template, subject, obj)
    if statement is None:  # a title: no comma after it; a season: one
        assert (f"{subject}, " in filled) is subject.endswith("season 2"), filled
    else:
        assert filled == statement


@pytest.mark.parametrize(
    ("subject", "statement"),
    [
        ("The Bahamas", "The Bahamas' capital is Nassau."),
        ("Bahamas", "The Bahamas' capital is Nassau."),  # read with "the": a plural name
        ("Netherlands", "The Netherlands' capital is Nassau."),
        ("The Beatles", "The Beatles' capital is Nassau."),
        ("Greatest Hits", "Greatest Hits' capital is Nassau."),
        ("The Chi-Lites", "The Chi-Lites' capital is Nassau."),
        ("Martha and the Vandellas", "Martha and the Vandellas' capital is Nassau."),
        ("Diana Ross & the Supremes", "Diana Ross & the Supremes' capital is Nassau."),
        # singular names in "s": "ss", "us", "is", no "the", or an "of" before the last word
        ("The Boss", "The Boss's capital is Nassau."),
        ("Texas", "Texas's capital is Nassau."),
        ("Genesis", "Genesis's capital is Nassau."),
        ("University of Texas", "The University of Texas's capital is Nassau."),
    ],
)
def test_twelfth_read_possessive_of_a_plural_proper_name(subject, statement):
    """The twelfth read (issue 25): "The Bahamas's capital is Nassau" -> "The Bahamas' capital"."""
    assert fill_template("[X]'s capital is [Y].", subject, "Nassau") == statement


@pytest.mark.parametrize(
    ("subject", "statement"),
    [
        ("1910 Australasian Championships", "The 1910 Australasian Championships are in Adelaide."),
        ("1972 Summer Paralympics", "The 1972 Summer Paralympics are in Adelaide."),
        ("23rd European Film Awards", "The 23rd European Film Awards are in Adelaide."),
        ("2003 World Snooker Championship", "The 2003 World Snooker Championship is in Adelaide."),
        ("32nd Chess Olympiad", "The 32nd Chess Olympiad is in Adelaide."),
        ("2006 Swedish general election", "The 2006 Swedish general election is in Adelaide."),
        ("Nika riots", "The Nika riots are in Adelaide."),
        ("Gordon Riots", "The Gordon Riots are in Adelaide."),
        (
            "29 September 2008 western India bombings",
            "The 29 September 2008 western India bombings are in Adelaide.",
        ),
        ("4th of August Regime", "The 4th of August Regime is in Adelaide."),
        # no edition of an event: a title, a name after an ordinal, a store, a work in the plural
        ("2001: A Space Odyssey", "2001: A Space Odyssey is in Adelaide."),
        ("21st Century Fox", "21st Century Fox is in Adelaide."),
        ("42nd Street", "42nd Street is in Adelaide."),
        ("63rd and Malvern Loop", "63rd and Malvern Loop is in Adelaide."),
        ("9th Street-Congress Street", "9th Street-Congress Street is in Adelaide."),
        ("Dunnes Stores", "Dunnes Stores is in Adelaide."),
        ("Star Wars", "Star Wars is in Adelaide."),
        ("Mind Games", "Mind Games is in Adelaide."),
    ],
)
def test_thirteenth_read_an_events_edition_takes_the_and_its_plural(subject, statement):
    """The thirteenth read (issue 25): "1910 Australasian Championships is in Adelaide" (number and article)."""
    assert fill_template("[X] is in [Y].", subject, "Adelaide") == statement


@pytest.mark.parametrize(
    ("subject", "statement"),
    [
        ("Museum of Aviation", "The Sony-owned Museum of Aviation."),
        ("The Tabernacle", "The Sony-owned Tabernacle."),
        ("Sterling Memorial Library", "The Sony-owned Sterling Memorial Library."),
    ],
)
def test_thirteenth_read_no_second_article_after_a_slot_modifier(subject, statement):
    """A name after the other slot's modifier takes no "the" of its own: the phrase has one ("The [Y]-owned
    the Museum of Aviation", 88 grid statements of the v13 build)."""
    assert fill_template(fill_template("The [Y]-owned [X].", subject), obj="Sony") == statement


@pytest.mark.parametrize(
    ("template", "subject", "obj", "statement"),
    [
        (
            "[X] was a part of [Y].",
            "Peter Orlovsky",
            "Beat Generation",
            "Peter Orlovsky was a part of the Beat Generation.",
        ),
        (
            "[X] was a part of [Y].",
            "Dante Gabriel Rossetti",
            "Pre-Raphaelite Brotherhood",
            "Dante Gabriel Rossetti was a part of the Pre-Raphaelite Brotherhood.",
        ),
        (
            "[X] was a part of [Y].",
            "Gustav Klimt",
            "Vienna Secession",
            "Gustav Klimt was a part of the Vienna Secession.",
        ),
        ("[X] was a part of [Y].", "Salvador Dalí", "surrealism", "Salvador Dalí was a part of surrealism."),
        (
            "[X] was made by [Y].",
            "Magdeburg-class cruiser",
            "AG Weser",
            "The Magdeburg-class cruiser was made by AG Weser.",
        ),
        (
            "[X] was made by [Y].",
            "Virginia class cruiser",
            "AG Weser",
            "The Virginia class cruiser was made by AG Weser.",
        ),
        (
            "[X] was made by [Y].",
            "Go Jun Bong class LST",
            "AG Weser",
            "The Go Jun Bong class LST was made by AG Weser.",
        ),
        (
            "[X] was made by [Y].",
            "British Rail Class 390",
            "Alstom",
            "The British Rail Class 390 was made by Alstom.",
        ),
        ("[X] was made by [Y].", "DRG Class ET 167", "AEG", "The DRG Class ET 167 was made by AEG."),
        (
            "[X] was made by [Y].",
            "GWR 1016 Class",
            "Swindon Works",
            "The GWR 1016 Class was made by Swindon Works.",
        ),
        ("[X] was made by [Y].", "Type 209 submarine", "HDW", "The Type 209 submarine was made by HDW."),
        ("[X] was made by [Y].", "BMW X5", "BMW", "BMW X5 was made by BMW."),
        (
            "[X] was performed by [Y].",
            "Working Class Hero",
            "John Lennon",
            "Working Class Hero was performed by John Lennon.",
        ),
        (
            "[X] was performed by [Y].",
            "World Class",
            "John Lennon",
            "World Class was performed by John Lennon.",
        ),
        ("[X] worked for [Y].", "Charles Issawi", "IBM", "Charles Issawi worked for IBM."),
        # a group's head before "of" or after a possessive is a title's or a band's word
        (
            "[X] was a member of [Y].",
            "Taeyeon",
            "Girls' Generation",
            "Taeyeon was a member of Girls' Generation.",
        ),
        (
            "The language of [X] was [Y].",
            "Brotherhood of the Wolf",
            "French",
            "The language of Brotherhood of the Wolf was French.",
        ),
        (
            "[X] was a member of [Y].",
            "Hassan al-Banna",
            "Muslim Brotherhood",
            "Hassan al-Banna was a member of the Muslim Brotherhood.",
        ),
    ],
)
def test_fifteenth_read_movements_and_classes_of_vehicles_take_the(template, subject, obj, statement):
    """The fifteenth read (issue 25): "was a part of Beat Generation", "Magdeburg-class cruiser was made by AG
    Weser" (a movement named as a group of people and a class of ships take "the"; a title, a car model and a
    firm's initialism do not)."""
    assert fill_template(template, subject, obj) == statement


@pytest.mark.parametrize(
    ("label", "is_event"),
    [
        ("2005 Beach Volleyball World Championships", True),
        ("Battle of Voltri", True),
        ("murder of Neveah Gallegos", True),
        ("Operation Flash", True),
        ("Concordia University massacre", True),
        ("Tartu Offensive", True),
        ("Ben Yehuda Street bombings", True),
        ("Treaty of Versailles", True),
        ("163rd Infantry Division", False),
        ("6th of October Governorate", False),
        ("32nd Indiana Monument", False),
        ("Smith Tower", False),
        ("This Means War", False),
        ("Outfest", False),
        ("Battle Creek", False),
    ],
)
def test_fifteenth_read_event_names(label, is_event):
    """``event_name``: the names the fifteenth read's P276 tense fix reads as events ("The 2005 Beach
    Volleyball World Championships are in Berlin"), and units, places and titles it does not."""
    from probesmith.builders.text import event_name

    assert event_name(label) is is_event


@pytest.mark.parametrize(
    ("template", "subject", "obj", "expected"),
    [
        (
            "[X] has its highest point at [Y].",
            "Faroe Islands",
            "Slættaratindur",
            "The Faroe Islands have their highest point at Slættaratindur.",
        ),
        ("[X] has its highest point at [Y].", "Netherlands", "Vaalserberg", "The Netherlands has its highest point at Vaalserberg."),
        (
            "[X] is located in [Y].",
            "Channel Key",
            "Great White Heron National Wildlife Refuge",
            "Channel Key is located in the Great White Heron National Wildlife Refuge.",
        ),
        ("[X] is located in [Y].", "Mount X", "Lassen Volcanic Wilderness", "Mount X is located in the Lassen Volcanic Wilderness."),
        ("[X] is located in [Y].", "Y", "Denali National Preserve", "Y is located in the Denali National Preserve."),
        ("[X] is located in [Y].", "Y", "Katmai National Park and Preserve", "Y is located in Katmai National Park and Preserve."),
        ("[X] is set in [Y].", "Twilight in the Wilderness", "Z", "Twilight in the Wilderness is set in Z."),
        # read over every grid statement of the v17 build: "its" later in the clause, a work and a ship so named
        ("[X] uses [Y] as its official language.", "Falkland Islands", "English", "The Falkland Islands use English as their official language."),
        ("[X] was originally created in [Y].", "Battle of Highlands", "Japan", "The Battle of Highlands was originally created in Japan."),
        ("[X] is produced by [Y].", "USS Admiralty Islands", "Kaiser", "The USS Admiralty Islands is produced by Kaiser."),
    ],
)  # fmt: skip
def test_sixteenth_read_protected_areas_take_the_and_plural_islands_agree(template, subject, obj, expected):
    """The sixteenth read's "located in Great White Heron National Wildlife Refuge" and "The Faroe Islands has
    its highest point"; a country plural in form ("the Netherlands") keeps the singular, a title keeps no "the"."""
    assert fill_template(template, subject, obj) == expected


def _slice_labels() -> list[str]:
    """Every English label of the shared slice, read from its TSV apart from the builders."""
    import gzip

    from ..conftest import SHARED_DATA

    with gzip.open(SHARED_DATA / "wikidata_slice" / "entities.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        return [line.split("\t")[1] for line in fh if line.split("\t")[1]]


def test_seventeenth_read_foreign_academies_and_fortresses_take_the():
    """Over every label of the slice: an academy named in its own language whose head (Akademie, Academia,
    Académie, Accademia) comes before a particle of that language ("a member of the Koninklijke Nederlandse
    Akademie van Wetenschappen", the seventeenth read: no "the"), and a fortress named by a place, a word no
    English dictionary holds, before "Fortress", every word capitalised ("detained at the Theresienstadt Small
    Fortress"), take "the"; a title ("Kabaneri of the Iron Fortress", "Avadon: The Black Fortress"), one of English words ("Hero Fortress", a game) and an academy with no particle ("Academia Sinica")
    are left as they were."""
    heads = {"Akademie", "Academia", "Académie", "Accademia"}
    particles = {"van", "der", "des", "de", "di", "della", "du", "del", "da", "do", "dos"}
    known = english_lexicon().known
    academies, fortresses, wrong = 0, 0, []
    for label in _slice_labels():
        words = label.split()
        at = next((i for i, w in enumerate(words) if w in heads), None)
        if at is not None and particles & set(words[at + 1 :]) and words[0] not in ("La", "The"):
            academies += 1
            if not takes_definite_article(label):
                wrong.append(label)
        if (
            len(words) >= 2
            and words[-1] == "Fortress"
            and words[0].lower() not in known
            and label.istitle()
            and ":" not in label
        ):
            fortresses += 1
            if not takes_definite_article(label):
                wrong.append(label)
    assert academies >= 5 and fortresses >= 5 and wrong == [], wrong
    assert not takes_definite_article("Hero Fortress") and not takes_definite_article("Academia Sinica")
    statement = fill_template(
        "[X] is a member of the [Y].",
        "Jacques-Louis David",
        "Koninklijke Nederlandse Akademie van Wetenschappen",
    )
    assert (
        statement
        == "Jacques-Louis David is a member of the Koninklijke Nederlandse Akademie van Wetenschappen."
    )


def test_seventeenth_read_no_possessive_after_a_comma_qualified_name():
    """ "Juan Prim, 1st Marquis of los Castillejos's place of death" puts the possessive on the title: the fill
    writes it with "of" (the thirty-first read: 45 paraphrases grid rows), and ``possessive_after_qualifier``
    still tells a statement that keeps one; the other forms read."""
    label = "Juan Prim, 1st Marquis of los Castillejos"
    possessive = fill_template("[X]'s place of death was [Y].", label, "Madrid")
    assert possessive == "The place of death of Juan Prim, 1st Marquis of los Castillejos, was Madrid."
    assert not possessive_after_qualifier(possessive, label)
    assert possessive_after_qualifier(f"{label}'s place of death was Madrid.", label)
    died = fill_template("[X] died in [Y].", label, "Madrid")
    assert died == "Juan Prim, 1st Marquis of los Castillejos, died in Madrid."
    assert not possessive_after_qualifier(died, label)
    assert not possessive_after_qualifier(
        fill_template("[X]'s place of death was [Y].", "Juan Prim"), "Juan Prim"
    )


@pytest.mark.parametrize(
    "template, subject, obj, statement",
    [
        # the twenty-sixth read: a ghetto takes "in", a possessive is its label's determiner, heads read with "the"
        (
            "[X] was detained at [Y].",
            "Edmund Speyer",
            "Łódź Ghetto",
            "Edmund Speyer was detained in the Łódź Ghetto.",
        ),
        (
            "[X] is a part of the [Y] series.",
            "Five Little Pigs",
            "Agatha Christie's Poirot",
            "Five Little Pigs is a part of Agatha Christie's Poirot series.",
        ),
        (
            "[X] was loyal to [Y].",
            "International Brigades",
            "Spain",
            "The International Brigades were loyal to Spain.",
        ),
        (
            "[X] lies within [Y].",
            "Taunton River Watershed",
            "Massachusetts",
            "The Taunton River Watershed lies",
        ),
        (
            "[Y] is where [X] was found.",
            "9380 Mâcon",
            "Côte d'Azur Observatory",
            "The Côte d'Azur Observatory is",
        ),
        (
            "[X] is owned by [Y].",
            "Kew Gardens station",
            "Long Island Rail Road",
            "owned by the Long Island Rail",
        ),
        ("[X] is in [Y].", "Lanín", "Araucanía Region", "Lanín is in the Araucanía Region."),
        (
            "[X] is in [Y].",
            "Chopin's Piano",
            "National Museum in Warsaw",
            "is in the National Museum in Warsaw.",
        ),
    ],
)
def test_twenty_sixth_read_fills(template, subject, obj, statement):
    assert statement in fill_template(template, subject, obj)


@pytest.mark.parametrize(
    "label, aliases, common",
    [
        ("Black Redstart", (), True),
        ("orangequit", (), True),
        ("Pig", (), True),
        ("Fur seal", (), True),
        ("Monkey goby", (), True),
        ("Reticulate whipray", (), True),
        ("Common milkwort", (), True),
        ("Pointed-snout wrasse", (), True),
        ("Coix lacryma-jobi var. ma-yuen", (), False),
        ("Parnassius acco", (), False),
        ("European seabass", (), True),
        ("Smearwort", (), True),
        ("Timothy-grass", (), True),
        ("Chocolate gourami", ("Sphaerichthys osphromenoides",), True),
        ("Eurycea troglodytes", (), False),
        ("Homo sapiens", (), False),
        ("Magnolia kobus", ("Magnolia praecocissima",), False),
        ("Nematobrycon palmeri", ("emperor tetra",), False),
    ],
)
def test_common_taxon_name_tells_an_english_name_from_a_scientific_one(label, aliases, common):
    assert common_taxon_name(label, aliases) is common


@pytest.mark.parametrize(
    ("template", "subject", "obj", "statement"),
    [
        # the twenty-eighth read's P30 subjects: a plural of natural features agrees in the plural, bare
        ("[X] is located in [Y].", "Seavers Nunataks", "Antarctica", "Seavers Nunataks are located in Antarctica."),
        ("[X] is situated in [Y].", "Walker Rocks", "Antarctica", "Walker Rocks are situated in Antarctica."),
        ("[X] is a part of [Y].", "Cannonball Cliffs", "Antarctica", "Cannonball Cliffs are a part of Antarctica."),
        ("Which continent is [X] located on?", "Atna Peaks", None, "Which continent are Atna Peaks located on?"),
        # a title, a ship, a town's or a person's plural-looking name stays singular
        ("[X] is set in [Y].", "Water Drops on Burning Rocks", "Z", "Water Drops on Burning Rocks is set in Z."),
        ("[X] was produced by [Y].", "The Cosmos Rocks", "Queen", "The Cosmos Rocks was produced by Queen."),
        ("[X] is located in [Y].", "Council Bluffs", "Iowa", "Council Bluffs is located in Iowa."),
        ("[X] is located in [Y].", "Mammoth Lakes", "California", "Mammoth Lakes is located in California."),
        ("[X] was educated at [Y].", "Alicia Keys", "Z", "Alicia Keys was educated at Z."),
        # the twenty-ninth read's P59 pair of galaxies; a title's "and" stays singular
        ("[X] belongs to the [Y] constellation.", "NGC 935 and IC 1801", "Aries", "NGC 935 and IC 1801 belong to"),
        ("[X] was written by [Y].", "Pride and Prejudice", "Jane Austen", "Pride and Prejudice was written by"),
        ("[X] was made by [Y].", "KKP 1 and 2", "Z", "KKP 1 and 2 was made by Z."),
        # the twenty-ninth read's P403: a creek takes no "the" of the template's
        ("The [X] flows into [Y].", "Big Sucker Creek", "Z", "Big Sucker Creek flows into Z."),
        ("The [X] flows into [Y].", "Rhine", "North Sea", "The Rhine flows into the North Sea."),
        # the thirty-first read's P206: a bay named "X Bay" takes no "the", "the Bay of Bengal" keeps it
        ("[X] lies in the [Y].", "Parry Islands", "Hudson Bay", "Parry Islands lie in Hudson Bay."),
        ("[X] lies in the [Y].", "Andaman Islands", "Bay of Bengal", "lie in the Bay of Bengal."),
    ],
)  # fmt: skip
def test_twenty_ninth_read_plural_features_pairs_and_creeks(template, subject, obj, statement):
    assert statement in fill_template(template, subject, obj)


@pytest.mark.parametrize(
    ("label", "plural"),
    [
        ("Indiana Pacers", True),
        ("Los Angeles Lakers", True),
        ("Miami Heat", False),
        ("Olimpia Milano", False),
        ("The Chi-Lites", True),
        ("The Dixie Bee-Liners", True),
        ("Jay-Z", False),
    ],
)
def test_twenty_ninth_read_a_team_named_by_an_agent_noun_in_ers_is_plural(label, plural):
    """The twenty-ninth read's "Indiana Pacers was an occupant of": "pacers" is no word of the dictionary; the
    twenty-eighth's "The Chi-Lites was created in": a hyphenated last word is read by its last part."""
    assert is_plural_band_name(label) is plural


def test_twenty_eighth_read_hills_known_by_their_class_agree_in_the_plural_with_no_the():
    """The label rule leaves "Hills" out ("Beverly Hills is a city"); a caller that knows the class passes them."""
    template = "[X] is located in [Y]."
    hills = frozenset({"Quartz Hills"})
    assert fill_template(template, "Quartz Hills", "Antarctica", plural_features=hills) == (
        "Quartz Hills are located in Antarctica."
    )
    assert fill_template(template, "Beverly Hills", "California") == "Beverly Hills is located in California."
