"""The `zinto` command the wheel installs: the console script and `python -m zinto` run the
Rust binary's own command, compiled into the extension."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fixtures import EXAMPLES

TEMPERATURE = str(EXAMPLES / "temperature.zarr")


def console_script():
    """The `zinto` script pip put beside this interpreter (bin/ or Scripts/)."""
    name = "zinto.exe" if os.name == "nt" else "zinto"
    path = os.path.join(os.path.dirname(sys.executable), name)
    assert os.path.exists(path), f"pip installed no console script at {path}"
    return path


@pytest.fixture(params=["script", "module"])
def command(request):
    if request.param == "script":
        return [console_script()]
    return [sys.executable, "-m", "zinto"]


def run(command, *args):
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120)


def test_info_is_the_binarys(command):
    done = run(command, "info", TEMPERATURE)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "shape:        [360, 720]" in lines
    assert "data type:    float32 (4 bytes)" in lines
    assert "chunks:       24 in all, 24 present" in lines


def test_read_writes_the_array(command, tmp_path):
    out = tmp_path / "t.npy"
    done = run(command, "read", TEMPERATURE, "--select", "10:200,5:90", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["shape"] == [190, 85]
    import zinto

    np.testing.assert_array_equal(np.load(out), zinto.open(TEMPERATURE)[10:200, 5:90])


def test_usage_errors_exit_2_and_name_the_program(command):
    done = run(command, "read", TEMPERATURE, "--select", "1:2:0")
    assert done.returncode == 2
    assert done.stderr.startswith("zinto: usage error:"), done.stderr
    done = run(command, "--no-such-flag")
    assert done.returncode == 2
    assert "Usage: zinto" in done.stderr, done.stderr


def test_version_is_the_packages(command):
    import zinto

    done = run(command, "--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"zinto {zinto.__version__}"
