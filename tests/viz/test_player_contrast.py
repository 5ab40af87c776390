"""Every text colour of the player's stylesheet is at least 4.5:1 on its background (WCAG 2.1 1.4.3), and its
controls' colours and focus ring at least 3:1 (1.4.11).

A rule's text sits on that rule's own background, else on the player's white (its bar, explanation, cards and
facts panel are all #FFFFFF). Disabled buttons are exempt (WCAG: inactive components).
"""
import re
from pathlib import Path

from lucid.viz import player

CSS = (Path(player.__file__).parent / "player.css").read_text(encoding="utf-8")
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
WHITE = "#FFFFFF"


def luminance(colour: str) -> float:
    h = colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def declared(body: str, prop: str) -> str | None:
    m = re.search(rf"(?:^|;|\s){prop}\s*:\s*(#[0-9A-Fa-f]{{3,6}})\b", body)
    return m.group(1) if m else None


def text_pairs() -> list[tuple[str, str, str]]:
    pairs = []
    for selector, body in RULE.findall(CSS):
        colour = declared(body, "color")
        if colour is None or ":disabled" in selector:
            continue
        pairs.append((selector.strip(), colour, declared(body, "background") or WHITE))
    return pairs


def test_the_contrast_formula_gives_the_known_ratios():
    assert round(contrast("#FFFFFF", "#D55E00"), 2) == 3.87  # the old Play button (issue 28)
    assert round(contrast("#000000", "#FFFFFF"), 1) == 21.0


def test_every_text_colour_is_at_least_4_5_to_1_on_its_background():
    pairs = text_pairs()
    assert len(pairs) >= 15
    low = [(s, c, b, round(contrast(c, b), 2)) for s, c, b in pairs if contrast(c, b) < 4.5]
    assert low == []


def test_the_play_button_is_white_on_a_dark_vermillion_at_least_4_5_to_1():
    body = dict((s.strip(), b) for s, b in RULE.findall(CSS))[".lucid-player .lucid-btn.lucid-primary"]
    assert declared(body, "color") == "#FFFFFF"
    assert contrast("#FFFFFF", declared(body, "background")) >= 5.5


def test_the_focus_ring_and_the_step_slider_are_at_least_3_to_1_on_white():
    ring = re.search(r"g\.node:focus-visible\s*\{\s*outline:\s*3px solid (#[0-9A-Fa-f]{6})", CSS).group(1)
    assert contrast(ring, WHITE) >= 3 and contrast(ring, "#d7eaf8") >= 3  # on a leaf's fill too
    slider = re.search(r"\.lucid-step \{[^}]*accent-color: (#[0-9A-Fa-f]{6})", CSS).group(1)
    assert contrast(slider, WHITE) >= 3
