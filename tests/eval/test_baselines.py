import numpy as np
import polars as pl

from probesmith.eval.baselines import (
    AnswerFrequency,
    ChoiceOnly,
    ChoiceToChoice,
    FewestWords,
    LexicalOverlap,
    Longest,
    MostWords,
    NeverGold,
    Shortest,
    item_credit,
    make_baseline,
    words,
)


def frame(questions, choices, answers):
    return pl.DataFrame(
        {"question": questions, "choices": choices, "answer_index": answers},
        schema={"question": pl.String, "choices": pl.List(pl.String), "answer_index": pl.Int64},
    )


def test_ties_share_the_credit():
    assert item_credit(np.array([1.0, 3.0, 3.0]), 1) == 0.5
    assert item_credit(np.array([1.0, 3.0, 2.0]), 0) == 0.0
    assert item_credit(np.zeros(4), 2) == 0.25


def test_lexical_overlap_picks_the_choice_sharing_words():
    data = frame(["A dog is a kind of canine animal"], [["canine", "tree", "rock"]], [0])
    assert LexicalOverlap().credits(data).tolist() == [1.0]


def test_answer_frequency_is_the_majority_class():
    train = frame(["q"] * 3, [["Paris", "Rome"], ["Paris", "Oslo"], ["Rome", "Paris"]], [0, 0, 1])
    test = frame(["q", "q"], [["Rome", "Paris"], ["Oslo", "Rome"]], [1, 0])
    model = AnswerFrequency().fit(train)
    assert model.credits(test).tolist() == [1.0, 0.5]  # Paris 3x gold; Oslo and Rome never: a tie


def test_never_gold_finds_the_answer_pool_cue():
    # test golds never seen as train golds, distractors drawn from the train golds: the cue of a
    # concept-disjoint split whose random distractors come from the pool of golds
    train = frame(["q"] * 3, [["Paris", "Rome"], ["Rome", "Oslo"], ["Oslo", "Paris"]], [0, 0, 0])
    test = frame(["q", "q", "q"], [["Lima", "Paris", "Rome"], ["Oslo", "Quito"], ["Bern", "Kyiv"]], [0, 1, 0])
    assert AnswerFrequency().fit(train).credits(test).tolist() == [0.0, 0.0, 0.5]
    assert NeverGold().fit(train).credits(test).tolist() == [1.0, 1.0, 0.5]


def test_feature_models_learn_a_planted_cue_and_subset_matches():
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(50)]
    choices, answers = [], []
    for _ in range(400):
        options = [" ".join(rng.choice(vocab, 3)) for _ in range(4)]
        gold = int(rng.integers(4))
        options[gold] += " indeed"  # the cue
        choices.append(options)
        answers.append(gold)
    data = frame(["q"] * 400, choices, answers)
    train, test = data[:300], data[300:]
    assert ChoiceOnly().fit(train).credits(test).mean() > 0.9
    assert ChoiceToChoice().fit(train).credits(test).mean() > 0.6  # the gold is the longest
    model = ChoiceOnly()
    encoded = model.encode(data)
    part = encoded.subset(np.array([7, 3, 250]))
    direct = model.encode(data[[7, 3, 250]])
    for a, b in zip(
        (part.ids, part.choice_start, part.item_start, part.answers),
        (direct.ids, direct.choice_start, direct.item_start, direct.answers),
    ):
        assert np.array_equal(a, b)


def test_length_cues_pick_the_extreme_choice_and_share_ties():
    data = frame(["q", "q"], [["a bb", "ccccc", "d"], ["x y z", "uv", "w"]], [2, 0])
    assert Shortest().credits(data).tolist() == [1.0, 0.0]
    assert Longest().credits(data).tolist() == [0.0, 1.0]  # "a bb" 4 < "ccccc" 5; "x y z" is longest
    assert FewestWords().credits(data).tolist() == [0.5, 0.0]  # "ccccc" and "d": one word each
    assert MostWords().credits(data).tolist() == [0.0, 1.0]


def test_length_cues_over_every_item_of_a_real_build(small_wordnet_build):
    """Over every item of a real build: the credit is 1/k where the gold is one of k extreme choices."""
    from probesmith.eval.mcqa import load_multiple_choice

    for config, data in load_multiple_choice(small_wordnet_build.out).items():
        for name, size, pick in [
            ("shortest", len, min),
            ("longest", len, max),
            ("fewest_words", lambda t: len(words(t)), min),
            ("most_words", lambda t: len(words(t)), max),
        ]:
            credits = make_baseline(name).credits(data)
            for credit, choices, answer in zip(credits, data["choices"], data["answer_index"], strict=True):
                sizes = [size(c) for c in choices]
                extreme = [i for i, n in enumerate(sizes) if n == pick(sizes)]
                assert credit == (1 / len(extreme) if answer in extreme else 0.0), (config, name, choices)
