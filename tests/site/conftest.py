"""Built sites shared by the site tests: the bundled dataset (with real proofs for a few records) and a hostile one."""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from errdex import build_site
from errdex.prove import prove
from errdex.site.serve import SiteServer, running_site

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "records"
#: Records whose scenarios are proved for real in the test build (the others say "not proven").
PROVED = ["createos-returned-invalid-json", "a-sandbox-command-is-required"]
HOSTILE_SLUG = "hostile-record-for-escaping"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def site_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("site-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ERRDEX_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="session")
def proofs(site_cache: Path) -> dict[str, Any]:
    return prove(only=PROVED).as_dict()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory, proofs: dict[str, Any]) -> Path:
    out = tmp_path_factory.mktemp("built") / "site"
    build_site(out, proofs=proofs)
    return out


def hostile_envelope() -> dict[str, Any]:
    """A valid record whose text fields hold HTML, script and a javascript: URL."""
    source = RECORDS / "paperclipai" / "paperclip" / "createos-returned-invalid-json.json"
    envelope = json.loads(source.read_text(encoding="utf-8"))
    record = copy.deepcopy(envelope["record"])
    script = "<script>window.__xss = 1</script>"
    record.update({
        "id": "00000000deadbeef",
        "slug": HOSTILE_SLUG,
        "errorMessage": f"Hostile {script} message.",
        "messagePattern": "Hostile <script>window\\.__xss = 1</script> message\\.",
        "errorClass": '<img src=x onerror="window.__xss = 2">',
        "documentation": f'Text with {script} and " onmouseover="window.__xss = 3" and <b>bold</b>.',
        "triggerScenarios": "<iframe src=\"javascript:window.__xss = 4\"></iframe> when called.",
        "commonSituations": "' onfocus='window.__xss = 5' autofocus '",
        "solutions": ['<a href="javascript:window.__xss = 6">click</a> to fix.', *record["solutions"]],
        "githubUrl": "javascript:window.__xss = 7",
        "exampleFix": "</code></pre><script>window.__xss = 8</script>",
        "preventionTips": ["<svg onload=\"window.__xss = 9\"></svg>"],
    })
    record["scenarios"] = []
    return {"record": record, "datasetVersion": envelope["datasetVersion"]}


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory: pytest.TempPathFactory, site_cache: Path) -> Path:
    records = tmp_path_factory.mktemp("hostile-records")
    shutil.copytree(RECORDS, records / "records")
    (records / "records" / "hostile.json").write_text(json.dumps(hostile_envelope(), indent=2), encoding="utf-8")
    out = tmp_path_factory.mktemp("hostile") / "site"
    build_site(out, records=[records / "records"], search=False)
    return out


@pytest.fixture(scope="session")
def served(built_site: Path) -> Iterator[SiteServer]:
    with running_site(built_site) as server:
        yield server


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's Chromium, never a downloaded browser."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run 'bash .ci/setup', which installs Debian's chromium")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


def watch(page: Page, served: SiteServer) -> list[str]:
    """The console errors, page errors and requests outside the served site of ``page``, as they come."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: problems.append(f"outside request: {r.url}")
            if not r.url.startswith(served.url) and not r.url.startswith("data:") else None)
    return problems


@pytest.fixture
def site_page(browser: Browser, served: SiteServer) -> Iterator[tuple[Page, list[str]]]:
    """A page whose console errors and requests outside 127.0.0.1 are collected."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    yield page, watch(page, served)
    context.close()
