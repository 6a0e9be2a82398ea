"""`pip install .` from the checkout, offline, into a fresh virtual environment (with the
system's site packages: numpy, pybind11, setuptools, wheel), and the installed package
imports and runs.  The CMake build of the module reuses the build tree that ctest runs
from (APPELL_CMAKE_BUILD_DIR), so only the install itself is timed here."""

import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import EXAMPLES, SOURCE


def test_pip_install_into_a_venv(tmp_path):
    # found, not imported: importing setuptools here would fight distutils in this process
    missing = [m for m in ("ensurepip", "pip", "setuptools", "wheel")
               if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"pip install needs python3-venv, python3-pip, python3-setuptools and "
                    f"python3-wheel (make deps installs them); missing: {', '.join(missing)}")
    import appell
    build = pathlib.Path(appell.__file__).resolve().parents[2]  # <build>/python/appell
    if not (build / "CMakeCache.txt").exists():
        pytest.skip(f"appell is not imported from a CMake build tree ({appell.__file__})")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, capture_output=True)
    python = venv / "bin" / "python"
    # a copy of the sources, so that the install writes nothing into the checkout
    src = tmp_path / "src"
    shutil.copytree(SOURCE, src, symlinks=True,
                    ignore=shutil.ignore_patterns("build*", ".git", "*.egg-info", "node_modules"))
    env = dict(os.environ, APPELL_CMAKE_BUILD_DIR=str(build), PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation", "-q",
                        str(src)], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    probe = ("import appell, sys; m = appell.load_model(sys.argv[1]); "
             "print(appell.__file__); print(appell.simulate(m, duration=0.01).status)")
    p = subprocess.run([str(python), "-c", probe, str(EXAMPLES / "double_pendulum.json")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    where, status = p.stdout.split()
    assert where.startswith(str(venv)) and status == "completed"
    # the type stubs are installed beside the module
    installed = pathlib.Path(where).parent
    assert (installed / "_appell.pyi").is_file() and (installed / "py.typed").is_file()
