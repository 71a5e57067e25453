"""The documentation site: a static folder with a page per record, search, a log-line matcher and proofs.

``build_site`` renders the jinja2 templates in the project's ``site/`` folder
(one typed context per page kind, :mod:`errdex.site.pages`) into a folder
that works from any sub-path and makes no request outside itself;
``serve_site`` serves such a folder on 127.0.0.1. (Loaded on first use, so
that reading a record's URL does not import the renderer.)
"""

from typing import TYPE_CHECKING

from errdex._lazy import lazy_names

__all__ = ["SiteReport", "build_site", "serve_site"]

_LAZY = {"SiteReport": "errdex.site.build", "build_site": "errdex.site.build", "serve_site": "errdex.site.serve"}


__getattr__ = lazy_names("errdex.site", _LAZY, globals())


if TYPE_CHECKING:
    from errdex.site.build import SiteReport, build_site
    from errdex.site.serve import serve_site
