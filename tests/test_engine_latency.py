"""Latency engine: seed 001 Ex 6 and Ex 10 and self-test, seed 000 Ex 6, seed 004's Little's law."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizgen.engine import latency
from quizgen.engine.latency import divided_by_schedulers, efficiency, hide_latency
from quizgen.errors import QuizgenError

from engine_checks import check_steps


@pytest.mark.parametrize("L, W, N, per_sched, need, deficit, hidable", [
    (400, 1, 1, 400, 400, 336, False),     # seed 001 Ex 6 for one scheduler: zero compute
    (400, 1, 4, 400, 1600, 1536, False),   # ... and for the SM's four schedulers
    (300, 15, 1, 20, 20, 0, True),         # seed 001 self-test: 20 per scheduler
    (300, 15, 4, 20, 80, 16, False),       # ... × 4 schedulers = 80 against 64
    (400, 20, 4, 20, 80, 16, False),       # seed 001 Ex 10: 80 warps, 16 short
    (301, 15, 4, 21, 84, 20, False),       # a fraction of a warp rounds up, per scheduler
    (160, 10, 4, 16, 64, 0, True),         # exactly the cap
    (170, 10, 4, 17, 68, 4, False),
])
def test_warps_per_scheduler_times_schedulers(L, W, N, per_sched, need, deficit, hidable):
    r = hide_latency(L, W, schedulers=N)
    assert (r.warps_per_scheduler, r.warps_needed, r.deficit, r.hidable) == (per_sched, need, deficit, hidable)
    assert r.warps_needed == N * r.warps_per_scheduler
    assert r.degenerate is (W == 1)


def test_ex6_steps():
    r = hide_latency(400, 1, explain=True)
    assert [(s.key, s.result, s.note) for s in r.steps] == [
        ("warps_per_scheduler", 400, "no_compute"), ("warps_needed", 400, None),
        ("deficit", 336, "memory_bound")]
    assert r.to_dict()["memory_bound"] is True


def test_ex10_scheduler_demand():
    r = hide_latency(400, 20, schedulers=4, explain=True)
    assert (r.in_flight, r.warps_per_scheduler, r.warps_needed, r.deficit, r.ilp_factor,
            r.warps_with_ilp) == (1600, 20, 80, 16, 2, 40)
    assert not r.fits
    assert [s.key for s in r.steps] == ["warps_per_scheduler", "warps_needed", "deficit",
                                        "scheduler_cap", "ilp_factor", "warps_with_ilp"]
    assert r.steps[1].note == "schedulers_add_warps"
    d = json.loads(json.dumps(r.to_dict(with_steps=True)))
    assert d["schedulers"] == 4 and d["issue_interval"] == 1 and d["work_per_warp"] == 20


def test_issue_interval_rounds_per_scheduler():
    r = hide_latency(400, 20, schedulers=4, issue_interval=3, explain=True)   # 400/60 → 7 each
    assert r.in_flight == pytest.approx(1600 / 3) and r.warps_per_scheduler == 7
    assert r.warps_needed == 28 and r.fits and r.ilp_factor == 1
    assert [s.key for s in r.steps] == ["warps_per_scheduler", "warps_needed", "deficit"]


@given(st.integers(1, 2000), st.integers(1, 64), st.integers(1, 8), st.integers(1, 4),
       st.integers(1, 8), st.integers(8, 64))
def test_more_schedulers_never_need_fewer_warps(L, W, N, t, k, cap):
    """The shared physics: the SM needs N_sched × one scheduler's warps; never ÷ N_sched."""
    r = hide_latency(L, W, schedulers=N, issue_interval=t, ilp=k, max_warps=cap)
    more = hide_latency(L, W, schedulers=N + 1, issue_interval=t, ilp=k, max_warps=cap)
    assert more.warps_needed >= r.warps_needed
    assert r.warps_needed == N * -(-L // (t * W * k))
    assert r.deficit == max(r.warps_needed - cap, 0)
    wrong = divided_by_schedulers(r)
    assert wrong <= r.warps_per_scheduler and (N == 1 or wrong <= r.warps_needed)
    if r.deficit and r.scheduler_cap:
        assert r.warps_with_ilp <= cap
        if r.ilp_factor > 1:   # the smallest factor that fits
            assert N * -(-r.warps_per_scheduler // (r.ilp_factor - 1)) > cap


def test_littles_law_seed004_done_right():
    """Seed 004's Mistake 2 case (L = 400, X_s = 1, ILP 4, 4 schedulers): every scheduler needs
    ⌈400/4⌉ = 100 warps of its own, so the SM needs 400; the seed's 25 divides by schedulers."""
    r = hide_latency(400, throughput=1, ilp=4, schedulers=4, explain=True)
    assert (r.in_flight, r.warps_per_scheduler, r.warps_needed) == (1600, 100, 400)
    assert divided_by_schedulers(r) == 25
    last = r.steps[-1]
    assert (last.key, last.result, last.note) == ("latency", 400, "no_l_eff")
    assert r.latency == 400 and r.to_dict()["latency"] == 400


def test_littles_law_rounds_up_and_takes_floats():
    r = hide_latency(400, throughput=0.1, ilp=3)
    assert r.in_flight == 40 and r.warps_needed == 14
    assert hide_latency(400, throughput="1", ilp="4", schedulers="4").warps_needed == 400


@pytest.mark.parametrize("call", [
    lambda: hide_latency(0, 10), lambda: hide_latency(400, 0), lambda: hide_latency(400, 2.5),
    lambda: hide_latency(400, 1, max_warps=0), lambda: hide_latency(400, 20, schedulers=0),
    lambda: hide_latency(400, 20, issue_interval=0), lambda: efficiency(-1, 300),
    lambda: efficiency(10, 0), lambda: hide_latency(400, throughput=0),
    lambda: hide_latency(400, throughput="fast"), lambda: hide_latency(400, throughput=-1),
    lambda: hide_latency(400, throughput=float("inf")), lambda: hide_latency(400, ilp=0),
    lambda: hide_latency(400, throughput=True),
])
def test_bad_input_is_one_line(call):
    with pytest.raises(QuizgenError) as info:
        call()
    assert "\n" not in str(info.value) and info.value.field in str(info.value)


@pytest.mark.parametrize("N, eta, saturated", [(64, 64 / 300, False), (300, 1.0, True), (600, 1.0, True),
                                               (0, 0.0, False)])
def test_seed000_ex6_efficiency(N, eta, saturated):
    r = efficiency(N, 300)
    assert r.efficiency == pytest.approx(eta) and r.saturated is saturated and r.plateau_at == 300
    assert r.spare_warps == max(N - 300, 0)


def test_seed000_ex6_is_about_21_percent():
    assert round(efficiency(64, 300).efficiency, 3) == 0.213


@given(st.integers(0, 1000), st.integers(1, 500))
def test_efficiency_rises_then_plateaus(n, L):
    a, b = efficiency(n, L).efficiency, efficiency(n + 1, L).efficiency
    assert 0 <= a <= b <= 1
    assert (b == a) == (n >= L)


def test_bytes_in_flight_reproduces_the_measured_h200_numbers():
    """One warp per SM at ILP 1 moves 37.5 GB/s on 132 SMs: 450.56 ns; the 4.8 TB/s peak needs
    16,384 B per SM in flight: 128 warps at ILP 1 (twice the cap), 32 at ILP 4, ILP 2 at 64."""
    one = latency.bytes_in_flight(4800, 37.5, 132, 1)
    assert one.latency_ns == pytest.approx(450.56) and one.per_sm == pytest.approx(16384)
    assert (one.warps_needed, one.ilp_at_cap) == (128, 2)
    assert latency.bytes_in_flight(4800, 37.5, 132, 4).warps_needed == 32


def test_formulas_agree_with_sympy_and_phrases_cover_steps():
    steps = []
    for args, kw in [((400, 1), {}), ((300, 15), {"schedulers": 4}), ((301, 15), {}),
                     ((400, 20), {"schedulers": 4}), ((400, 20), {"schedulers": 4, "issue_interval": 3}),
                     ((401, 20), {"schedulers": 4, "issue_interval": 2}),
                     ((400, 1), {"schedulers": 4, "throughput": 1, "ilp": 4}),
                     ((400, 3), {"schedulers": 4, "throughput": "0.5", "ilp": 3}),
                     ((400, 4), {"schedulers": 4, "ilp": 2})]:
        steps += hide_latency(*args, explain=True, **kw).steps
    for n in (64, 300, 600):
        steps += efficiency(n, 300, max_warps=64, explain=True).steps
    steps += latency.min_work_to_hide(400, schedulers=4, max_warps=64, explain=True)[1]
    steps += latency.max_hidden_latency(20, schedulers=4, max_warps=64, issue_interval=2,
                                        explain=True)[1]
    steps += latency.least_ilp(400, 24, 10, schedulers=4, explain=True).steps
    before = hide_latency(30, 4, schedulers=4, max_warps=64)
    steps.append(latency.latency_change(before, 60, explain=True)[1])
    steps.append(latency.warps_for_rate(4, 0.216, explain=True)[1])
    # the family steps built on these functions (L-4's what-if, L-5's measured share)
    from quizgen.engine.derivation import Step
    steps.append(Step("warps_after", "hiding_after", {"L_new": 60, "W": 4, "N_sched": 4}, 60,
                      "warps", "lat_hiding_after"))
    steps.append(Step("measured_share", "measured_share", {"X_meas": 3.004, "X_peak": 4},
                      0.751, "", "lat_measured_share"))
    # Little's law in bytes on the measured H200 streaming curve (L-5 level 3)
    steps += latency.bytes_in_flight(4800, 37.5, 132, 4, explain=True).steps
    steps.append(Step("measured_bw_share", "measured_bw_share", {"B_meas": 1436.0, "B_peak": 4800},
                      1436 / 4800, "", "lat_measured_bw_share"))
    steps.append(Step("loaded_latency", "loaded_latency",
                      {"N_SM": 132, "N_w": 64, "b_w": 128, "B_meas": 1436.0},
                      132 * 64 * 128 / 1436, "ns", "lat_loaded_latency"))
    check_steps(steps, latency.FORMULAS)
