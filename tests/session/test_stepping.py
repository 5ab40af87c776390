"""The stepper's server side: a step kept inside a pass, and the speeds (stepping rules: tests/js, under Node)."""

from lucid.session import stepping as stepper


def test_clamp_keeps_a_stale_step_inside_a_shorter_pass():
    assert stepper.clamp(12, 5) == 4
    assert stepper.clamp(-3, 5) == 0
    assert stepper.clamp(3, 0) == 0


def test_speeds_map_to_seconds_per_step():
    assert stepper.seconds_per_step("slow") == 2.0
    assert stepper.seconds_per_step("very fast") == 0.5  # an old link's word: the quickest speed kept


def test_autoplay_speeds_run_from_half_a_second_to_six_seconds_per_step():
    seconds = list(stepper.SPEEDS.values())
    assert seconds == sorted(seconds)
    assert (seconds[0], seconds[-1]) == (0.5, 6.0)
    assert stepper.SPEEDS["slow"] == 2.0 and stepper.SPEEDS["normal"] == 1.0 and stepper.SPEEDS["fast"] == 0.5
    assert stepper.seconds_per_step("warp") == stepper.SPEEDS[stepper.DEFAULT_SPEED]
