"""Plain phrases (`quizgen.render.plain`) print exactly what Jinja prints, or are left to Jinja.

Phrases of the grammar the plain reader takes are drawn at random with random values and
rendered both ways: where Jinja writes text, the plain renderer writes the same text or raises
(and the phrase is then Jinja's); where Jinja raises, the plain renderer raises too. Phrases of
everything outside that grammar are not taken. (The phrase sweep, `phrase_sweep.py`, makes the
same comparison over every phrase of the books with the values the code gives them.)
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizgen.render.jinja import PLAIN_PATTERN, environment, phrase_finalize, phrase_renderer
from quizgen.render.plain import CodeStore, plain_phrase

FILTERS = environment().filters
NAMES = ("a", "b", "n", "gpu")

values = st.one_of(st.integers(-3000, 3000), st.sampled_from([0, 1, 2, 32, 1024, 65536]),
                   st.floats(-1e4, 1e4, allow_nan=False), st.booleans(), st.none(),
                   st.text("ab x", max_size=3))
contexts = st.fixed_dictionaries(
    {"a": values, "b": values, "n": values,
     "gpu": st.one_of(st.fixed_dictionaries({"regs": values, "name": st.text("AH1", max_size=3)}),
                      values)})

good = st.sampled_from(["a", "b", "n", "gpu.regs", "gpu.name", "0", "1", "32", "'x'", '"y z"'])
operand = st.one_of(*[good] * 12, st.sampled_from(
    ["gpu.items", "true", "none", "-a", "a.0", "missing", "loop", "a.b.c"]))


@st.composite
def expressions(draw, depth: int = 2) -> str:
    if depth == 0 or draw(st.booleans()):
        text = draw(operand)
    else:
        op = draw(st.one_of(*[st.sampled_from(["+", "-", "*", "/", "//", "%", "==", "!=", "<",
                                                "<=", ">", ">=", "and", "or"])] * 8,
                            st.sampled_from(["in", "is", "~", "**"])))
        text = f"{draw(expressions(depth - 1))} {op} {draw(expressions(depth - 1))}"
        if draw(st.booleans()):
            text = f"({text})"
    if depth == 2 and draw(st.integers(0, 5)) == 0:
        text = "not " + text
    if draw(st.integers(0, 2)) == 0:
        text += draw(st.sampled_from(["|num", "|pct", "|kb", "|size", "|of('block')",
                                      "|agree('fits', 'fit')", "|format(a)", "|upper",
                                      "|round(1)", "|default(1)", "|of('lane|lanes')"]))
    return text


@st.composite
def phrases(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 12))
        if kind == 0:
            parts.append(draw(st.one_of(*[st.sampled_from(["blocks ", " × ", "ek warp", "", "%",
                                                           "}", "{", "{x}", "}}"])] * 6,
                                        st.sampled_from(["\r\n", "{# c #}"]))))
        elif kind in (1, 2, 3):
            parts.append("{{ " + draw(expressions()) + " }}")
        elif kind in (4, 6, 7):
            parts.append("{% if " + draw(expressions()) + " %}s{{ a }}"
                         + draw(st.sampled_from(["", "{% else %}t", "{% elif b %}u{% else %}v",
                                                 "{% elif n > 1 %}w"])) + "{% endif %}")
        elif kind == 5 and draw(st.booleans()):     # outside the plain grammar (the whole phrase is then Jinja's)
            parts.append(draw(st.sampled_from(["{{- a }}", "{{ a -}}", "{%- if a %}x{% endif %}",
                                               "{% for i in a %}{{ i }}{% endfor %}",
                                               "{% if a %}", "{% endif %}", "{% else %}",
                                               "{{ a if b else n }}", "{{ a[0] }}",
                                               "{{ a.upper() }}", "{% set x = 1 %}{{ x }}"])))
        elif kind in (5, 8):
            parts.append("{% if a %}{% if b %}p{% else %}q{% endif %}{% endif %}")
        else:
            parts.append("{{ " + draw(expressions()) + " }} ")
    return "".join(parts)


def _jinja(text: str):
    """The phrase rendered by Jinja alone (compiled here, not kept in the user's cache)."""
    compiled = environment().from_string(text, globals={})
    return lambda values: compiled.render(values)


def _outcome(render, values):
    try:
        return "text", render(values)
    except Exception as exc:  # noqa: BLE001 - the kind of failure is compared, not its text
        return "error", type(exc).__name__


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phrases(), contexts)
def test_a_plain_phrase_prints_what_jinja_prints(text, values):
    try:
        jinja = _jinja(text)
    except Exception:  # noqa: BLE001 - not a phrase Jinja can compile: never plain
        assert plain_phrase(text, phrase_finalize, FILTERS) is None
        return
    plain = plain_phrase(text, phrase_finalize, FILTERS)
    expected = _outcome(jinja, values)
    if plain is not None:
        got = _outcome(plain, values)
        if expected[0] == "text":
            assert got in (expected, ("error", got[1])), (text, values)
        else:
            assert got[0] == "error", (text, values, got)


def test_what_a_plain_phrase_cannot_look_up_jinja_renders_or_refuses():
    """A key of something that is not a plain dict is read by Jinja's sandbox (a public
    attribute); a missing name is Jinja's error, naming it."""
    from types import SimpleNamespace

    from jinja2 import UndefinedError

    render = phrase_renderer("{{ gpu.regs }} registers, {{ n }} blocks")
    assert render({"gpu": SimpleNamespace(regs=65536), "n": 2}) == "65,536 registers, 2 blocks"
    with pytest.raises(UndefinedError, match="'n' is undefined"):
        render({"gpu": {"regs": 1}})


@pytest.mark.parametrize("text", [
    "{% for i in a %}{{ i }}{% endfor %}", "{{ a if b else n }}", "{{ a[0] }}", "{{ -a }}",
    "{{- a }}", "{{ a -}}", "{{ a is defined }}", "{{ a.items }}", "{{ true }}", "{{ a|upper }}x\r",
    "{# note #}{{ a }}", "{% if a %}x", "{% endif %}", "{{ a < b < n }}", "{{ a.upper() }}",
    "{{ a ~ b }}", "{{ a ** 2 }}", "{{ a|round(1) }}x{{ loop }}", "{{ self }}",
    "{{{ a }}", "{{% if a %}x{% endif %}", "{{ " + " + ".join(["a"] * 400) + " }}",
    "{{ " + "(" * 3000 + "a" + ")" * 3000 + " }}"])
def test_what_the_plain_reader_does_not_take_is_left_to_jinja(text):
    assert plain_phrase(text, phrase_finalize, FILTERS) is None


def test_plain_phrases_print_the_books_commonest_forms():
    render = plain_phrase("{{ B }} block{% if B != 1 %}s{% endif %} × {{ need|num }} B = "
                          "{{ (B * need)|num }} B; {{ n|agree('leta hai', 'lete hain') }}; "
                          "{{ gpu.regs_per_sm }}", phrase_finalize, FILTERS)
    assert render({"B": 3, "need": 16384, "n": 1, "gpu": {"regs_per_sm": 65536}}) == (
        "3 blocks × 16,384 B = 49,152 B; leta hai; 65,536")
    assert render({"B": 1, "need": 100, "n": 2, "gpu": {"regs_per_sm": 1}}) == (
        "1 block × 100 B = 100 B; lete hain; 1")


def test_compiled_plain_phrases_are_kept_between_processes(tmp_path):
    """The second process reads every plain phrase's code from the store the first wrote (none
    compiled again), and prints the same; a store of another reader's is not read."""
    script = (
        "import sys, builtins\n"
        "from quizgen.generator import generate_one\n"
        "compiled = []\n"
        "real = builtins.compile\n"
        "builtins.compile = lambda src, name, *a, **k: (compiled.append(name), real(src, name, *a, **k))[1]\n"
        "p = generate_one('OCC-2', level=2, seed=3, lang='en')\n"
        "print(sum(1 for n in compiled if n == '<phrase>'))\n"
        "print(p.solution.steps[0].why)\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                           check=True).stdout.splitlines() for _ in range(2)]
    assert int(runs[0][0]) > 5 and int(runs[1][0]) == 0
    assert runs[0][1] == runs[1][1]
    path = tmp_path / "quizgen" / "templates" / (PLAIN_PATTERN % sys.implementation.cache_tag)
    other = CodeStore(path, "another Jinja")
    assert other.get("{{ B }} blocks") is None
    path.write_bytes(b"not marshal")
    third = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, check=True).stdout.splitlines()
    assert int(third[0]) > 5 and third[1] == runs[0][1]


def test_the_store_keeps_what_a_process_rendered_then_the_latest(tmp_path, monkeypatch):
    monkeypatch.setattr(CodeStore, "LIMIT", 4)
    path = tmp_path / "plain.marshal"
    first = CodeStore(path, "v")
    texts = [f"{{{{ n }}}} blocks ({i})" for i in range(6)]
    for text in texts:
        plain_phrase(text, phrase_finalize, FILTERS, first)
    first.write()
    again = CodeStore(path, "v")
    assert [again.get(t) is not None for t in texts] == [False, False, True, True, True, True]
    assert again.get(texts[2])[1] == ("",)        # plain, calls no filter
    for text in ("{{ a }} x", "{{ a }} y", "{% for i in a %}{% endfor %}"):
        plain_phrase(text, phrase_finalize, FILTERS, again)
    again.write()
    last = CodeStore(path, "v")
    assert last.get("{% for i in a %}{% endfor %}") == (None, ())      # known not plain
    assert last.get(texts[2]) is not None and last.get(texts[3]) is None
    assert plain_phrase(texts[2], phrase_finalize, FILTERS, last)({"n": 1200}) == "1,200 blocks (2)"
