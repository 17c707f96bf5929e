"""A fresh machine: the set-up names (or installs) Qt's system libraries before the long
work, and a platform that cannot load is explained by name instead of Qt aborting."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import REPO
from memorydesk.resources import resource_path
from memorydesk.ui.shell.platform_check import debian_packages, explain_missing, plugin_file

SCRIPT = REPO / "packaging" / "system-deps.sh"


def as_nobody() -> list[str]:
    """Run a command as an unprivileged user (the set-up then cannot install anything)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="the set-up checks Debian packages only")
def test_without_root_the_setup_stops_at_once_naming_one_exact_command() -> None:
    with tempfile.TemporaryDirectory() as folder:  # readable by the unprivileged user
        os.chmod(folder, 0o755)
        run_setup_without_root(Path(folder))


def run_setup_without_root(folder: Path) -> None:
    script = folder / SCRIPT.name
    shutil.copyfile(SCRIPT, script)
    listing = folder / "libraries.txt"
    listing.write_text("# platform package library\n"
                       "offscreen libc6 libc.so.6\n"
                       "xcb memory-desk-test-absent-a libabsent-a.so.1\n"
                       "xcb memory-desk-test-absent-b libabsent-b.so.1\n"
                       "wayland memory-desk-test-not-asked libnot-asked.so.1\n")
    env = {**os.environ, "MEMORYDESK_PLATFORM_LIST": str(listing)}
    result = subprocess.run([*as_nobody(), "sh", str(script), "xcb"], env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1] == "sudo apt-get install -y memory-desk-test-absent-a memory-desk-test-absent-b"
    assert "xcb platform" in lines[0]
    offscreen = subprocess.run([*as_nobody(), "sh", str(script), "offscreen"], env=env, capture_output=True,
                               text=True, timeout=60)
    assert offscreen.returncode == 0 and offscreen.stderr == ""


def test_the_library_list_covers_what_the_xcb_plugin_links() -> None:
    plugin = plugin_file("xcb", {})
    assert plugin is not None
    out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, timeout=60).stdout
    linked = set(re.findall(r"^\s*((?:libxcb|libX11|libxkbcommon|libGL|libEGL|libfontconfig|libfreetype|libdbus|"
                            r"libglib|libgthread)[\w.+-]*\.so[\w.]*)\s", out, re.MULTILINE))
    assert "libxcb-icccm.so.4" in linked and "libxcb-cursor.so.0" in linked
    listed = debian_packages()
    assert sorted(linked - set(listed)) == []
    assert listed["libxcb-keysyms.so.1"] == "libxcb-keysyms1"


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="the list names Debian packages")
def test_each_listed_package_is_the_one_that_carries_its_library() -> None:
    """The installed libraries are owned by the packages the list names (so apt can install them)."""
    owners = {}
    for library, package in debian_packages().items():
        found = subprocess.run(["dpkg-query", "-S", f"*/{library}"], capture_output=True, text=True, timeout=60)
        if found.returncode == 0:
            owners[library] = {line.split(":")[0] for line in found.stdout.splitlines()}
            assert package in owners[library], f"{library} is in {owners[library]}, not {package}"
    assert len(owners) >= 10  # most of the list is installed wherever the suite runs


def test_a_missing_library_gets_its_debian_package_named() -> None:
    text = explain_missing("xcb", ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"], "")
    assert "missing libraries libxcb-icccm.so.4, libxcb-keysyms.so.1" in text
    assert text.endswith("sudo apt-get install -y libxcb-icccm4 libxcb-keysyms1")
    assert resource_path("qt-platform-libraries.txt").is_file()


def broken_plugin_folder(tmp_path: Path) -> Path:
    """The real xcb plugin, with one library it needs renamed to one no machine has.

    The copy sits in the same layout as Qt's own (``Qt/plugins/platforms`` beside a
    link to ``Qt/lib``), so everything else it needs is found as usual.
    """
    real = plugin_file("xcb", {})
    assert real is not None
    qt = tmp_path / "Qt"
    platforms = qt / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    (qt / "lib").symlink_to(real.parents[2] / "lib")
    data = real.read_bytes()
    assert data.count(b"libxcb-icccm.so.4\x00") == 1
    (platforms / real.name).write_bytes(data.replace(b"libxcb-icccm.so.4\x00", b"libxcb-qqqqq.so.4\x00"))
    return platforms


@pytest.mark.parametrize("command", [["shot", "WS", "--out", "OUT"], ["WS"]])
def test_a_platform_that_cannot_load_is_named_before_qt_aborts(tmp_path: Path, product_db: Path,
                                                                 command: list[str]) -> None:
    platforms = broken_plugin_folder(tmp_path)
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0", "QT_QPA_PLATFORM_PLUGIN_PATH": str(platforms),
           "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    args = [str(product_db) if a == "WS" else str(tmp_path / "x.png") if a == "OUT" else a for a in command]
    result = subprocess.run([sys.executable, "-m", "memorydesk", *args], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result.stderr  # not Qt's abort (-6)
    assert result.stderr.count("\n") == 1
    # the planted library is named first; a machine set up for offscreen only lacks more of xcb's
    assert re.match(r"memory-desk: Qt's xcb platform cannot load: missing librar(y|ies) libxcb-qqqqq\.so\.4[,.]",
                    result.stderr), result.stderr
    assert not (tmp_path / "x.png").exists()


def test_an_x_server_that_cannot_be_reached_is_said_in_one_line(tmp_path: Path, product_db: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":93", "HOME": str(tmp_path)}
    env.pop("QT_QPA_PLATFORM_PLUGIN_PATH", None)
    result = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(product_db), "--out",
                             str(tmp_path / "x.png")], env=env, capture_output=True, text=True, timeout=120)
    if "cannot load" in result.stderr:
        pytest.skip("this machine lacks the xcb libraries themselves: " + result.stderr)
    assert result.returncode == 2
    assert result.stderr == ("memory-desk: Qt's xcb platform cannot start: cannot connect to the X display ':93'. "
                             "(To render without a screen, set QT_QPA_PLATFORM=offscreen.)\n")


def test_the_window_without_a_display_says_so(tmp_path: Path, product_db: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}}
    env["HOME"] = str(tmp_path)
    result = subprocess.run([sys.executable, "-m", "memorydesk", str(product_db)], env=env, capture_output=True,
                            text=True, timeout=120)
    if "cannot load" in result.stderr:
        pytest.skip("this machine lacks the xcb libraries themselves: " + result.stderr)
    assert result.returncode == 2
    assert result.stderr == ("memory-desk: Qt's xcb platform cannot start: no X display: DISPLAY is not set. "
                             "(To render without a screen, set QT_QPA_PLATFORM=offscreen.)\n")
