"""Shared test helpers: where ../shared/data is, and small product-format fixtures."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from helpers import SAMPLE_DB  # noqa: E402

pytest_plugins = ["logfail"]  # a bug our code logs fails the test that caused it
from suite_setup import _private_profile, pytest_collection_modifyitems, pytest_configure  # noqa: E402,F401 - the suite's set-up


@pytest.fixture
def sample_db(tmp_path: Path) -> Path:
    """A private copy of the product-format sample workspace (skips without ../shared)."""
    if not SAMPLE_DB.exists():
        pytest.skip("../shared/data is not present in this checkout")
    target = tmp_path / "workspace.db"
    shutil.copyfile(SAMPLE_DB, target)
    return target


@pytest.fixture
def expected() -> dict:
    path = SAMPLE_DB.parent / "EXPECTED.json"
    if not path.exists():
        pytest.skip("../shared/data is not present in this checkout")
    return json.loads(path.read_text())


@pytest.fixture
def product_db(tmp_path: Path) -> Path:
    """The project's own small product-format workspace (schema-13 layout)."""
    from fixtures.product_fixture import build

    return build(tmp_path / "product.db")


@pytest.fixture
def newer_product_db(tmp_path: Path) -> Path:
    """The same fixture in the product's newer layout (no ``_table`` suffix)."""
    from fixtures.product_fixture import build

    return build(tmp_path / "newer.db", layout="unsuffixed")


@pytest.fixture(autouse=True)
def _search_copies_inline():
    """Search builds its copies of a file inside the search that asks for them, not on a thread,
    and no test inherits another's: a thread left running past its test would race the next one."""
    from memorydesk.search.copies import follow

    before = follow.settings().background
    follow.configure(background=False)
    follow.forget()
    yield
    follow.forget()
    follow.configure(background=before)
