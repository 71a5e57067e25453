"""The documentation site: a static folder with a page per record, search, a log-line matcher and proofs.

``build_site`` renders the jinja2 templates in the project's ``site/`` folder
(one typed context per page kind, :mod:`errdex.site.pages`) into a folder
that works from any sub-path and makes no request outside itself;
``serve_site`` serves such a folder on 127.0.0.1.
"""

from errdex.site.build import SiteReport, build_site
from errdex.site.serve import serve_site

__all__ = ["SiteReport", "build_site", "serve_site"]
