"""Every file quizgen writes goes through here: atomically, and CSV cells made safe to open.

`atomic_write` (and `atomic_open` for output written in pieces) writes a temporary file in the
target's own folder, flushes it to disk and renames it over the target. A failure (a full disk, an
interrupt) leaves the old file as it was and no temporary behind: temporaries are removed on any
error, on Ctrl-C and, once `install_signal_handlers` ran, on SIGTERM and SIGHUP.

`csv_text` / `write_csv` write every CSV: UTF-8 with a byte-order mark (so Excel reads the names
right) and every cell that a spreadsheet would run as a formula (= + - @, tab, carriage return at
its start) prefixed with an apostrophe. `plain_cell` undoes that when quizgen reads its own CSV.

One package, one public surface: every name is imported from ``quizgen.files``. Its rooms:
`atomic` (atomic writes, one line for an OSError), `signals` (temporaries removed on exit and on
SIGTERM), `limits` (reading with a size limit), `names` (safe file names), `csv` (reading and
writing CSV), `folders` (output folders and their ledger).
"""

from __future__ import annotations

from quizgen.files.signals import install_signal_handlers
from quizgen.files.atomic import (ZIP_DATE, atomic_open, atomic_write, os_error_text,
                                  temporary_path, write_pieces)
from quizgen.files.limits import (LIMITS, NOUNS, opened, read_limited, read_stream_limited,
                                  refuse_overwriting_inputs, run_limited, size_text,
                                  too_large, utf8_text)
from quizgen.files.names import STEM_BYTES, STEM_CHARS, file_stems
from quizgen.files.csv import (BOM, CsvRows, clean_cell, csv_lines, csv_rows, csv_text,
                               plain_cell, safe_cell, sniff_delimiter, visible, write_csv)
from quizgen.files.folders import (LEDGER, add_to_ledger, check_folder, foreign_files,
                                   kept_name, publish_folder, read_ledger, staged_folder)

__all__ = [
    "install_signal_handlers",
    "ZIP_DATE", "atomic_open", "atomic_write", "os_error_text", "temporary_path", "write_pieces",
    "LIMITS", "NOUNS", "opened", "read_limited", "read_stream_limited",
    "refuse_overwriting_inputs", "run_limited", "size_text", "too_large", "utf8_text",
    "STEM_BYTES", "STEM_CHARS", "file_stems",
    "BOM", "CsvRows", "clean_cell", "csv_lines", "csv_rows", "csv_text", "plain_cell", "safe_cell",
    "sniff_delimiter", "visible", "write_csv",
    "LEDGER", "add_to_ledger", "check_folder", "foreign_files", "kept_name", "publish_folder",
    "read_ledger", "staged_folder",
]
