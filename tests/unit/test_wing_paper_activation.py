"""The wing's activation as the paper's own code writes it (softmech.scenarios.
wing_paper_activation; mattialab/elastica ExternalContact.h, FLAGWING): the pieces as read,
their joins, the repeated cycle and the map onto softmech's period."""
import numpy as np
import pytest

from softmech.scenarios import wing_paper_activation as P

EPS = 1e-9


@pytest.mark.parametrize("muscle, join, value", [
    ("supracoracoideus", 0.3425, 18.0), ("supracoracoideus", 0.405, 7.2),
    ("pectoralis", 0.1725, 18.0), ("pectoralis", 0.235, 9.0),
    ("scapulotriceps", 0.3325, 8.0), ("scapulotriceps", 0.395, 5.2),
    ("biceps", 0.235, 7.2)])
def test_the_codes_pieces_join_where_its_formulas_do(muscle, join, value):
    """Where the code's formulas meet continuously (a sine's peak into a decay, a decay's end
    into a constant or a falling sine: e.g. 18 (1 - 0.6) = 7.2, 8 (1 - 0.35) = 5.2 =
    5.2 sin(w 0.0625)), the transcribed pieces give the same force on both sides: a typo in
    an amplitude, origin or slope breaks a join."""
    before, after = P.paper_code_force(muscle, [join - EPS, join + EPS])
    assert before == pytest.approx(value, abs=1e-6) and after == pytest.approx(value, abs=1e-6)


def test_the_biceps_jumps_where_the_code_does_and_the_muscles_are_off_between_their_pieces():
    """The code's biceps rises to 13.5 by 0.1725 s and its decay restarts from 24 (as written);
    each muscle is off outside its pieces, and the pectoralis and biceps share their window
    (the elbow flexes in the downstroke) as the supracoracoideus and scapulotriceps nearly do
    (0.28 and 0.27 s on)."""
    before, after = P.paper_code_force("biceps", [0.1725 - EPS, 0.1725 + EPS])
    assert before == pytest.approx(13.5) and after == pytest.approx(24.0)
    t = np.linspace(0.0, 0.49, 4901)
    on = {m: P.paper_code_force(m, t) > 0 for m in P.SEGMENTS}
    np.testing.assert_array_equal(on["pectoralis"], on["biceps"])
    assert not on["pectoralis"][(t < 0.11) | (t >= 0.2975)].any()
    assert not on["supracoracoideus"][(t >= 0.125) & (t < 0.28)].any()
    assert not on["scapulotriceps"][(t >= 0.0625) & (t < 0.27)].any()


def test_the_cycle_repeats_and_the_initiation_does_not():
    """After the initiation the cycle (0.11-0.49 s) repeats with period 0.38 s; the
    initiation's pulses (supracoracoideus to 0.125 s, scapulotriceps to 0.0625 s) do not."""
    t = np.linspace(0.125, 0.49, 731)
    for muscle in P.SEGMENTS:
        np.testing.assert_allclose(P.paper_code_force(muscle, t + P.PAPER_CODE_PERIOD),
                                   P.paper_code_force(muscle, t), atol=1e-12)
    # the initiation pulse's tail inside the first cycle, and a period later
    tail = 15.0 * np.sin(2 * np.pi / 0.25 * 0.115)
    assert P.paper_code_force("supracoracoideus", [0.115])[0] == pytest.approx(tail)
    assert P.paper_code_force("supracoracoideus", [0.115 + P.PAPER_CODE_PERIOD])[0] == 0.0


def test_code_time_and_the_activation_table():
    """The initiation maps onto [0, 0.11] s of code time and a period onto 0.38 s; activation
    is the force over its pair's largest (shoulder 18, elbow 27), in [0, 1], no tone; the
    table's largest sample within 1 % of the peak (600 samples a period)."""
    f, t0 = 8.0, 0.05
    np.testing.assert_allclose(P.code_time([0.0, t0, t0 + 1 / f, t0 + 2 / f], t0, f),
                               [0.0, 0.11, 0.49, 0.87], atol=1e-12)
    assert P.paper_code_initiation(f) == pytest.approx(0.11 / 0.38 / f)
    assert P.PAIR_PEAK == {"shoulder": 18.0, "elbow": 27.0}
    for muscle, peak in (("pectoralis", 1.0), ("biceps", 24.0 / 27.0), ("scapulotriceps", 1.0)):
        times, values = P.paper_code_table(muscle, t0, f, t0 + 1 / f)
        assert times[0] == 0.0 and times[-1] == pytest.approx(t0 + 1 / f)
        assert values.min() == 0.0 and values.max() == pytest.approx(peak, rel=1e-2)
    with pytest.raises(ValueError, match="muscle = 'deltoid' is not allowed"):
        P.paper_code_table("deltoid", t0, f, 1.0)
    with pytest.raises(ValueError, match="frequency"):
        P.paper_code_table("biceps", t0, -1.0, 1.0)
