"""``errdex site build`` and ``errdex site serve``: thin wrappers over :mod:`errdex.site`.

The site takes the records' findings as an argument (it imports no checks); :func:`build_site` here joins
validation in, for the commands and for :func:`errdex.build_site`. Everything above click is imported inside
the commands: ``errdex --help`` imports every command's module, and must not load the checks or the renderer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from errdex.cli._common import Group, PathType, busy, no_dash, quiet_option, records_option, stderr_line

if TYPE_CHECKING:
    from errdex.site.build import SiteReport

__all__ = ["build_site", "site_group"]

DEFAULT_OUT = "build/site"


def build_site(out: str | Path = DEFAULT_OUT, *, records: Sequence[str | Path] | None = None,
               base_url: str | None = None, proofs: Path | dict[str, Any] | None = None, search: bool = True,
               on_wait: Callable[[], None] | None = None) -> SiteReport:
    """Build the site for the records (default: the bundled dataset) into ``out``, each record's validation
    findings on its page and on the quality page: :func:`errdex.site.build.build_site` with ``findings``
    from :func:`errdex.checks.runner.validate` (see there for the other arguments)."""
    from errdex.checks.runner import validate  # start-up: see the module's docstring
    from errdex.site.build import build_site as build_pages  # start-up: as above

    return build_pages(out, records=records, base_url=base_url, proofs=proofs, search=search, on_wait=on_wait,
                       findings=lambda: validate(records).findings)


@click.group("site", cls=Group)
def site_group() -> None:
    """Build and serve the documentation site.

    \b
    Example:
      errdex site build --out build/site
      errdex site serve --port 8000
    """


@site_group.command("build")
@click.option("--out", type=PathType(file_okay=False, path_type=Path), callback=no_dash, default=DEFAULT_OUT,
              show_default=True,
              help="Folder to write the site to (replaced as a whole when the build succeeds).")
@records_option
@click.option("--base-url", default=None, metavar="URL",
              help="Where the site will be published (absolute sitemap links).")
@click.option("--proofs", type=PathType(dir_okay=False, path_type=Path), callback=no_dash, default=None,
              help="The output of 'errdex prove --format json', shown as each scenario's proof status.")
@click.option("--prove", "run_proofs", is_flag=True, help="Run every scenario now and show the results.")
@click.option("--no-search", is_flag=True,
              help="Skip the search index (faster; the search box then says it is unavailable).")
@quiet_option
def build_command(out: Path, records: tuple[str, ...], base_url: str | None, proofs: Path | None, run_proofs: bool,
                  no_search: bool, quiet: bool) -> int:
    """Render every record, the browse, quality and schema pages, the API files and the search index.

    \b
    Example:
      errdex site build
      errdex prove --format json > proofs.json && errdex site build --proofs proofs.json
      errdex site build --records records/ --out public --base-url https://errors.example.org/
    """
    from errdex.errors import UsageError  # start-up: see the module's docstring

    if run_proofs and proofs is not None:
        raise UsageError("give --prove or --proofs, not both")
    proof_data = None
    with busy("building the site", quiet=quiet):
        if run_proofs:
            from errdex.prove import prove  # start-up: see the module's docstring

            proof_data = prove(list(records) or None).as_dict()
        report = build_site(out, records=list(records) or None, base_url=base_url, proofs=proof_data or proofs,
                            search=not no_search,
                            on_wait=lambda: stderr_line(f"waiting for another errdex site build beside {out} to "
                                                        "finish"))
    if not quiet:
        plural = "" if report.records == 1 else "s"
        stderr_line(f"built {report.pages} pages for {report.records} record{plural} in {report.out} "
                    f"({report.seconds:.1f} s, search index {report.search_seconds:.1f} s); "
                    f"serve it with: errdex site serve --dir {report.out}")
    return 0


@site_group.command("serve")
@click.option("--dir", "folder", type=PathType(file_okay=False, path_type=Path), callback=no_dash, default=None,
              help=f"The built site [default: {DEFAULT_OUT}, built first when it holds none].")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@records_option
@quiet_option
def serve_command(folder: Path | None, port: int, records: tuple[str, ...], quiet: bool) -> int:
    """Serve a built site on 127.0.0.1 (search and the matcher need HTTP, not file://).

    \b
    Example:
      errdex site serve
      errdex site serve --dir public --port 9000
    """
    from errdex.site import serve_site  # start-up: see the module's docstring

    if folder is None:  # a folder named on the command line is served as it is, never created
        folder = Path(DEFAULT_OUT)
        if not (folder / "index.html").is_file():
            build_site(folder, records=list(records) or None)
    server = serve_site(folder, port=port)
    if not quiet:
        stderr_line(f"serving {folder} at {server.url} (Ctrl-C to stop)")
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
