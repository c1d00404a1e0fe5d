"""Concept cards (cell L-6): questions with no number to compute, each aimed at one misconception.

The cards are data, in ``templates/concepts/l6.<lang>.toml`` (one file per language, the same card
ids, topics, levels and wrong-belief keys in each). A card becomes a `Problem` like this:

    question            the card's question
    solution.answer     the card's answer (one or two sentences)
    solution.steps      one prose step, "Reason" / "Wajah", whose why-line is the mechanism, then
                        the card's worked number, computed by the engine on numbers drawn until
                        they show what the card claims (`quizgen.problems.concept_examples`)
    solution.verify     one line per wrong belief: the belief and why it fails
    solution.trap       the misconception the card targets
    answers             {"concept": <card id>}

The wrong beliefs are also the options of a multiple-choice card (its writer,
`quizgen.render.writers.concepts`, offers the answer plus the beliefs: value = card id for the
right one, the belief's key for the others). Levels: 1 basic facts, 2 mechanisms, 3 subtle points and traps; a level's
candidates are its cards, so seeds 0…N−1 of a level with N cards give every card once.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from typing import Any, Iterator

from quizgen.errors import QuizgenError
from quizgen.gpus import GPU
from quizgen.engine.derivation import Step
from quizgen.problems.base import LEVELS, Family, Misconception, Solved
from quizgen.problems import specs as sp
from quizgen.problems.registry import register

#: The topics a card may belong to (section [topics] of each file names them per language).
TOPICS = ("occupancy", "latency", "warps", "divergence", "memory", "optimisation", "grid")

#: The language whose file fixes the card order and levels (every language must agree with it).
CANONICAL_LANG = "en"

_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_CARD_TEXT = ("question", "answer", "reason", "trap")


@dataclass(frozen=True, slots=True)
class WrongBelief:
    """A plausible wrong belief about a card's question, and why it fails."""

    key: str
    belief: str
    why_wrong: str


@dataclass(frozen=True, slots=True)
class ConceptCard:
    id: str
    topic: str
    level: int
    question: str
    answer: str
    reason: str
    trap: str
    wrong: tuple[WrongBelief, ...]
    #: the kind of its worked number (`quizgen.problems.concept_examples.KINDS`, or "none"),
    #: named in the canonical language's file
    example: str = "none"


@dataclass(frozen=True, slots=True)
class CardDeck:
    """All cards of one language, plus the fixed words their problems are written with."""

    lang: str
    cards: dict[str, ConceptCard]
    topics: dict[str, str]
    title: str            # with a {topic} placeholder
    reason_title: str
    wrong_line: str       # with {belief} and {why_wrong} placeholders
    forecasts: tuple[str, ...]


def _fail(path_name: str, where: str, message: str) -> QuizgenError:
    return QuizgenError(f"{path_name}: {where}: {message}", field="card")


def _text(table: dict[str, Any], key: str, path_name: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _fail(path_name, where, f"{key!r} must be a non-empty string")
    return value.strip()


def _parse_card(raw: dict[str, Any], path_name: str, index: int,
                canonical: bool = True) -> ConceptCard:
    """One card of a file; only the canonical language's file names its worked number
    (``example``), which a translation need not repeat."""
    card_id = raw.get("id")
    where = f"card {card_id!r}" if isinstance(card_id, str) else f"card #{index + 1}"
    if not isinstance(card_id, str) or not _ID.match(card_id):
        raise _fail(path_name, where, "'id' must be kebab-case (lower-case words joined by '-')")
    topic = raw.get("topic")
    if topic not in TOPICS:
        raise _fail(path_name, where, f"topic {topic!r} is not one of {', '.join(TOPICS)}")
    level = raw.get("level")
    if isinstance(level, bool) or level not in LEVELS:
        raise _fail(path_name, where, f"level {level!r} is not one of {LEVELS}")
    texts = {key: _text(raw, key, path_name, where) for key in _CARD_TEXT}
    wrong = []
    for raw_wrong in raw.get("wrong", []):
        key = raw_wrong.get("key")
        if not isinstance(key, str) or not _ID.match(key):
            raise _fail(path_name, where, f"wrong-belief key {key!r} must be kebab-case")
        wrong.append(WrongBelief(key, _text(raw_wrong, "belief", path_name, f"{where}, {key}"),
                                 _text(raw_wrong, "why_wrong", path_name, f"{where}, {key}")))
    keys = [w.key for w in wrong]
    if len(set(keys)) != len(keys) or card_id in keys:
        raise _fail(path_name, where, "wrong-belief keys must be distinct and differ from the id")
    example = raw.get("example", "none") if canonical else "none"
    if not isinstance(example, str) or not _ID.match(example.replace("_", "-")):
        raise _fail(path_name, where, f"example {example!r} must name a kind of worked number")
    return ConceptCard(id=card_id, topic=topic, level=level, wrong=tuple(wrong), example=example,
                       **texts)


@cache
def load_cards(lang: str) -> CardDeck:
    """The cards of `lang` (one of the phrasebook's languages), read once and checked against the
    English file."""
    from quizgen.languages import LANGS
    from quizgen.resources import data_dir

    if lang not in LANGS:
        raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
    path = data_dir("templates") / "concepts" / f"l6.{lang}.toml"
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise QuizgenError(f"{path.name} is missing from this installation", field="lang") from None
    except tomllib.TOMLDecodeError as exc:
        raise QuizgenError(f"{path.name}: {exc}", field="card") from None
    text = data.get("text", {})
    topics = data.get("topics", {})
    missing = [t for t in TOPICS if not isinstance(topics.get(t), str) or not topics[t].strip()]
    if missing:
        raise _fail(path.name, "[topics]", f"no title for {', '.join(missing)}")
    forecasts = text.get("forecast")
    if isinstance(forecasts, str):
        forecasts = [forecasts]
    if not forecasts or not all(isinstance(f, str) and f.strip() for f in forecasts):
        raise _fail(path.name, "[text]", "'forecast' must be a non-empty string or list of strings")
    cards: dict[str, ConceptCard] = {}
    for i, raw in enumerate(data.get("card", [])):
        card = _parse_card(raw, path.name, i, canonical=lang == CANONICAL_LANG)
        if card.id in cards:
            raise _fail(path.name, f"card {card.id!r}", "the id is used twice")
        cards[card.id] = card
    for level in LEVELS:
        if not any(c.level == level for c in cards.values()):
            raise _fail(path.name, f"level {level}", "has no card")
    deck = CardDeck(
        lang=lang, cards=cards, topics={t: topics[t].strip() for t in TOPICS},
        title=_text(text, "title", path.name, "[text]"),
        reason_title=_text(text, "reason_title", path.name, "[text]"),
        wrong_line=_text(text, "wrong_line", path.name, "[text]"),
        forecasts=tuple(f.strip() for f in forecasts),
    )
    if lang != CANONICAL_LANG:
        _check_agrees(deck, load_cards(CANONICAL_LANG), path.name)
    return deck


def _check_agrees(deck: CardDeck, canon: CardDeck, path_name: str) -> None:
    """A translation must hold the same cards, with the same topic, level and belief keys."""
    extra = sorted(set(deck.cards) - set(canon.cards))
    lacking = sorted(set(canon.cards) - set(deck.cards))
    if extra or lacking:
        raise _fail(path_name, "cards", f"ids differ from l6.{canon.lang}.toml "
                                        f"(extra: {extra or 'none'}; missing: {lacking or 'none'})")
    for card_id, card in deck.cards.items():
        ref = canon.cards[card_id]
        if (card.topic, card.level) != (ref.topic, ref.level):
            raise _fail(path_name, f"card {card_id!r}", "topic or level differs from the English card")
        if [w.key for w in card.wrong] != [w.key for w in ref.wrong]:
            raise _fail(path_name, f"card {card_id!r}", "wrong-belief keys differ from the English card")


def card_ids(level: int | None = None) -> tuple[str, ...]:
    """Card ids of `level` (all levels when None), sorted: the list a seed draws from."""
    cards = load_cards(CANONICAL_LANG).cards.values()
    return tuple(sorted(c.id for c in cards if level is None or c.level == level))


def get_card(card_id: Any, lang: str = CANONICAL_LANG) -> ConceptCard:
    deck = load_cards(lang)
    if not isinstance(card_id, str) or card_id not in deck.cards:
        raise QuizgenError(f"unknown concept card {card_id!r}", field="card")
    return deck.cards[card_id]


def example_of(card_id: str) -> str:
    """The kind of the card's worked number, as the canonical language's file names it."""
    return get_card(card_id, CANONICAL_LANG).example


@cache
def worked_number(card_id: str, gpu_name: str = "textbook"
                  ) -> tuple[tuple[Step, ...], int, dict[str, Any], str]:
    """The card's worked number on the card's own GPU: the engine's steps of its example (see
    `quizgen.problems.concept_examples`), the index from which the steps take the latency
    cells' numbered why-lines where the phrasebook has one (the steps before it carry their
    own), the facts its note names, and the GPU it is worked on. The same for every draw of
    the card: made once; readers never change the steps (a writer copies one before renaming
    its why)."""
    from quizgen.gpus import get_gpu
    from quizgen.problems.concept_examples import worked_example

    card = get_card(card_id)
    steps, numbered_from, facts, on = worked_example(card.example, card.id, get_gpu(gpu_name))
    return tuple(steps), numbered_from, facts, on.name


@register
class ConceptCards(Family):
    """Cell L-6: a concept card, drawn by level, answered in prose with its misconceptions."""

    cell = "L-6"
    topic = "concepts"
    main_answer = ""   # no number to type: `generate_one` builds no numeric options
    answer_specs = {"concept": sp.choice()}

    def space(self, level: int, gpu: GPU) -> Iterator[dict[str, Any]]:
        """Every card of `level`; the generator shuffles them once, so seeds 0…N−1 give all N."""
        for card_id in card_ids(level):
            yield {"card": card_id}

    def solve(self, params: dict[str, Any], gpu: GPU, explain: bool = True) -> Solved:
        card = get_card(params.get("card"))
        return Solved(answers={"concept": card.id},
                      data={"topic": card.topic, "level": card.level})

    def misconceptions(self, params: dict[str, Any], gpu: GPU,
                       solved: Solved) -> list[Misconception]:
        card = get_card(solved.answers["concept"])
        return [Misconception(w.key, {"concept": w.key}) for w in card.wrong]
