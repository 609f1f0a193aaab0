"""The standalone build: PyInstaller makes it from this tree, and the built program, not the
venv's, goes through init, add, search, verify and forget and carries every runtime file.

One build (about a minute and a half on two cores) serves all the checks below; it goes to a
temporary folder, so a developer's packaging/dist/ is left alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.e2e]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The one-folder build, made with the Python environment running the tests."""
    out = tmp_path_factory.mktemp("package")
    env = {
        **os.environ,
        "VENV": sys.prefix,
        "PACKAGE_DIST": str(out / "dist"),
        "PACKAGE_WORK": str(out / "work"),
    }
    build = subprocess.run(
        ["bash", str(ROOT / "packaging" / "build.sh")], env=env, capture_output=True, text=True, timeout=900
    )
    assert build.returncode == 0, f"build failed:\n{build.stdout[-3000:]}\n{build.stderr[-6000:]}"
    yield out / "dist" / "veramem"
    shutil.rmtree(out, ignore_errors=True)  # about 250 MB


@pytest.fixture
def broken(built: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of the build, for a test to damage."""
    copy = tmp_path / "veramem"
    shutil.copytree(built, copy, symlinks=True)
    yield copy
    shutil.rmtree(copy, ignore_errors=True)


def smoke(program: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ROOT / "packaging" / "smoke_test.sh"), str(program)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_built_program_passes_the_smoke_test_from_init_to_forget(built: Path) -> None:
    result = smoke(built / "veramem")
    assert result.returncode == 0, result.stdout + result.stderr
    for step in (
        "--version",
        "init",
        "add",
        "search finds the memory",
        "verify",
        "serve",
        "forget",
        "search after forget",
        "verify after forget",
        "mcp --print-config",
        "selfcheck",
    ):
        assert f"smoke: ok   {step}" in result.stdout
    assert "12/12 checks passed" in result.stdout
    assert result.stdout.rstrip().endswith(f"smoke: PASS ({built / 'veramem'})")


def test_a_build_missing_its_tokenizer_fails_the_smoke_test_at_add(broken: Path) -> None:
    (broken / "_internal" / "veramem_desktop" / "models" / "tokenizer.json").unlink()
    result = smoke(broken / "veramem")
    assert result.returncode == 1
    assert "smoke: FAIL at 'add'" in result.stderr
    assert "tokenizer" in result.stderr


def test_the_selfcheck_reports_a_stylesheet_missing_from_the_build(broken: Path) -> None:
    (broken / "_internal" / "veramem_desktop" / "tui" / "screens" / "review.tcss").unlink()
    result = subprocess.run(
        [str(broken / "veramem-selfcheck")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "VERAMEM_NO_KEYRING": "1"},
    )
    assert result.returncode == 1
    assert "FAIL terminal app stylesheets" in result.stdout and "review.tcss" in result.stdout
    assert "ok   embedding model and tokenizer" in result.stdout  # the other checks still ran
