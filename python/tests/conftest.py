"""Shared fixtures: where the sources, the scenes and the `appell` program are.

ctest sets APPELL_SOURCE_DIR, APPELL_CLI and PYTHONPATH (python/CMakeLists.txt); run by
hand:  PYTHONPATH=build/python APPELL_CLI=build/appell /usr/bin/python3 -m pytest python/tests
"""

import json
import os
import pathlib
import subprocess

import pytest

SOURCE = pathlib.Path(os.environ.get("APPELL_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("APPELL_CLI", str(SOURCE / "build" / "appell"))
EXAMPLES = SOURCE / "scenes" / "examples"

# a plane pendulum: a particle on a massless rod of length 1 hinged at the origin
PENDULUM = {
    "name": "pendulum",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "type": "particle", "mass": 1.0, "position": [0, 0, -1]}],
    "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                     "points": [[0, 0, 0], [0, 0, -1]]}],
    "solver": {"formulation": "pinv"},
    "integrator": {"method": "dopri5", "duration": 1.0, "dt": 0.01,
                   "rtol": 1e-11, "atol": 1e-13},
}


def run_cli(*args, check=True):
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"appell {' '.join(map(str, args))}: {p.returncode}\n{p.stderr}")
    return p


@pytest.fixture
def pendulum_file(tmp_path):
    path = tmp_path / "pendulum.json"
    path.write_text(json.dumps(PENDULUM))
    return path
