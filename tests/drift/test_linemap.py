"""The line map from ``git diff -U0 -M``: on text, and on a tiny repository made with real git."""

from __future__ import annotations

from pathlib import Path

from errdex.drift.linemap import LineMap, Mapped, _parse, git_repository, has_commit, line_map, read_files
from tests.drift.conftest import Commit, git

_DIFF = """diff --git a/f.c b/f.c
index 1..2 100644
--- a/f.c
+++ b/f.c
@@ -0,0 +1,2 @@
+top one
+top two
@@ -5,2 +7,3 @@
--- a removed line that looks like a header
-second
+++ an added line that looks like a header
+b
+c
@@ -9 +11,0 @@
-gone
diff --git a/old.c b/new.c
similarity index 100%
rename from old.c
rename to new.c
diff --git a/dead.c b/dead.c
deleted file mode 100644
--- a/dead.c
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
"""


def test_insertions_replacements_and_deletions_shift_the_lines_below() -> None:
    found = _parse(_DIFF.split("\n"))
    assert found.map("f.c", 1) == Mapped("f.c", 3, True)
    assert found.map("f.c", 4) == Mapped("f.c", 6, True)
    assert found.map("f.c", 5) == Mapped("f.c", 7, False)  # replaced: where its hunk landed
    assert found.map("f.c", 6) == Mapped("f.c", 8, False)
    assert found.map("f.c", 7) == Mapped("f.c", 10, True)
    assert found.map("f.c", 9).untouched is False
    assert found.map("f.c", 10) == Mapped("f.c", 12, True)


def test_renamed_deleted_and_unnamed_files() -> None:
    found = _parse(_DIFF.split("\n"))
    assert found.map("old.c", 12) == Mapped("new.c", 12, True)
    assert found.map("dead.c", 1) == Mapped(None, 1, False)
    assert found.map("other.c", 7) == Mapped("other.c", 7, True)
    assert found.renamed("old.c") == "new.c" and found.renamed("dead.c") is None
    assert LineMap().map("x", 3) == Mapped("x", 3, True)


def test_a_real_repository(repo: tuple[Path, Commit]) -> None:
    root, commit = repo
    body = "".join(f"line {n}\n" for n in range(1, 21))
    old = commit({"a.py": body, "b.py": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"})
    lines = body.split("\n")
    lines[9] = "line ten, changed"
    new = commit({"a.py": "new 1\nnew 2\n" + "\n".join(lines), "b.py": None,
                  "c.py": "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"})
    git(root, "mv", "a.py", "moved.py")
    git(root, "commit", "-q", "-m", "rename")
    newer = git(root, "rev-parse", "HEAD")
    assert git_repository(root) and has_commit(root, old) and not has_commit(root, "0" * 40)
    first = line_map(root, old, new)
    assert first.map("a.py", 1) == Mapped("a.py", 3, True)
    assert first.map("a.py", 10).untouched is False
    assert first.map("a.py", 11) == Mapped("a.py", 13, True)
    assert first.map("b.py", 3) == Mapped("c.py", 4, True)  # renamed with an edit: followed
    both = line_map(root, old, newer)
    assert both.map("a.py", 20) == Mapped("moved.py", 22, True)
    assert read_files(root, old, ["b.py", "missing.py"]) == {"b.py": (root / "c.py").read_bytes()[5:]}


def test_a_folder_outside_git_is_no_repository(tmp_path: Path) -> None:
    assert not git_repository(tmp_path / "nothing")
