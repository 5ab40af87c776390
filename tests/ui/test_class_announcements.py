"""What a student's live region says (WCAG 4.1.3): each new thing once, under a key that changes only with it."""
from __future__ import annotations

from pathlib import Path

from lucid.i18n import L_, use_language
from lucid.live_class.feed import question_key
from lucid.ui.live_class.room_view import announcement

QUESTION = {"id": "q7", "label": "grad y", "step": 4, "expected": -4.0, "expected_text": "−4.000"}
RECEIPT = ("q7", "ok", L_("Answer received: {value}. You may change it until the reveal.", value="−4.000"), 11)


def test_an_open_question_is_said_under_the_key_the_players_early_card_uses():
    said = announcement(QUESTION, None, None)
    assert said == {"key": f"q:{question_key(QUESTION)}",
                    "text": "Question about step 4: grad y = ? · type your answer in the answer field"}
    assert said["key"] == "q:q7:0"
    script = (Path(__file__).resolve().parents[2] / "lucid/ui/live_class/room_watch.js").read_text(encoding="utf-8")
    assert "say(`q:${q}`" in script  # the card's key: "q:" and the same question key, so only one of them speaks


def test_each_receipt_of_this_question_is_said_once_and_a_second_answer_again():
    first = announcement(QUESTION, None, RECEIPT)
    again = announcement(QUESTION, None, (*RECEIPT[:3], 12))
    assert first == {"key": "answer:q7:11", "text": "Answer received: −4.000. You may change it until the reveal."}
    assert again["key"] == "answer:q7:12" and again["text"] == first["text"]


def test_a_receipt_of_an_earlier_question_is_not_said_for_the_new_one():
    assert announcement(QUESTION, None, ("q6", *RECEIPT[1:]))["key"] == "q:q7:0"


def test_the_verdict_is_said_as_plain_words_under_its_own_key():
    revealed = {**QUESTION, "revealed": True}
    said = announcement(revealed, "**grad y = −4.000** · your answer −4.000: right · the class: 1 of 1 right", RECEIPT)
    assert said == {"key": "verdict:q7",
                    "text": "grad y = −4.000 · your answer −4.000: right · the class: 1 of 1 right"}


def test_no_question_says_nothing_and_korean_is_said_in_korean():
    assert announcement(None, None, RECEIPT) is None
    with use_language("ko"):
        said = announcement(QUESTION, None, RECEIPT)
    assert said["text"] == "답을 받았습니다: −4.000. 정답 공개 전까지는 바꿀 수 있습니다."
    with use_language("ko"):
        asked = announcement(QUESTION, None, None)["text"]
    assert asked == "단계 4에 대한 질문: grad y = ? · 답 입력란에 답을 입력하세요"
