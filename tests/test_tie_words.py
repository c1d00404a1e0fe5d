"""A tie of lids is worded by its count (OCC-9): two lids are "two" and "both", three are
"three" and "all", in every language, in the title, the trap and the what-if answer."""

from __future__ import annotations

import re

import pytest

from quizgen.generator import generate_one

#: The count words of each language, and the words for "both"/"all" and "the other(s)".
WORDS = {
    "en": {2: ("Two", "both", "the other"), 3: ("Three", "all", "the others"),
           4: ("Four", "all", "the others")},
    "hinglish": {2: ("Do", "dono", "doosri"), 3: ("Teen", "saare", "baaki"),
                 4: ("Chaar", "saare", "baaki")},
}
COUNT_WORDS = {lang: {w[0] for w in table.values()} for lang, table in WORDS.items()}


def _problems(lang: str):
    for level in (1, 2, 3):
        for seed in range(60):
            yield generate_one("OCC-9", level=level, seed=seed, lang=lang)


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_the_words_of_a_tie_follow_its_count(lang):
    seen = set()
    for p in _problems(lang):
        n = len(p.answers["limiter"])
        count, together, rest = WORDS[lang][n]
        seen.add(n)
        named = {w for w in COUNT_WORDS[lang] if re.search(rf"\b{w}\b", p.title)}
        assert named <= {count}, (p.id, n, p.title)
        trap = p.solution.trap
        if trap:
            words = {w for w in COUNT_WORDS[lang] if re.search(rf"\b{w}\b", trap)}
            assert words <= {count}, (p.id, n, trap)
            assert count in trap or re.search(rf"\b{together}\b", trap), (p.id, n, trap)
        if p.level == 3:                # the what-if: loosening one lid leaves the rest
            assert rest in p.solution.answer, (p.id, n, p.solution.answer)
            if n > 2:
                assert WORDS[lang][2][2] + " " not in p.solution.answer.replace(rest, ""), p.id
    assert {2, 3} <= seen              # the draws do tie three ways, as real papers ask
