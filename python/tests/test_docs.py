"""Every ```python block of docs/python.md and README.md runs as written: in order, one
namespace per document (as one script), from a scratch directory that has the checkout's
scenes/ (the examples name shipped scenes as `scenes/examples/...`)."""

import contextlib
import io
import os
import re

import pytest

from conftest import SOURCE

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks(document):
    return BLOCK.findall((SOURCE / document).read_text(encoding="utf-8"))


@pytest.mark.parametrize("document", ["docs/python.md", "README.md"])
def test_every_python_block_runs(document, tmp_path, monkeypatch):
    code = blocks(document)
    assert code, f"{document} has no python block"
    (tmp_path / "scenes").symlink_to(SOURCE / "scenes", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    out = io.StringIO()
    for i, block in enumerate(code):
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(block, f"{document} python block {i + 1}", "exec"), namespace)
        except Exception as e:  # name the block that fails
            raise AssertionError(f"{document}, python block {i + 1} fails: {e!r}\n{block}") from e
    if document == "docs/python.md":
        # the observer example prints t, E and the bob's position: distinct lines, as the
        # bob moves
        lines = [line for line in out.getvalue().splitlines() if line.strip()]
        assert len(lines) >= 3 and len(set(lines)) == len(lines)
        for name in ("traj.csv", "forces.csv", "run.png"):
            assert (tmp_path / name).stat().st_size > 0


def test_the_docs_name_shipped_scenes_only():
    """A path in the examples that ends in .json or .urdf exists in the checkout."""
    for document in ("docs/python.md", "README.md"):
        for block in blocks(document):
            for path in re.findall(r"""["']([^"']+\.(?:json|urdf))["']""", block):
                assert (SOURCE / path).is_file(), f"{document} names {path}, not shipped"
