"""A shippable app: the sdist and the wheel carry resources/, the wheel installed in a
fresh virtual environment runs `check` and `shot`, and the desktop metadata validates.

The fresh environment reuses the dependencies already installed for the tests (a
``.pth`` line pointing at their site-packages) so that nothing is downloaded; Memory
Desk itself comes only from the wheel, and nothing of the checkout is on its path.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from helpers import REPO

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
RESOURCES = ("tokenizer.json", "tokenizer.LICENSE", "qt-platform-libraries.txt", "examples/receipts.jsonl")
PACKAGING = REPO / "packaging"


def tool(name: str) -> str:
    """An external validator; CI installs it, elsewhere its absence skips the check."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed (CI installs it: see .ci/run)")
        pytest.skip(f"{name} is not installed (Debian: desktop-file-utils, appstream)")
    return path


def test_the_desktop_file_validates() -> None:
    result = subprocess.run([tool("desktop-file-validate"), str(PACKAGING / "io.memorydesk.desk.desktop")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


def test_the_appstream_metadata_validates() -> None:
    result = subprocess.run([tool("appstreamcli"), "validate", "--no-net", "--pedantic",
                             str(PACKAGING / "io.memorydesk.desk.metainfo.xml")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not re.search(r"^[EWIP]: ", result.stdout, re.MULTILINE), result.stdout
    metainfo = (PACKAGING / "io.memorydesk.desk.metainfo.xml").read_text()
    assert f'<release version="{VERSION}"' in metainfo
    assert "<launchable type=\"desktop-id\">io.memorydesk.desk.desktop</launchable>" in metainfo


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """sdist and wheel built from a clean copy of the checkout, without a network."""
    source = tmp_path_factory.mktemp("source") / "memory-desk"
    top_level = {".git", ".venv", "build", "dist", "demo", ".pytest_cache", ".hypothesis"}
    anywhere = shutil.ignore_patterns("*.egg-info", "__pycache__")

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = set(anywhere(folder, names))
        return skipped | (top_level & set(names) if Path(folder) == REPO else set())

    shutil.copytree(REPO, source, ignore=ignore)
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out, result.stdout + result.stderr


@pytest.mark.slow
def test_the_build_warns_about_nothing_and_the_sdist_carries_resources(built: tuple[Path, str]) -> None:
    out, log = built
    assert "BuildBackendWarning" not in log and "deprecated" not in log.lower()
    with tarfile.open(out / f"memory_desk-{VERSION}.tar.gz") as sdist:
        names = set(sdist.getnames())
    root = f"memory_desk-{VERSION}"
    for name in RESOURCES:
        assert f"{root}/resources/{name}" in names
    for name in ("setup.py", "packaging/memory-desk.spec", "packaging/io.memorydesk.desk.desktop",
                 "packaging/system-deps.sh"):
        assert f"{root}/{name}" in names


@pytest.mark.slow
def test_the_wheel_carries_every_module_and_the_resources(built: tuple[Path, str]) -> None:
    out, _log = built
    with zipfile.ZipFile(out / f"memory_desk-{VERSION}-py3-none-any.whl") as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(f"memory_desk-{VERSION}.dist-info/METADATA").decode()
    modules = {str(p.relative_to(REPO / "desktop")) for p in (REPO / "desktop" / "memorydesk").rglob("*.py")}
    assert sorted(modules - names) == []
    for name in RESOURCES:
        assert f"memorydesk/_resources/{name}" in names
    assert f"\nVersion: {VERSION}\n" in metadata
    assert "\nLicense-Expression: Apache-2.0\n" in metadata


@pytest.mark.slow
def test_the_wheel_in_a_fresh_venv_runs_check_and_shot(built: tuple[Path, str], tmp_path: Path) -> None:
    out, _log = built
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}
    env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(home / "config"))
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "--quiet", str(out / f"memory_desk-{VERSION}-py3-none-any.whl")],
                               env=env, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    assert (site / "memorydesk" / "_resources" / "tokenizer.json").is_file()
    # the dependencies come from the test environment, after the venv's own site-packages
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_reused_dependencies.pth").write_text("".join(f"{d}\n" for d in sorted(deps)))
    app = venv / "bin" / "memory-desk"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(app), *args], cwd=home, env=env, capture_output=True, text=True, timeout=300)

    where = subprocess.run([python, "-c", "import memorydesk, memorydesk.resources as r; "
                            "print(memorydesk.__file__); print(r.RESOURCES_DIR)"],
                           cwd=home, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert all(Path(p).is_relative_to(venv) for p in where), where
    assert run("--version").stdout.strip() == f"memory-desk {VERSION}"
    workspace = home / "ws.db"
    made = run("demo", "create", str(workspace), "--facts", "200", "--embed", "24", "--quiet")
    assert made.returncode == 0, made.stderr
    embedded = re.search(r"embeddings: (\d+) facts have one", made.stdout)
    assert embedded and int(embedded.group(1)) >= 20, made.stdout  # the tokenizer came from the wheel
    checked = run("check", str(workspace))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip() == "no problems found"
    shot = run("shot", str(workspace), "--tab", "facts", "--out", str(home / "facts.png"))
    assert shot.returncode == 0, shot.stderr
    image = QImage(str(home / "facts.png"))
    assert (image.width(), image.height()) == (1280, 800)
    example = Path(where[1]) / "examples" / "receipts.jsonl"
    classified = run("lineage", "classify", str(example), "--now", "2099-12-31T10:00:00Z")
    assert classified.returncode == 1 and len(classified.stdout.splitlines()) == 9
