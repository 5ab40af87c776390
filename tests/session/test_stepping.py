"""The stepper's rules: where First/Prev/Next/Last go and how autoplay ticks and stops."""
import pytest

from lucid.session import stepping as stepper


@pytest.mark.parametrize(("move", "step", "expected"), [
    ("first", 4, 0), ("previous", 4, 3), ("previous", 0, 0),
    ("next", 4, 5), ("next", 6, 6), ("last", 2, 6),
])
def test_moves_on_a_seven_step_pass(move, step, expected):
    assert stepper.MOVES[move](step, 7) == expected


def test_clamp_keeps_a_stale_step_inside_a_shorter_pass():
    assert stepper.clamp(12, 5) == 4
    assert stepper.clamp(-3, 5) == 0
    assert stepper.clamp(3, 0) == 0


def test_tick_advances_and_stops_at_the_last_step():
    assert stepper.tick(2, 5) == stepper.Tick(3, True)
    assert stepper.tick(3, 5) == stepper.Tick(4, False)
    assert stepper.tick(4, 5) == stepper.Tick(4, False)


def test_play_from_the_end_rewinds_to_the_seed():
    assert stepper.start(4, 5) == stepper.Tick(0, True)
    assert stepper.start(2, 5) == stepper.Tick(2, True)


def test_play_on_a_single_step_pass_does_nothing():
    assert stepper.start(0, 1) == stepper.Tick(0, False)


def test_speeds_map_to_seconds_per_step():
    assert stepper.seconds_per_step("slow") == 2.0
    assert stepper.seconds_per_step("very fast") == 0.5  # an old link's word: the quickest speed kept


def test_autoplay_speeds_run_from_half_a_second_to_six_seconds_per_step():
    seconds = list(stepper.SPEEDS.values())
    assert seconds == sorted(seconds)
    assert (seconds[0], seconds[-1]) == (0.5, 6.0)
    assert stepper.SPEEDS["slow"] == 2.0 and stepper.SPEEDS["normal"] == 1.0 and stepper.SPEEDS["fast"] == 0.5
    assert stepper.seconds_per_step("warp") == stepper.SPEEDS[stepper.DEFAULT_SPEED]
