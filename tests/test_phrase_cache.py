"""A language's merged phrasebook is kept between processes: what is kept is what the TOML says,
and a changed phrase file is read again."""

from __future__ import annotations

import shutil

import pytest

from quizgen.render import phrases as P
from quizgen.resources import data_dir


@pytest.fixture
def own_templates(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    templates = tmp_path / "templates"
    shutil.copytree(data_dir("templates"), templates)
    monkeypatch.setenv("QUIZGEN_TEMPLATES", str(templates))
    data_dir.cache_clear()
    P.book.cache_clear()
    yield templates
    monkeypatch.undo()
    data_dir.cache_clear()
    P.book.cache_clear()


def test_a_kept_phrasebook_is_the_one_the_files_give(own_templates, monkeypatch):
    parsed = P.book("en")
    origins = {k: v for k, v in P.ORIGINS.items() if k[0] == "en"}
    assert P._book_file("en").is_file()

    def unread(*args, **kwargs):
        raise AssertionError("the phrase files were parsed again")

    monkeypatch.setattr(P.tomllib, "load", unread)
    P.ORIGINS.clear()
    P.book.cache_clear()
    kept = P.book("en")
    assert kept == parsed and list(kept) == list(parsed)
    assert all(list(kept[section]) == list(parsed[section]) for section in parsed)
    assert {k: v for k, v in P.ORIGINS.items() if k[0] == "en"} == origins


def test_a_changed_phrase_file_is_read_again(own_templates):
    P.book("en")
    path = sorted((own_templates / "phrases").glob("*.en.toml"))[0]
    path.write_text(path.read_text(encoding="utf-8") + '\n[zz-kept]\nhello = "changed"\n',
                    encoding="utf-8")
    P.book.cache_clear()
    assert P.book("en")["zz-kept"]["hello"] == "changed"
    assert P.ORIGINS[("en", "zz-kept", "hello")] == str(path)
