"""A link carries the view (Classroom mode, layout, drawing options, speed, size), not only the program."""
from lucid.session import share


def test_a_default_view_adds_nothing_to_the_link():
    assert share.encode_view(share.VIEW_DEFAULTS) == {}


def test_only_what_differs_from_the_default_travels():
    view = dict(share.VIEW_DEFAULTS, classroom="1", dir="LR", speed="slow")
    assert share.encode_view(view) == {"classroom": "1", "dir": "LR", "speed": "slow"}


def test_a_view_survives_the_round_trip_through_the_link():
    view = {"classroom": "1", "dir": "LR", "hide": "gc", "large": "compact", "speed": "very slow", "zoom": "150",
            "style": "circuit"}
    assert share.decode_view(share.encode_view(view)) == view


def test_every_speed_word_travels_in_a_link_and_old_words_still_open():
    from lucid.session import stepping as stepper

    for word in stepper.SPEEDS:
        assert share.decode_view(share.encode_view(dict(share.VIEW_DEFAULTS, speed=word)))["speed"] == word
    assert share.decode_view({"speed": "very fast"})["speed"] == "fast"
    assert share.decode_view({"speed": "slow"})["speed"] == "slow"


def test_hidden_parts_are_kept_in_a_canonical_order_without_repeats():
    assert share.decode_view({"hide": "cgcv"})["hide"] == "vgc"


def test_junk_in_a_link_falls_back_to_the_default_of_that_key_only():
    view = share.decode_view({"classroom": "yes", "dir": "LR", "speed": "ludicrous", "zoom": "1e9",
                              "hide": "x" * 1000, "large": "<script>"})
    assert view == dict(share.VIEW_DEFAULTS, dir="LR")


def test_an_old_link_without_view_keys_opens_the_default_view():
    assert share.decode_view({"code": "x = 1", "step": "2"}) == share.VIEW_DEFAULTS


def test_every_link_view_maps_to_widget_values_and_back():
    from lucid.ui.playground import view_link

    views = [share.VIEW_DEFAULTS,
             {"classroom": "1", "dir": "LR", "hide": "vgsc", "large": "full", "speed": "slow", "zoom": "75",
              "style": "circuit"},
             {"classroom": "0", "dir": "TB", "hide": "s", "large": "compact", "speed": "fast", "zoom": "width",
              "style": "standard"}]
    for view in views:
        widgets = view_link.widget_values(dict(view))
        assert view_link.link_view(widgets) == view


def test_widget_values_use_the_labels_the_controls_show():
    from lucid.session.options import DIRECTIONS, LARGE_MODES, ZOOMS
    from lucid.ui.playground import view_link

    widgets = view_link.widget_values(share.decode_view({"dir": "LR", "large": "compact", "zoom": "150",
                                                         "hide": "g", "classroom": "1"}))
    assert DIRECTIONS[widgets["direction"]] == "LR"
    assert LARGE_MODES[widgets["large"]] is True
    assert ZOOMS[widgets["zoom"]] == 1.5
    assert widgets["grads"] is False and widgets["values"] is True and widgets["classroom"] is True
