"""Curves measured on a real H200 (quizgen/data/measured) against the shared physics."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from quizgen import measured
from quizgen.engine import grid
from quizgen.generator import generate_one
from quizgen.render import figures as F
from quizgen.render import measured_figures as MF

SHARED = Path("/work/shared/measured")


@pytest.mark.skipif(not SHARED.is_dir(), reason="the measurement folder is not beside this checkout")
@pytest.mark.parametrize("name", ["h200_latency_and_placement.jsonl", "h200_bandwidth_vs_warps.jsonl",
                                  "physics_real.cu", "mem_real.cu"])
def test_shipped_data_is_the_measurement_unchanged(name):
    assert (measured.MEASURED_DIR / name).read_bytes() == (SHARED / name).read_bytes()


def test_the_sources_ship_beside_the_data():
    for name in ("physics_real.cu", "mem_real.cu", "README.md"):
        assert (measured.MEASURED_DIR / name).is_file()
    assert measured.device() == {"device": "NVIDIA H200", "sms": 132}


@pytest.mark.parametrize("ilp", [1, 2, 4])
def test_the_shared_latency_model_predicts_the_measured_fma_knee_within_25_percent(ilp):
    points = measured.fma_curves()[ilp]
    knee = measured.measured_knee(points)
    predicted = measured.model_knee(ilp)
    assert abs(predicted - knee) / knee <= 0.25, (ilp, predicted, knee)


def test_ilp_1_knee_numbers_and_the_divided_by_schedulers_misconception():
    points = measured.fma_curves()[1]
    assert measured.per_warp_rate(points) == pytest.approx(0.216)
    assert measured.measured_knee(points) == pytest.approx(3.306 / 0.216)
    assert measured.model_knee(1) == 16            # 4 schedulers × ⌈4/1⌉
    # Dividing the warps of one scheduler among the four (seed 004's "Mistake 2") gives 1 warp,
    # while one warp measures 0.216 of the SM's 3.3 per cycle.
    wrong = math.ceil(measured.FMA_LATENCY / 4)
    assert wrong == 1 and measured.measured_knee(points) > 10 * wrong


def test_bandwidth_needs_more_bytes_in_flight_than_64_warps_hold_at_ilp_1():
    ilp1 = dict(measured.bandwidth_curves()[1])
    ilp4 = dict(measured.bandwidth_curves()[4])
    assert ilp1[64] == 1436.0 and ilp4[64] == 2692.4
    assert measured.warps_for_peak(1) == 128 > 64      # Little's law: the cap is short
    assert measured.warps_for_peak(4) <= 64
    assert ilp4[64] > 1.8 * ilp1[64]                    # independent loads close part of the gap


def test_blocks_land_breadth_first_as_the_grid_engine_says():
    placements = measured.placement()
    assert len(placements) == 8
    sms = measured.device()["sms"]
    for p in placements:
        plan = grid.waves(p["grid"], sms, 1)
        assert p["sms_used"] == plan.sms_with_blocks
        assert p["max_blocks_on_one_sm"] == math.ceil(p["grid"] / sms)


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_figures_draw_measured_points_beside_the_model(lang):
    svg = F.figure_for({"kind": "measured_fma"}, lang=lang)
    assert svg.startswith("<svg") and svg == MF.fma_issue_figure(lang)
    assert svg.count('stroke-dasharray="5 3"') >= 3           # a model line per ILP
    assert svg.count("<circle") == sum(len(p) for p in measured.fma_curves().values())
    assert "4×⌈4/1⌉ = 16" in svg and "15.3" in svg
    bw = F.figure_for({"kind": "measured_bandwidth"}, lang=lang)
    assert "128" in bw and "1.44" in bw and "4.8" in bw


@pytest.mark.parametrize("cell, kind", [("W-J", "measured_fma"), ("L-5", "measured_fma"),
                                        ("L-3", "measured_bandwidth")])
def test_latency_cards_carry_the_measured_figure(cell, kind):
    problem = generate_one(cell, level=1, seed=0, lang="en")
    assert problem.figure == {"kind": kind}
    assert "H200" in F.figure_for(problem)
