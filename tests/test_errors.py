"""OSError becomes words in one place: errors.from_oserror names the file and says what went wrong."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

import errdex.records.canonical as canonical
from errdex.errors import DataError, ErrdexError, InputError, from_oserror, os_reason
from errdex.executor.createos import errors as createos


@pytest.mark.parametrize("number", [errno.EIO, errno.ENOENT, errno.EACCES, errno.ENOSPC, errno.ELOOP, errno.EISDIR])
def test_os_errors_are_said_in_our_words(number: int) -> None:
    error = from_oserror(OSError(number, "raw system text", "x.json"), action="read")
    assert isinstance(error, InputError)
    text = str(error)
    assert text.startswith("x.json: cannot read: ") and "Errno" not in text and "raw system text" not in text


def test_an_unmapped_error_falls_back_to_the_system_text_lowercased() -> None:
    assert os_reason(OSError(errno.EBADMSG, "Bad message")) == "bad message"
    assert str(from_oserror(OSError(errno.EBADMSG, "Bad message"), Path("a/b"))) == "a/b: bad message"


def test_an_input_output_error_at_the_command_line_is_one_line_not_errno(cli, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(canonical, "iter_documents", broken)
    result = cli("fmt", str(tmp_path))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "input/output error" in result.stderr and "[Errno" not in result.stderr and "internal" not in result.stderr


def test_a_caller_may_ask_for_another_class_of_error() -> None:
    error = from_oserror(OSError(errno.EACCES, "denied"), Path("m.json"), action="read", error=DataError)
    assert type(error) is DataError and str(error) == "m.json: cannot read: permission denied"


def test_without_a_file_the_words_stand_alone() -> None:
    error = from_oserror(OSError(errno.EADDRINUSE, "Address already in use"), action="listen on h:1")
    assert str(error) == "cannot listen on h:1: address already in use"


def test_the_executor_errors_hang_from_the_same_root() -> None:
    assert all(issubclass(getattr(createos, name), ErrdexError) for name in createos.__all__)
