"""`quizgen preview`: a static, offline HTML site of what a recipe holds."""


from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli.root import app


@app.command("preview")
def preview_command(
    recipe: Annotated[Optional[str], typer.Argument(help="A deck or exam recipe: a packaged name (see `quizgen recipe list`) or a TOML file. Default: the whole course.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the site (index.html and one page per cell or question).")] = Path("preview"),
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that holds other files too (they stay).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress.")] = False,
) -> None:
    """See what a recipe will produce before building it: a static HTML site, readable offline,
    with each cell's (or exam question's) first problem per level in each language, its figure
    and its worked solution.

    Example: quizgen preview occupancy-basics --out site/ (then open site/index.html)
    """
    from quizgen.cli.options import progress_reporter
    from quizgen.preview import build_preview

    with progress_reporter("preview", "pages", quiet=quiet) as progress:
        summary = build_preview(recipe, out, force=force, progress=progress)
    typer.echo(f"{summary.pages} pages, {summary.problems} problems → {summary.out_dir}/index.html")
