"""The one template environment: phrases and file templates rendered by Jinja's sandbox, strictly,
with the project's filters; a template pack from another folder runs no code, and what it gets
wrong is one line naming the template and its line (exit 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest
from jinja2.sandbox import SandboxedEnvironment, SecurityError

from quizgen.render.jinja import TemplateError, environment, phrase_renderer, template
from quizgen.render.phrases import _Lazy, book, phrase
from quizgen.languages import LANGS
from quizgen.resources import data_dir

ENV = environment()

#: (phrase, values, what the phrase prints): the filters, the phrase finalize (a count grouped),
#: Jinja's tests and loops as the phrasebooks use them.
CASES = [
    ("{{ T }} threads", {"T": 256}, "256 threads"),
    ("{{ regs }} registers, {{ -regs }}, {{ 999 }}", {"regs": 65536},
     "65,536 registers, -65,536, 999"),
    ("{{ (B + 1) * w }} warps", {"B": 3, "w": 8}, "32 warps"),
    ("{{ ((B + 1) * need)|num }}", {"B": 1, "need": 33280}, "66,560"),
    ("{{ '%.3f'|format(x) }}", {"x": 1.96923}, "1.969"),
    ("{{ gpu.regs_per_sm|num }} / {{ gpu.name|upper }}",
     {"gpu": {"regs_per_sm": 65536, "name": "a100"}}, "65,536 / A100"),
    ("{{ limiter|join(' + ')|replace('_', ' ') }}", {"limiter": ["registers", "shared_memory"]},
     "registers + shared memory"),
    ("{% if s %}with {{ s|size }}{% else %}none{% endif %}.", {"s": 49152}, "with 48 KB."),
    ("{% if s %}with {{ s|size }}{% else %}none{% endif %}.", {"s": 0}, "none."),
    ("{% for name, r in results.items() %}{{ name }}={{ r }}{% if not loop.last %}; {% endif %}"
     "{% endfor %}", {"results": {"t4": 1, "a100": 2}}, "t4=1; a100=2"),
    ("{% for b in bs[1:] %}[{{ loop.index }}:{{ b }}]{% endfor %}", {"bs": [5, 6, 7]}, "[1:6][2:7]"),
    ("{{ r is none }} {{ r is not none }} {{ none }}", {"r": None}, "True False None"),
    ("{{ (1 - share)|pct }} and {{ occ|pct }}", {"share": 0.25, "occ": 0.375}, "75% and 37.5%"),
    ("{{ gpu.description or gpu.name }}", {"gpu": {"description": "", "name": "t4"}}, "t4"),
    ("{{ i // Dx }} {{ 7 / 2 }}", {"i": 70, "Dx": 8}, "8 3.5"),
    ("{{ v }}", {"v": "a < b & 'c'"}, "a < b & 'c'"),     # a phrase is not HTML-escaped
]


@pytest.mark.parametrize("text, values, printed", CASES)
def test_a_phrase_prints(text, values, printed):
    assert phrase_renderer(text)(values) == printed


def test_a_phrase_reads_the_values_it_is_given_and_nothing_else():
    """A phrase's values are its dict (the environment's globals are not merged in), and the dict
    a phrase was given is not changed by it."""
    values = {"xs": [1, 2]}
    with pytest.raises(jinja2.UndefinedError):
        phrase_renderer("{{ range(3)|list }}")({})
    with pytest.raises(SecurityError):
        phrase_renderer("{{ xs.append(3) }}")(values)
    assert values == {"xs": [1, 2]}


def test_the_one_environment_is_a_sandbox_that_refuses_private_attributes():
    assert isinstance(ENV, SandboxedEnvironment)
    for text, values in [("{{ cycler.__init__.__globals__ }}", {}),
                         ("{{ gpu.__class__.__base__.__subclasses__() }}", {"gpu": {}}),
                         ("{{ f.__globals__ }}", {"f": _one_error_line})]:
        with pytest.raises(SecurityError):
            ENV.from_string(text).render(**values)


def test_every_phrase_compiles():
    for lang in LANGS:
        for section, table in book(lang).items():
            for key, value in table.items():
                if not isinstance(value, (str, list)):   # a setting: [language] default
                    continue
                for text in [value] if isinstance(value, str) else value:
                    ENV.parse(text)  # a syntax error here names the phrase in the traceback


def test_every_phrase_variant_is_reached_and_renders_in_every_language():
    """Every templated variant of every phrase, in every language, rendered to text with the
    contexts the code gives its key (every cell, level and parameter shape, both languages; the
    calculators; a graded class; skills and LMS banks; the inverse solvers). The sweep prints
    what it never reached or could not render."""
    result = subprocess.run([sys.executable, str(Path(__file__).with_name("phrase_sweep.py")), "1"],
                            capture_output=True, text=True, timeout=900,
                            env={**os.environ, "QUIZGEN_CHECK_PHRASES": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == "", f"variants never rendered:\n{result.stdout}"


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


def test_a_file_template_compiles_once():
    assert ENV.get_template("solution.md.j2") is ENV.get_template("solution.md.j2")
    assert phrase_renderer("{{ B }} blocks") is phrase_renderer("{{ B }} blocks")


def test_undefined_is_an_error_naming_the_file_template_and_line():
    with pytest.raises(TemplateError, match=r"report\.md\.j2, line \d+: '\w+' is undefined"):
        template("grade/report.md.j2").render()


def test_a_missing_value_names_the_phrase():
    with pytest.raises(TemplateError, match=r"phrase 'Blocks = \{\{ B \}\}', line 1: 'B' is undefined"):
        _Lazy("Blocks = {{ B }}").render_map({})
    with pytest.raises(TemplateError, match="'dict object' has no attribute 'nope'"):
        _Lazy("{{ gpu.nope }}").render_map({"gpu": {}})
    with pytest.raises(TemplateError, match=r"phrases/[\w-]+\.en\.toml \[verify\] registers, "
                                            r"line 1: 'B' is undefined"):
        phrase("en", "verify", "registers", {})


# ---------------------------------------------------------------------------------------------
# A template pack (QUIZGEN_TEMPLATES) as a user shares it


ESCAPE = "{{ cycler.__init__.__globals__.os.system('id > x') }}"


def _pack(tmp_path: Path) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(data_dir("templates"), pack)
    return pack


def _insert(path: Path, line_no: int, text: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(line_no - 1, text + "\n")
    path.write_text("".join(lines), encoding="utf-8")


def _generate(tmp_path: Path, pack: Path | str, fmt: str = "md") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizgen", "generate", "--cell", "OCC-2",
                           "--format", fmt], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "QUIZGEN_TEMPLATES": str(pack)}, timeout=120)


def _one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_pack_whose_solution_template_escapes_the_sandbox_runs_nothing(tmp_path, fmt):
    pack = _pack(tmp_path)
    _insert(pack / f"solution.{fmt}.j2", 3, ESCAPE)
    line = _one_error_line(_generate(tmp_path, pack, fmt))
    assert f"solution.{fmt}.j2, line 3: " in line and "unsafe" in line
    assert not (tmp_path / "x").exists()


def test_a_pack_whose_phrase_escapes_the_sandbox_runs_nothing(tmp_path):
    """Every question of the OCC-2 phrases reaches for Python's globals: through the globals a
    file template would see (a phrase has none), and through a value it is given."""
    pack = _pack(tmp_path)
    path = pack / "phrases" / "families-occ.hinglish.toml"
    text = path.read_text(encoding="utf-8")
    assert text.count("{{ T }}") > 0
    for reach in (ESCAPE, "{{ gpu.__class__.__base__.__subclasses__() }}"):
        path.write_text(text.replace("{{ T }}", reach + "{{ T }}"),
                        encoding="utf-8")
        line = _one_error_line(_generate(tmp_path, pack))
        assert "phrases/families-occ.hinglish.toml [OCC-2]" in line and ", line 1: " in line
        assert not (tmp_path / "x").exists()


def test_a_pack_using_what_jinja_does_not_have_is_one_line(tmp_path):
    pack = _pack(tmp_path)
    original = (pack / "solution.md.j2").read_text(encoding="utf-8")
    for use, said in [("{{ title|no_such_filter }}", "No filter named 'no_such_filter'"),
                      ("{{ no_such_global(title) }}", "'no_such_global' is undefined")]:
        (pack / "solution.md.j2").write_text(use + "\n" + original, encoding="utf-8")
        line = _one_error_line(_generate(tmp_path, pack))
        assert "solution.md.j2, line 1: " in line and said in line, line


def test_templates_naming_a_file_or_nothing_is_one_line(tmp_path):
    afile = tmp_path / "templates.zip"
    afile.write_bytes(b"PK")
    line = _one_error_line(_generate(tmp_path, afile))
    assert "QUIZGEN_TEMPLATES: is a file, not a folder" in line and str(afile) in line
    line = _one_error_line(_generate(tmp_path, tmp_path / "missing"))
    assert "QUIZGEN_TEMPLATES: no such folder" in line


def test_compiled_code_is_kept_in_a_private_cache_of_its_own(tmp_path):
    """The bytecode cache is Jinja's, in quizgen's own folder that only this user can open (code
    read from it runs); a phrase loaded from it prints what a fresh compile prints. A folder
    others may write is not used."""
    import stat

    from quizgen.render.jinja import CACHE_PATTERN, _bytecode_cache, _phrase_template, cache_dir

    cache = ENV.bytecode_cache
    if cache is None:
        pytest.skip("no private cache folder on this machine")
    assert isinstance(cache, jinja2.FileSystemBytecodeCache) and cache.pattern == CACHE_PATTERN
    assert Path(cache.directory) == cache_dir() and cache_dir().parts[-2:] == ("quizgen", "templates")
    assert stat.S_IMODE(os.stat(cache.directory).st_mode) == 0o700
    text = f"{{{{ n }}}} blocks, written at {tmp_path.name}"     # a phrase no other test uses
    first = _phrase_template(ENV, text)
    kept = [p for p in Path(cache.directory).glob(CACHE_PATTERN % "*")
            if p.read_bytes().find(tmp_path.name.encode()) >= 0]
    assert len(kept) == 1
    again = _phrase_template(ENV, text)
    assert first is not again
    assert again.render(n=4096) == first.render(n=4096) == f"4,096 blocks, written at {tmp_path.name}"


def test_a_cache_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    from quizgen.render.jinja import _bytecode_cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _bytecode_cache().directory == str(tmp_path / "quizgen" / "templates")
    os.chmod(tmp_path / "quizgen" / "templates", 0o777)
    assert _bytecode_cache() is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    (tmp_path / "file").write_text("")
    assert _bytecode_cache() is None


@pytest.mark.parametrize("written, said", [
    ('x = "{{ B }}"\n', "'x' is not a table of phrases"),
    ('[step]\nwarps = "Warps"\n', "phrase [step] warps is defined twice (also in "),
    ('[step\n', "not readable TOML"),
])
def test_a_phrase_file_quizgen_cannot_read_is_one_line_naming_it(tmp_path, written, said):
    pack = _pack(tmp_path)
    (pack / "phrases" / "zz.hinglish.toml").write_text(written, encoding="utf-8")
    line = _one_error_line(_generate(tmp_path, pack))
    assert f"{pack / 'phrases' / 'zz.hinglish.toml'}: " in line and said in line, line


#: Phrases the internals test renders both ways (texts of their own: `phrase_renderer` keeps
#: every text it compiled).
INTERNALS_PHRASES = [
    ("{{ n }} blocks of {{ t }} threads: internals check", {"n": 3, "t": 9750}),
    ("{% for x in xs %}{{ loop.index }}={{ x }}{% if not loop.last %}, {% endif %}{% endfor %}"
     " (internals check)", {"xs": ["a", "b", "c"]}),
    ("{{ share | pct }} of {{ d.cap }}{% set k = 2 %} ×{{ k }} (internals check)",
     {"share": 0.375, "d": {"cap": 64}}),
]


def test_the_jinja_internals_a_phrase_renders_with_are_still_there_and_called(monkeypatch):
    """pyproject.toml pins jinja2 for this: `phrase_renderer` builds the context Jinja makes for a
    phrase by hand (`PhraseContext`, with an `EvalContext` made without its ``__init__``) and
    calls the compiled template's ``root_render_func`` as `Template.render` does. Were a Jinja
    release to change either, every worked solution would break or, worse, change unseen."""
    import inspect
    import re
    import tomllib

    from jinja2.nodes import EvalContext

    from quizgen.render import jinja as J

    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text("utf-8"))
    pin = next(d for d in pyproject["project"]["dependencies"] if d.startswith("jinja2"))
    low, high = re.fullmatch(r"jinja2>=(\d+\.\d+),<(\d+\.\d+)", pin).groups()
    installed = tuple(int(part) for part in jinja2.__version__.split(".")[:2])
    assert tuple(map(int, low.split("."))) <= installed < tuple(map(int, high.split("."))), pin

    env = J.environment()
    assert set(vars(EvalContext(env))) == {"environment", "autoescape", "volatile"}
    assert "self.root_render_func(ctx)" in inspect.getsource(jinja2.Template.render)
    for text, values in INTERNALS_PHRASES:
        compiled = J._phrase_template(env, text)
        theirs = compiled.new_context(values, shared=True)      # what Jinja itself makes
        ours = J.PhraseContext(env, values)
        assert set(vars(theirs)) == set(vars(ours)) and ours.parent is theirs.parent is values
        for name, value in vars(theirs).items():
            mine = getattr(ours, name)
            if name == "eval_ctx":
                value, mine = vars(value), vars(mine)
            assert (set(value) == set(mine)) if name == "globals_keys" else value == mine, name

    made = []
    real_init = J.PhraseContext.__init__

    def counted(self, environment, values):
        made.append(values)
        real_init(self, environment, values)

    monkeypatch.setattr(J.PhraseContext, "__init__", counted)
    for text, values in INTERNALS_PHRASES:     # the first is plain too: Jinja's way asked here
        assert J._jinja_phrase(text)(values) == J._phrase_template(env, text).render(values)
        assert phrase_renderer(text)(values) == J._phrase_template(env, text).render(values)
    assert len(made) >= len(INTERNALS_PHRASES)          # each phrase went the hand-built way
    with pytest.raises(jinja2.UndefinedError):
        phrase_renderer(INTERNALS_PHRASES[0][0])({"n": 3})  # strict: a missing value is an error
