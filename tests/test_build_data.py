"""The data files shipped in quizgen/data/ are what `python -m quizgen.build_data` makes today."""

from __future__ import annotations

import pytest

from quizgen import build_data


def test_shipped_data_files_are_current():
    out_of_date = build_data.stale()
    assert not out_of_date, (f"{', '.join(out_of_date)} out of date: "
                             f"run `{build_data.COMMAND}`")


def test_check_names_the_stale_file_and_the_command_then_build_mends_it(tmp_path, capsys):
    (tmp_path / "formulas.json").write_text('{"formulas": {}}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        build_data.main(["--check", "--data-dir", str(tmp_path), "formulas.json"])
    assert stopped.value.code == 1
    assert capsys.readouterr().err == ("quizgen/data/formulas.json is out of date: "
                                       "run `python -m quizgen.build_data`\n")
    build_data.main(["--data-dir", str(tmp_path), "formulas.json"])
    assert "formulas.json" in capsys.readouterr().out
    assert build_data.stale(["formulas.json"], tmp_path) == []
    assert build_data.build(["formulas.json"], tmp_path) == []     # nothing changes: nothing written


def test_an_unknown_file_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as stopped:
        build_data.main(["pool.json"])
    assert stopped.value.code == 2
    assert "unknown data file 'pool.json'" in capsys.readouterr().err


def test_the_top_level_help_is_no_data_file(capsys):
    """`quizgen --help` is printed by the CLI itself: no shipped copy to keep current."""
    assert [f.name for f in build_data.DATA_FILES] == ["pools.json", "formulas.json"]
    with pytest.raises(SystemExit) as stopped:
        build_data.main(["help.txt"])
    assert stopped.value.code == 2
