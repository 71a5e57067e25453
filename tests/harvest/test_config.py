from __future__ import annotations

from pathlib import Path

import pytest

from errdex.errors import ConfigError
from errdex.harvest.config import HarvestConfig, load_harvest_config
from errdex.harvest.sinks import Sink

SSHD = """
log-levels = "all"
exclude = ["regress", "contrib/*"]

[[sinks]]
name = "do_log2"
format-arg = 1
level = "from-arg"
level-arg = 0

[[sinks]]
name = "fatal"
level = "fatal"

[[sinks]]
name = "logger_info"
level = "notice"
style = "plain"
"""


def test_a_config_file_gives_sinks_and_settings(tmp_path: Path) -> None:
    path = tmp_path / "sshd.toml"
    path.write_text(SSHD)
    config = load_harvest_config(config=path)
    assert config.sinks == (Sink("do_log2", 1, None, "printf", 0), Sink("fatal", 0, "fatal"),
                            Sink("logger_info", 0, "info", "plain"))
    assert config.log_levels == "all" and config.exclude == ("regress", "contrib/*")
    assert config.include_tests is None


def test_the_same_keys_under_tool_errdex_harvest(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("[tool.errdex.harvest]\ninclude-tests = true\nlog-levels = ['error']\n"
                    "[[tool.errdex.harvest.sinks]]\nname = 'report'\n")
    config = load_harvest_config(config=path)
    assert config.sinks == (Sink("report"),) and config.include_tests is True and config.log_levels == "error"


def test_a_folder_pyproject_section_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n[[tool.errdex.harvest.sinks]]\n"
                                             "name = 'warn_user'\nlevel = 'warning'\nstyle = 'python-percent'\n")
    config = load_harvest_config(folder=tmp_path)
    assert config.sinks == (Sink("warn_user", 0, "warning", "python-percent"),)


def test_a_sink_says_what_it_writes_before_and_after_the_message(tmp_path: Path) -> None:
    path = tmp_path / "sshd.toml"
    path.write_text("[[sinks]]\nname = 'fatal_fr'\nformat-arg = 1\nlevel = 'fatal'\n"
                    "prefix = '{function}: '\nsuffix = ': %s'\n")
    assert load_harvest_config(config=path).sinks == (Sink("fatal_fr", 1, "fatal", "printf", None, "{function}: ",
                                                           ": %s"),)


def test_no_config_is_empty_settings(tmp_path: Path) -> None:
    assert load_harvest_config(folder=tmp_path) == HarvestConfig()
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert load_harvest_config(folder=tmp_path) == HarvestConfig()


@pytest.mark.parametrize(("text", "where"), [
    ("colour = 1\n", "unknown key 'colour'"),
    ("[[sinks]]\nname = 'x'\nformat-arg = -1\n", "sinks[0].format-arg"),
    ("[[sinks]]\nname = 'x'\nformat-arg = true\n", "sinks[0].format-arg"),
    ("[[sinks]]\nname = ''\n", "sinks[0].name"),
    ("[[sinks]]\nname = 'x'\nlevel = 'loud'\n", "sinks[0].level"),
    ("[[sinks]]\nname = 'x'\nlevel = 'from-arg'\n", "sinks[0].level-arg"),
    ("[[sinks]]\nname = 'x'\nlevel-arg = 1\n", "sinks[0].level-arg"),
    ("[[sinks]]\nname = 'x'\nstyle = 'cobol'\n", "sinks[0].style"),
    ("[[sinks]]\nname = 'x'\nformat = 1\n", "sinks[0].format"),
    ("[[sinks]]\nname = 'a'\n[[sinks]]\nname = 'b'\nlevel = 3\n", "sinks[1].level"),
    ("sinks = 3\n", "sinks"),
    ("exclude = 'x'\n", "exclude"),
    ("include-tests = 'yes'\n", "include-tests"),
    ("log-levels = 'loud'\n", "log-levels"),
    ("sinks = [\n", "not valid TOML"),
    ('[[sinks]]\nname = "a\\nb"\n', "sinks[0].name"),
    ("[[sinks]]\nname = 'a b'\n", "sinks[0].name"),
    ("[[sinks]]\nname = 'a..b'\n", "sinks[0].name"),
    ("[[sinks]]\nname = '1st'\n", "sinks[0].name"),
    ("[[sinks]]\nname = 'log('\n", "sinks[0].name"),
    ("[[sinks]]\nname = ' x'\n", "sinks[0].name"),
    ("[[sinks]]\nname = ['x']\n", "sinks[0].name"),
    (f"[[sinks]]\nname = '{'x' * 201}'\n", "sinks[0].name"),
    ("[[sinks]]\nname = 'x'\nformat-arg = 256\n", "sinks[0].format-arg"),
    ("[[sinks]]\nname = 'x'\nformat-arg = 1.5\n", "sinks[0].format-arg"),
    ("[[sinks]]\nname = 'x'\nstyle = ['printf']\n", "sinks[0].style"),
    ("[[sinks]]\nname = 'x'\nlevel = 'from-arg'\nlevel-arg = 'first'\n", "sinks[0].level-arg"),
    ('[[sinks]]\nname = "x"\n"a\\nb" = 1\n', "sinks[0].'a\\nb'"),
    ('"a\\nb" = 1\n', "unknown key 'a\\nb'"),
    ("sinks = [1]\n", "sinks[0]"),
    ("exclude = ['ok', 3]\n", "exclude[1]"),
    ('exclude = ["a\\nb"]\n', "exclude[0]"),
    ("exclude = ['']\n", "exclude[0]"),
    (f"exclude = [{', '.join(['1'] * 1001)}]\n", "exclude"),
    ("log-levels = ['error', 3]\n", "log-levels"),
    ("log-levels = 3\n", "log-levels"),
    ("include-tests = 1\n", "include-tests"),
    ("[[sinks]]\nname = 'x'\nprefix = 3\n", "sinks[0].prefix"),
    ('[[sinks]]\nname = "x"\nsuffix = "a\\nb"\n', "sinks[0].suffix"),
    (f"[[sinks]]\nname = 'x'\nsuffix = '{'x' * 201}'\n", "sinks[0].suffix"),
])
def test_a_bad_config_is_one_line_naming_file_and_key(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_harvest_config(config=path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and where in message


def test_a_bad_pyproject_section_names_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.errdex]\nharvest = 3\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml \[tool.errdex.harvest\]: must be a table"):
        load_harvest_config(folder=tmp_path)


def test_a_config_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_harvest_config(config=path)


@pytest.mark.parametrize("name", ["do_log2", "log.Printf", "self.logger.warn", "$log", "_x", "\u00e9crire"])
def test_a_sink_name_is_an_identifier_or_a_dotted_name(tmp_path: Path, name: str) -> None:
    path = tmp_path / "sinks.toml"
    path.write_text(f"[[sinks]]\nname = '{name}'\n", encoding="utf-8")
    assert load_harvest_config(config=path).sinks == (Sink(name),)


def test_a_config_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    with path.open("wb") as handle:  # 100 MB of holes: the size alone refuses it
        handle.truncate(100 * 1024 * 1024)
    with pytest.raises(ConfigError, match="holds at most") as caught:
        load_harvest_config(config=path)
    assert "\n" not in str(caught.value)


def test_a_pyproject_that_is_not_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"\x00\x01 not [toml\n")
    with pytest.raises(ConfigError, match=r"pyproject\.toml: not valid TOML") as caught:
        load_harvest_config(folder=tmp_path)
    assert "\n" not in str(caught.value)


def test_a_pyproject_linked_from_outside_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.toml"
    outside.write_text("[[tool.errdex.harvest.sinks]]\nname = 'planted'\n")
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "pyproject.toml").symlink_to(outside)
    with pytest.raises(ConfigError, match=r"outside .*--config"):
        load_harvest_config(folder=folder)
    (folder / "pyproject.toml").unlink()
    (folder / "real.toml").write_text("[[tool.errdex.harvest.sinks]]\nname = 'kept'\n")
    (folder / "pyproject.toml").symlink_to("real.toml")  # a link inside the folder is read
    assert load_harvest_config(folder=folder).sinks == (Sink("kept"),)
