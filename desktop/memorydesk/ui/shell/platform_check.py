"""Can Qt's platform plugin load here? Asked before the QApplication exists.

When the ``xcb`` plugin (the X11 window) cannot load, Qt prints a misleading line
(it names ``libxcb-cursor0`` whatever is missing) and aborts the process. Qt finds the
real cause by loading the plugin with the dynamic loader, which names the first
library it cannot open (``QT_DEBUG_PLUGINS=1`` shows it); we do the same, then ask
``ldd`` for every missing library and name the Debian package of each, so a person
gets one sentence instead of an abort. An X server that cannot be reached is caught
the same way (Qt would abort on that too).

``python -m memorydesk.ui.shell.platform_check`` prints the problem and exits 1, or exits
0 silently: the set-up runs it before the long work.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QLibraryInfo

from memorydesk.core.errors import MemoryDeskError
from memorydesk.resources import resource_path

LIBRARY_LIST = "qt-platform-libraries.txt"
_CANNOT_OPEN = re.compile(r"([\w.+-]+\.so[\w.]*): cannot open shared object file")
_NOT_FOUND = re.compile(r"^\s*(\S+) => not found", re.MULTILINE)


class PlatformUnavailable(MemoryDeskError):
    """Qt's platform plugin cannot start here (a missing library, no display)."""


def chosen_platform(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """The platform Qt will pick on Linux: ``QT_QPA_PLATFORM``'s first entry, else
    wayland in a Wayland session, else xcb."""
    requested = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if requested:
        return requested
    if environ.get("WAYLAND_DISPLAY") and environ.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def plugin_file(platform: str, environ: dict[str, str] | os._Environ[str] = os.environ) -> Path | None:
    """The plugin Qt would load for ``platform`` (``QT_QPA_PLATFORM_PLUGIN_PATH`` first)."""
    folders = [Path(environ["QT_QPA_PLATFORM_PLUGIN_PATH"])] if environ.get("QT_QPA_PLATFORM_PLUGIN_PATH") else []
    folders.append(Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms")
    for folder in folders:
        candidate = folder / f"libq{platform}.so"
        if candidate.is_file():
            return candidate
    return None


def debian_packages() -> dict[str, str]:
    """Library file name → the Debian package that carries it (from the shipped list)."""
    packages: dict[str, str] = {}
    path = resource_path(LIBRARY_LIST)
    if not path.is_file():
        return packages
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 3 and not fields[0].startswith("#"):
            packages[fields[2]] = fields[1]
    return packages


def load_error(plugin: Path) -> str | None:
    """What the dynamic loader says when it loads ``plugin`` as Qt would; ``None`` if it loads."""
    try:
        ctypes.CDLL(str(plugin), mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError as exc:
        return str(exc)
    return None


def missing_libraries(plugin: Path, error: str) -> list[str]:
    """Every library ``plugin`` needs that cannot be found: ``ldd``'s ``not found`` lines,
    else the one the loader named in ``error``."""
    names: list[str] = []
    ldd = shutil.which("ldd")
    if ldd:
        try:
            out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        names = list(dict.fromkeys(_NOT_FOUND.findall(out)))
    first = _CANNOT_OPEN.search(error)
    if first and first.group(1) not in names:
        names.insert(0, first.group(1))
    return names


def explain_missing(platform: str, names: list[str], error: str) -> str:
    if not names:
        return f"Qt's {platform} platform cannot load: {error}"
    packages = debian_packages()
    known = [packages[n] for n in names if n in packages]
    listed = ", ".join(names)
    text = f"Qt's {platform} platform cannot load: missing {'library' if len(names) == 1 else 'libraries'} {listed}."
    if known:
        text += " On Debian or Ubuntu: sudo apt-get install -y " + " ".join(dict.fromkeys(known))
    return text


def display_error(environ: dict[str, str] | os._Environ[str] = os.environ) -> str | None:
    """Why the X server cannot be reached, or ``None`` when it can (xcb_connect, as Qt does)."""
    display = environ.get("DISPLAY", "")
    if not display:
        return "no X display: DISPLAY is not set"
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None  # already reported as a missing library
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)
    try:
        failed = xcb.xcb_connection_has_error(connection) if connection else 1
    finally:
        if connection:
            xcb.xcb_disconnect(connection)
    return f"cannot connect to the X display {display!r}" if failed else None


def platform_problem(environ: dict[str, str] | os._Environ[str] = os.environ) -> str | None:
    """One sentence saying why Qt's platform would fail to start, or ``None``.

    Only the xcb platform is checked in depth (the one that fails on bare machines);
    offscreen and the others are left to Qt.
    """
    if not sys.platform.startswith("linux"):
        return None
    platform = chosen_platform(environ)
    if platform != "xcb":
        return None
    plugin = plugin_file(platform, environ)
    if plugin is None:
        return None  # Qt lists the plugins it has; nothing to add
    error = load_error(plugin)
    if error is not None:
        return explain_missing(platform, missing_libraries(plugin, error), error)
    trouble = display_error(environ)
    if trouble is not None:
        return (f"Qt's xcb platform cannot start: {trouble}. "
                "(To render without a screen, set QT_QPA_PLATFORM=offscreen.)")
    return None


def require_platform() -> None:
    """Raise ``PlatformUnavailable`` when Qt's platform would abort on start."""
    problem = platform_problem()
    if problem is not None:
        raise PlatformUnavailable(problem)


def main() -> int:
    problem = platform_problem()
    if problem is None:
        return 0
    print(f"memory-desk: {problem}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
