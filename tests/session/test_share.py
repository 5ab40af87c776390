"""Sharing links: the program and step survive a trip through the URL; junk in a link is ignored."""
import base64
import zlib

from lucid.gallery import EXAMPLES
from lucid.session import share


def test_short_program_travels_as_readable_text():
    params = share.encode("x = 3.0\ny = x * x\n", step=2)
    assert params == {"code": "x = 3.0\ny = x * x\n", "step": "2"}


def test_long_program_is_packed_and_comes_back_exactly():
    source = next(e.source for e in EXAMPLES if e.slug == "mlp")
    assert len(source) > share.PLAIN_LIMIT
    params = share.encode(source, step=17)
    assert set(params) == {"z", "step"}
    assert len(params["z"]) < len(source)
    assert all(c.isalnum() or c in "-_" for c in params["z"])
    assert share.decode(params) == share.SharedView(source, 17)


def test_every_gallery_program_round_trips():
    for example in EXAMPLES:
        view = share.decode(share.encode(example.source, step=3))
        assert view == share.SharedView(example.source, 3)


def test_step_is_optional_and_must_be_a_plain_number():
    assert share.decode({"code": "a = 1"}).step is None
    assert share.decode({"code": "a = 1", "step": "-4"}).step is None
    assert share.decode({"code": "a = 1", "step": "2.5"}).step is None
    assert share.decode({"code": "a = 1", "step": "9" * 40}).step is None
    assert share.decode({"code": "a = 1", "step": " 12 "}).step == 12


def test_broken_packed_text_gives_no_program():
    assert share.decode({"z": "!!!not base64!!!"}).source is None
    assert share.decode({"z": base64.urlsafe_b64encode(b"not zlib").decode()}).source is None


def test_packed_text_falls_back_to_plain_when_broken():
    assert share.decode({"z": "@@@", "code": "q = 2"}).source == "q = 2"


def test_zip_bomb_is_refused():
    bomb = base64.urlsafe_b64encode(zlib.compress(b"a" * 5_000_000, 9)).decode().rstrip("=")
    assert len(bomb) < 10_000
    assert share.unpack(bomb) is None


def test_non_utf8_payload_is_refused():
    packed = base64.urlsafe_b64encode(zlib.compress(b"\xff\xfe\xfa")).decode()
    assert share.unpack(packed) is None
