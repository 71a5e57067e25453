from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from errdex.errors import InputError, UsageError
from errdex.harvest import source as source_module
from errdex.harvest.source import Source, read_source, skip_reason
from tests.harvest.conftest import crafted_commit, git, write_tree

Repo = Callable[[dict[str, str]], tuple[Path, str]]
FILES = {"src/a.py": "raise ValueError('a')\n", "src/b.go": "package b\n", "tests/test_a.py": "x\n",
         "src/test_b.py": "x\n", "README.md": "hi\n"}


def _paths(found: Source) -> list[str]:
    return [file.path for file in found.files]


def test_a_git_repository_is_read_at_a_revision_without_a_checkout(git_repo: Repo) -> None:
    repo, first = git_repo(FILES)
    git_repo({"src/a.py": "raise ValueError('changed')\n", "src/c.py": "new\n"})
    (repo / "src/a.py").write_text("not committed\n")
    found = read_source(repo, rev=first)
    assert found.sha == first and len(found.sha) == 40
    assert _paths(found) == ["README.md", "src/a.py", "src/b.go"]
    assert found.files[1].data == b"raise ValueError('a')\n"
    assert found.skipped == {"test": ["src/test_b.py", "tests/test_a.py"]}


def test_a_bare_repository_is_read_at_a_revision_or_its_head(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    git(bare, "tag", "v1", sha)
    assert read_source(bare, rev="v1").sha == sha
    assert _paths(read_source(bare)) == _paths(read_source(bare, rev="main"))


def test_only_the_supported_files_are_read(git_repo: Repo) -> None:
    repo, sha = git_repo(FILES)
    found = read_source(repo, rev=sha, supported=lambda path: path.endswith(".py"))
    assert _paths(found) == ["src/a.py"]
    assert "README.md" not in str(found.skipped)


def test_an_unknown_revision_is_one_line(git_repo: Repo) -> None:
    repo, _ = git_repo(FILES)
    with pytest.raises(UsageError, match="no commit 'nope'") as caught:
        read_source(repo, rev="nope")
    assert "\n" not in str(caught.value)


def test_rev_on_a_plain_folder_is_refused(tmp_path: Path) -> None:
    write_tree(tmp_path / "plain", FILES)
    with pytest.raises(UsageError, match="not a git repository"):
        read_source(tmp_path / "plain", rev="HEAD")


def test_a_folder_outside_git_borrows_no_commit(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    write_tree(folder, FILES)
    found = read_source(folder)
    assert found.sha is None and found.version is None and _paths(found) == ["README.md", "src/a.py", "src/b.go"]
    found = read_source(folder, sha="b" * 40)
    assert found.sha == "b" * 40 and _paths(found) == ["README.md", "src/a.py", "src/b.go"]


def test_an_installed_package_is_read_with_its_version_not_as_vendored(tmp_path: Path) -> None:
    """A package in a ``site-packages`` or ``dist-packages`` outside git: its files, and the release its
    ``*.dist-info`` (or ``*.egg-info``) names; a ``site-packages`` below the folder given is still vendored."""
    for packages in ("lib/python3.11/site-packages", "dist-packages"):
        root = tmp_path / packages
        write_tree(root, {"demo/core.py": "raise ValueError('a')\n", "demo/site-packages/x/y.py": "x\n",
                          "demo_pkg-1.2.3.dist-info/METADATA": "Metadata-Version: 2.1\nName: demo-pkg\n"
                                                               "Version: 1.2.3\n",
                          "demo_pkg-1.2.3.dist-info/top_level.txt": "demo\n"})
        found = read_source(root / "demo")
        assert (found.sha, found.version, _paths(found)) == (None, "demo-pkg 1.2.3", ["core.py"])
        assert found.skipped == {"vendored": ["site-packages/x/y.py"]}
        # the packages folder itself (or one above it) is what was asked for too
        assert "demo/core.py" in _paths(read_source(root))


def test_a_folder_the_outer_work_tree_ignores_or_does_not_track_takes_no_commit(git_repo: Repo) -> None:
    repo, sha = git_repo({".gitignore": ".venv/\n", "src/a.py": "raise ValueError('a')\n"})
    installed = repo / ".venv" / "lib" / "python3.11" / "site-packages"
    write_tree(installed, {"demo/core.py": "raise ValueError('b')\n",
                           "demo-2.0.dist-info/METADATA": "Name: demo\nVersion: 2.0\n"})
    write_tree(repo, {"untracked/mod.py": "raise ValueError('c')\n"})
    found = read_source(installed / "demo")
    assert (found.sha, found.version, _paths(found), found.skipped) == (None, "demo 2.0", ["core.py"], {})
    found = read_source(repo / "untracked")
    assert (found.sha, _paths(found)) == (None, ["mod.py"])
    # a folder the work tree does track still takes its commit and its path in the repository
    found = read_source(repo / "src")
    assert (found.sha, _paths(found)) == (sha, ["src/a.py"])


@pytest.mark.parametrize("sha", ["abc", "B" * 40, "g" * 40])
def test_a_sha_that_is_no_full_commit_id_is_refused(tmp_path: Path, sha: str) -> None:
    with pytest.raises(UsageError, match="full commit id"):
        read_source(tmp_path, sha=sha)


def test_rev_and_sha_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not both"):
        read_source(tmp_path, rev="HEAD", sha="a" * 40)


def test_a_missing_source_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        read_source(tmp_path / "nothing", sha="a" * 40)


def test_a_folder_inside_a_work_tree_takes_its_head_and_repository_paths(git_repo: Repo) -> None:
    repo, sha = git_repo(FILES)
    found = read_source(repo / "src")
    assert found.sha == sha
    assert _paths(found) == ["src/a.py", "src/b.go"]


def test_one_file_is_a_source(tmp_path: Path) -> None:
    write_tree(tmp_path, {"client.ts": "throw new Error('x');\n"})
    found = read_source(tmp_path / "client.ts", sha="c" * 40)
    assert _paths(found) == ["client.ts"]


def test_symbolic_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_tree(outside, {"secret.py": "raise X('s')\n"})
    folder = tmp_path / "tree"
    write_tree(folder, {"a.py": "x\n"})
    os.symlink(outside / "secret.py", folder / "link.py")
    os.symlink(outside, folder / "linked")
    found = read_source(folder, sha="a" * 40)
    assert _paths(found) == ["a.py"]
    assert found.skipped == {"symlink": ["link.py", "linked"]}


def test_a_symbolic_link_in_git_is_skipped(git_repo: Repo) -> None:
    repo, _ = git_repo({"a.py": "x\n"})
    os.symlink("a.py", repo / "b.py")
    _, sha = git_repo({})
    assert read_source(repo, rev=sha).skipped == {"symlink": ["b.py"]}


@pytest.mark.parametrize(("path", "reason"), [
    ("tests/x.py", "test"), ("a/test/x.java", "test"), ("src/__tests__/x.ts", "test"), ("src/test/Foo.java", "test"),
    ("test_x.py", "test"), ("x_test.py", "test"), ("x_test.go", "test"), ("x.test.ts", "test"),
    ("x.spec.js", "test"), ("node_modules/y/index.js", "vendored"), ("vendor/a.go", "vendored"),
    ("third_party/a.c", "vendored"),
    (".venv/lib/site-packages/x.py", "vendored"), ("build/a.js", "build"), ("dist/a.js", "build"),
    ("a.pb.go", "generated"),
    ("a_pb2.py", "generated"), ("a.min.js", "generated"), ("src/main.py", None), ("src/testing.py", None),
    ("latest/a.py", None),
])
def test_default_skips(path: str, reason: str | None) -> None:
    assert skip_reason(path) == reason


def test_include_tests_keeps_tests_but_not_vendored_code() -> None:
    assert skip_reason("tests/x.py", include_tests=True) is None
    assert skip_reason("vendor/x.go", include_tests=True) == "vendored"


@pytest.mark.parametrize(("glob", "path"), [("contrib", "contrib/a.c"), ("contrib/*", "contrib/x/a.c"),
                                            ("*.h", "inc/a.h"), ("regress*", "regress/a.c")])
def test_exclude_globs_skip_files_and_folders(glob: str, path: str) -> None:
    assert skip_reason(path, exclude=[glob]) == "excluded"
    assert skip_reason("src/keep.c", exclude=[glob]) is None


def test_generated_minified_and_large_files_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_module, "MAX_FILE_BYTES", 10_000)
    write_tree(tmp_path, {"gen.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n",
                          "app.js": "var a=1;" * 1000, "big.py": "x = 1\n" * 3000, "ok.py": "x = 1\n"})
    found = read_source(tmp_path, sha="a" * 40)
    assert _paths(found) == ["ok.py"]
    assert found.skipped == {"minified": ["app.js"], "too-large": ["big.py"], "generated": ["gen.go"]}


def test_a_path_prefix_puts_a_folder_at_its_place_in_the_repository(tmp_path: Path) -> None:
    write_tree(tmp_path, {"client.ts": "throw new Error('x');\n", "lib/a.py": "x\n"})
    found = read_source(tmp_path / "client.ts", sha="c" * 40, path_prefix="packages/createos/src")
    assert _paths(found) == ["packages/createos/src/client.ts"]
    found = read_source(tmp_path, sha="c" * 40, path_prefix="./pkg//src/")
    assert _paths(found) == ["pkg/src/client.ts", "pkg/src/lib/a.py"]
    assert _paths(read_source(tmp_path, sha="c" * 40, path_prefix="")) == ["client.ts", "lib/a.py"]


def test_a_path_prefix_replaces_the_work_trees_own(git_repo: Repo) -> None:
    repo, sha = git_repo(FILES)
    found = read_source(repo / "src", path_prefix="moved/src")
    assert found.sha == sha and _paths(found) == ["moved/src/a.py", "moved/src/b.go"]


def test_a_path_prefix_skips_by_the_repository_path(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "x\n"})
    write_tree(tmp_path, {"vendor/b.py": "x\n"})
    found = read_source(tmp_path, sha="c" * 40, path_prefix="vendor/lib")
    # the folder given is what was asked for, wherever it sits; a vendored folder below it is not
    assert _paths(found) == ["vendor/lib/a.py"] and found.skipped == {"vendored": ["vendor/lib/vendor/b.py"]}


@pytest.mark.parametrize(("prefix", "message"), [("/abs/src", "absolute"), ("a/../b", "'..'"),
                                                 ("a\\b", "'/'"), ("a\nb", "U\\+000A"), ("x\udcff", "UTF-8")])
def test_a_path_prefix_outside_the_repository_is_refused(tmp_path: Path, prefix: str, message: str) -> None:
    write_tree(tmp_path, {"a.py": "x\n"})
    with pytest.raises(UsageError, match=message):
        read_source(tmp_path, sha="c" * 40, path_prefix=prefix)


def test_a_path_prefix_is_for_a_folder_not_a_repository(git_repo: Repo) -> None:
    repo, _ = git_repo(FILES)
    with pytest.raises(UsageError, match="--path-prefix"):
        read_source(repo, rev="HEAD", path_prefix="src")


def test_a_tree_entry_named_dot_dot_or_not_utf8_is_skipped_as_an_unsafe_path(git_repo: Repo) -> None:
    repo, _ = git_repo({"app.py": "x\n"})
    sha = crafted_commit(repo, {b"../app.py": b"x\n", b"x\xff.py": b"x\n", b"a\nb.py": b"x\n", b"a\\b.py": b"x\n",
                                b"src/ok.py": b"x\n"})
    found = read_source(repo, rev=sha)
    assert _paths(found) == ["src/ok.py"]
    assert found.skipped == {"unsafe-path": ["../app.py", "a\nb.py", "a\\b.py"], "undecodable-name": ["x\udcff.py"]}


@pytest.mark.skipif(os.uname().sysname == "Darwin", reason="macOS refuses file names that are not UTF-8")
def test_a_folder_file_whose_name_is_not_utf8_or_holds_a_newline_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    write_tree(folder, {"ok.py": "x\n", "a\nb.py": "x\n", "tab\there.py": "x\n"})
    with open(os.path.join(os.fsencode(folder), b"x\xff.py"), "wb") as handle:
        handle.write(b"x\n")
    found = read_source(folder, sha="b" * 40)
    assert _paths(found) == ["ok.py"]
    assert found.skipped == {"undecodable-name": ["x\udcff.py"], "unsafe-path": ["a\nb.py", "tab\there.py"]}


def test_a_submodule_in_a_folder_is_skipped_as_in_git(tmp_path: Path) -> None:
    folder = tmp_path / "tree"
    write_tree(folder, {"a.py": "x\n", "lib/sub/s.py": "raise ValueError('not ours')\n"})
    (folder / "lib" / "sub" / ".git").write_text("gitdir: ../../.git/modules/sub\n")
    found = read_source(folder, sha="a" * 40)
    assert _paths(found) == ["a.py"]
    assert found.skipped == {"submodule": ["lib/sub"]}
