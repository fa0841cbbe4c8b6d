"""Data-parallel scoring under torchrun (gloo on CPU here, NCCL on GPUs): the scores of one device."""

import os
import subprocess
import sys

import polars as pl
import pytest

from probesmith.schemas.parquet import read_parquet

pytestmark = pytest.mark.integration


def test_two_ranks_give_the_single_device_scores(tmp_path, tiny_gpt2_dir, small_wordnet_build):
    args = [
        "--model",
        str(tiny_gpt2_dir),
        "--probes",
        str(small_wordnet_build.out),
        "--max-items",
        "10",
        "--device",
        "cpu",
    ]
    # one thread per process in both runs, so float arithmetic happens in the same order
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    single = subprocess.run(
        [sys.executable, "-m", "probesmith", "eval", *args, "--out", str(tmp_path / "one")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert single.returncode == 0, single.stderr[-3000:]
    launched = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            "-m",
            "probesmith",
            "eval",
            *args,
            "--out",
            str(tmp_path / "two"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert launched.returncode == 0, launched.stderr[-3000:]
    one = pl.from_arrow(read_parquet(tmp_path / "one" / "items.parquet"))
    two = pl.from_arrow(read_parquet(tmp_path / "two" / "items.parquet"))
    assert one["id"].to_list() == two["id"].to_list()
    for a, b in zip(one["scores"].to_list(), two["scores"].to_list()):
        assert a == pytest.approx(b, abs=1e-9)
    assert two["correct"].to_list() == one["correct"].to_list()
