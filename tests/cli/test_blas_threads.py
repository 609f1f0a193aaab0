"""The veramem program runs numpy's BLAS on one thread (see ``veramem_desktop.limit_blas_threads``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def test_the_veramem_program_runs_blas_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    code = (
        "import numpy, veramem_desktop; from threadpoolctl import threadpool_info; "
        "veramem_desktop.limit_blas_threads(); "
        "print(sorted({lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[1]"
    # Called first, as the program does, before anything has loaded numpy:
    early = (
        "import veramem_desktop; veramem_desktop.limit_blas_threads(); import numpy; "
        "from threadpoolctl import threadpool_info; "
        "print(sorted({lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas'}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", early], capture_output=True, text=True, timeout=60, check=True, env=env
    )
    assert out.stdout.strip() == "[1]"

    import veramem_desktop
    from veramem_desktop import cli

    called: list[bool] = []
    monkeypatch.setattr(veramem_desktop, "limit_blas_threads", lambda: called.append(True))
    monkeypatch.setattr(sys, "argv", ["veramem", "--version"])
    with pytest.raises(SystemExit):
        cli.main()
    assert called == [True]
