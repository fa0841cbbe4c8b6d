"""Data-parallel evaluation under torchrun (gloo on CPU here, NCCL on GPUs): one device's results."""

import os
import subprocess
import sys

import polars as pl
import pytest

from probesmith.schemas.parquet import read_parquet

pytestmark = pytest.mark.integration


def one_and_two_ranks(tmp_path, args):
    """Items of a single-process run and of a two-rank torchrun run, one thread each."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # same float summation order in both runs
    launchers = {
        "one": [sys.executable, "-m", "probesmith"],
        "two": [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            "-m",
            "probesmith",
        ],
    }
    items = {}
    for name, launcher in launchers.items():
        done = subprocess.run(
            [*launcher, "eval", *args, "--device", "cpu", "--out", str(tmp_path / name)],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        items[name] = pl.from_arrow(read_parquet(tmp_path / name / "items.parquet"))
    return items["one"], items["two"]


def test_two_ranks_give_the_single_device_scores(tmp_path, tiny_gpt2_dir, small_wordnet_build):
    one, two = one_and_two_ranks(
        tmp_path,
        ["--model", str(tiny_gpt2_dir), "--probes", str(small_wordnet_build.out), "--max-items", "10"],
    )
    assert one["id"].to_list() == two["id"].to_list()
    for a, b in zip(one["scores"].to_list(), two["scores"].to_list()):
        assert a == pytest.approx(b, abs=1e-9)
    assert two["correct"].to_list() == one["correct"].to_list()


def test_two_ranks_share_the_knowledge_sets(tmp_path, tiny_gpt2_dir, small_rules_build):
    one, two = one_and_two_ranks(
        tmp_path, ["--model", str(tiny_gpt2_dir), "--probes", str(small_rules_build.out), "--max-items", "2"]
    )
    assert one["set_id"].n_unique() == 2 and set(one["editor"].to_list()) == {"in_context", "fine_tune"}
    assert one.equals(two)  # the seeded fine-tuning editor gives the same answers on any rank
