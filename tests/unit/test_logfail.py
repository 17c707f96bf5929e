"""The log-fail handler (tests/logfail.py) run on tests of its own, in a pytest of their own:
an error our code logs fails the test, on the test's thread or another, unless the test marks
it as expected; an error of another library's logger does not."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

PROBE = textwrap.dedent('''
    import logging, threading
    import pytest

    log = logging.getLogger("memorydesk.ui")

    def test_logs_an_error():
        log.error("a bug of ours")

    def test_logs_from_another_thread():
        t = threading.Thread(target=lambda: log.exception("failed on the worker", exc_info=ValueError("x")))
        t.start(); t.join()

    @pytest.mark.logs_error("a bug of ours")
    def test_expects_it():
        log.error("a bug of ours, on purpose")

    @pytest.mark.logs_error("something else")
    def test_expects_another():
        log.error("a bug of ours")

    def test_a_warning_and_another_library_pass():
        log.warning("only a warning")
        logging.getLogger("urllib3").error("not ours")
''')


def test_an_error_our_code_logs_fails_the_test_unless_it_is_expected(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE)
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
                                          "pytest_plugins = ['logfail']\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
                           "-n", "0", "-rA", "-c", "/dev/null", "--rootdir", str(tmp_path), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    out = done.stdout
    assert "FAILED test_probe.py::test_logs_an_error" in out and "a bug of ours" in out
    assert "FAILED test_probe.py::test_logs_from_another_thread" in out and "failed on the worker" in out
    assert "PASSED test_probe.py::test_expects_it" in out
    assert "FAILED test_probe.py::test_expects_another" in out
    assert "PASSED test_probe.py::test_a_warning_and_another_library_pass" in out
