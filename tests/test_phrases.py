"""The phrasebook and its compiled templates: the fast path must render exactly what Jinja does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

from quizgen.render.fastjinja import Unsupported, compile_function, compile_template
from quizgen.render.jinja import environment, phrase_finalize
from quizgen.render.phrases import LANGS, book

ENV = environment()

CASES = [
    ("{{ T }} threads", {"T": 256}),
    ("{{ (B + 1) * w }} warps", {"B": 3, "w": 8}),
    ("{{ ((B + 1) * need)|num }}", {"B": 1, "need": 33280}),
    ("{{ '%.3f'|format(x) }}", {"x": 1.96923}),
    ("{{ gpu.regs_per_sm|num }} / {{ gpu.name|upper }}", {"gpu": {"regs_per_sm": 65536, "name": "a100"}}),
    ("{{ limiter|join(' + ') }}", {"limiter": ["registers", "shared_memory"]}),
    ("{% if s %}with {{ s|size }}{% else %}none{% endif %}.", {"s": 49152}),
    ("{% if s %}with {{ s|size }}{% else %}none{% endif %}.", {"s": 0}),
    ("{% if a > 2 %}big{% elif a > 1 %}mid{% else %}small{% endif %}", {"a": 2}),
    ("{% for name, r in results.items() %}{{ name }}={{ r }}{% if not loop.last %}; {% endif %}{% endfor %}",
     {"results": {"t4": 1, "a100": 2}}),
    ("{% for b in bs[1:] %}[{{ loop.index }}:{{ b }}]{% endfor %}", {"bs": [5, 6, 7]}),
    ("{{ book.answer }}{% if book.answer is not none and book.answer != r %} differs{% endif %}",
     {"book": {"answer": 85}, "r": 80}),
    ("{{ (1 - share)|pct }} and {{ occ|pct }}", {"share": 0.25, "occ": 0.375}),
    ("{{ gpu.description or gpu.name }}", {"gpu": {"description": "", "name": "t4"}}),
    ("{{ i // Dx }} {{ 7 / 2 }}", {"i": 70, "Dx": 8}),
    ("{{ regs }} registers, {{ -regs }}, {{ 999 }}", {"regs": 65536}),
    # written without parsing: names and operators, with loop locals and Jinja's constants
    ("{% for x in xs %}{{ x * k + 1 }}{% if x != k and not (x > 2) %},{% endif %}{% endfor %}",
     {"xs": [1, 2, 3], "k": 2}),
    ("{{ r is none }} {{ r is not none }} {{ true and flag }} {{ none }}", {"r": None, "flag": 0}),
    ("{{ 'yes' if n % 32 == 0 else 'no' }} {{ 1e3 }} {{ n|num }}", {"n": 96}),
    ("{{ device|replace('NVIDIA ', '') }} {{ lim|join(' + ')|replace('_', ' ') }}",
     {"device": "NVIDIA A100", "lim": ["registers", "shared_memory"]}),
]


@pytest.mark.parametrize("text, context", CASES)
def test_compiled_phrase_matches_jinja(text, context):
    assert compile_function(text, phrase_finalize)(context) == ENV.from_string(text).render(**context)


def test_undefined_names_raise_like_strict_undefined():
    render = compile_template("{{ missing }}")
    with pytest.raises(KeyError):
        render()
    with pytest.raises(jinja2.UndefinedError):
        ENV.from_string("{{ missing }}").render()


@pytest.mark.parametrize("text", ["{% macro m() %}x{% endmacro %}", "{{ x|title }}", "{%- if x %}y{% endif %}"])
def test_outside_the_subset_is_refused(text):
    with pytest.raises(Unsupported):
        compile_template(text)


def test_every_phrase_compiles_in_jinja():
    for lang in LANGS:
        for section, table in book(lang).items():
            for key, value in table.items():
                if not isinstance(value, (str, list)):   # a setting: [language] default
                    continue
                for text in [value] if isinstance(value, str) else value:
                    ENV.parse(text)  # a syntax error here names the phrase in the traceback


def test_every_phrase_variant_renders_the_same_compiled_and_by_jinja():
    """Every templated variant of every phrase, in every language, rendered compiled and by Jinja
    with the contexts the code gives it (every cell, level and parameter shape, both languages;
    the calculators; a graded class; skills and LMS banks; the inverse solvers), and the text and
    Markdown solutions: the same text. The sweep prints what it never reached."""
    result = subprocess.run([sys.executable, str(Path(__file__).with_name("phrase_sweep.py")), "1"],
                            capture_output=True, text=True, timeout=900,
                            env={**os.environ, "QUIZGEN_CHECK_PHRASES": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == "", f"variants never checked:\n{result.stdout}"


def test_one_environment_escapes_html_templates_only():
    value = "a < b & 'c'"
    assert ENV.from_string("{{ v }}").render(v=value) == value          # a phrase
    for name, escaped in [("solution.html.j2", True), ("grade/feedback.html.j2", True),
                          ("scan/report.html.j2", True), ("solution.md.j2", False),
                          ("grade/report.md.j2", False), ("sheet/exam.typ.j2", False)]:
        assert ENV.get_template(name).environment is ENV
        assert ENV.autoescape(name) is escaped, name


def test_only_phrases_group_a_printed_count():
    """A phrase prints 65536 as 65,536 (the phrasebook's finalize); a file template prints
    values as they are (a roll number, a seed)."""
    assert ENV.from_string("{{ n }}").render(n=65536) == "65,536"
    code = ENV.compile("{{ n }}", name="sheet/any.typ.j2")     # as the loader names a file
    assert jinja2.Template.from_code(ENV, code, {}).render(n=65536) == "65536"


def test_undefined_is_an_error_in_file_templates():
    with pytest.raises(jinja2.UndefinedError):
        ENV.get_template("grade/report.md.j2").render()


def test_a_missing_value_names_the_phrase():
    from quizgen.render.phrases import _Lazy

    with pytest.raises(KeyError, match=r"'B' is undefined in phrase 'Blocks = \{\{ B \}\}'"):
        _Lazy("Blocks = {{ B }}").render_map({})
    with pytest.raises(KeyError, match="'nope' is undefined on dict in phrase"):
        _Lazy("{{ gpu.nope }}").render_map({"gpu": {}})
