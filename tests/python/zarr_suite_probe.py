"""pytest plugin for zarr-python's own test suite run with zinto's codec pipeline
(scripts/zarr-suite loads it with `-p zarr_suite_probe`).

- Before every test it checks that the pipeline zarr-python would pick is zinto's: a run in
  which the environment variable did not take (or a test's `config.reset()` dropped it) fails
  instead of passing on the default pipeline.
- At the end of a (worker's) session it writes how many reads zinto did itself and how many it
  handed on to the default pipeline, by reason, to `$ZINTO_SUITE_COUNTS/<worker>.json`; the
  script sums the workers' files.
"""

import json
import os

import pytest

EXPECTED = "zinto.ZintoCodecPipeline"


def _pipeline_in_force():
    from zarr.registry import get_pipeline_class

    cls = get_pipeline_class()
    return f"{cls.__module__}.{cls.__qualname__}"


def pytest_configure(config):
    found = _pipeline_in_force()
    if found != EXPECTED:
        raise pytest.UsageError(
            f"zarr-python's codec pipeline is {found}, not {EXPECTED}: "
            "set ZARR_CODEC_PIPELINE__PATH=zinto.ZintoCodecPipeline")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    found = _pipeline_in_force()
    if found != EXPECTED:
        pytest.fail(f"the codec pipeline in force is {found}, not {EXPECTED}", pytrace=False)
    yield


def pytest_sessionfinish(session):
    folder = os.environ.get("ZINTO_SUITE_COUNTS")
    if not folder:
        return
    from zinto import pipeline

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    counts = {"reads_by_zinto": pipeline.reads_by_zinto,
              "reads_handed_on": dict(pipeline.reads_handed_on),
              "reads_in_pieces": pipeline.reads_in_pieces,
              "writes_by_zinto": pipeline.writes_by_zinto,
              "writes_handed_on": dict(pipeline.writes_handed_on),
              "inner_calls_of_handed_on": dict(pipeline.inner_calls_of_handed_on)}
    with open(os.path.join(folder, f"{worker}.json"), "w") as f:
        json.dump(counts, f)
