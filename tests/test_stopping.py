"""While a run holds what it must clean up, SIGTERM and SIGHUP unwind it as an exception; in a critical block they
wait for its end; a handler the program set itself is left alone."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from errdex._stopping import critical, stop_on_signals
from errdex.errors import Stopped


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_unwinds_the_block_through_its_finally(signum: int) -> None:
    cleaned = []
    with pytest.raises(Stopped, match=f"stopped by {signal.Signals(signum).name}"), stop_on_signals():
        try:
            os.kill(os.getpid(), signum)  # the handler runs as os.kill returns
        finally:
            cleaned.append(True)
    assert cleaned and signal.getsignal(signum) is signal.SIG_DFL, "the default is back after the block"


def test_a_signal_in_a_critical_block_waits_for_its_end() -> None:
    steps = []
    with pytest.raises(Stopped), stop_on_signals():
        with critical():
            os.kill(os.getpid(), signal.SIGTERM)
            steps.append("after the signal, still in the block")
        steps.append("never: the signal is raised as the block ends")
    assert steps == ["after the signal, still in the block"]


def test_sigint_stays_a_keyboard_interrupt_and_a_programs_own_handler_is_kept() -> None:
    seen = []
    previous = signal.signal(signal.SIGHUP, lambda signum, frame: seen.append(signum))
    # as a terminal has it, even when the suite runs as a background job (whose shell made SIGINT ignored)
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt), stop_on_signals():
            os.kill(os.getpid(), signal.SIGHUP)
            os.kill(os.getpid(), signal.SIGINT)
        assert seen == [signal.SIGHUP]
    finally:
        signal.signal(signal.SIGHUP, previous)
        signal.signal(signal.SIGINT, interrupt)


def test_outside_the_main_thread_nothing_is_installed() -> None:
    found = []

    def work() -> None:
        with stop_on_signals(), critical():
            found.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert found == [signal.SIG_DFL]
