"""Every session-state key of a page that shows a program (the Playground ``pg``, Gradient check ``gc``), named once.

A page's features share one Streamlit session; each key is ``<prefix>_<name>`` and is spelled only here:
``keys(prefix).step`` is ``"pg_step"``. What a key holds is said beside it (a type, for the plain values several
features read and write; otherwise the widget or container it names). A few widgets are one per item
(``choice(question)``, ``row(name)``, ``forward_step(label)``); ``of(suffix)`` names the view widgets by suffix.
``tests/ui/test_keys.py`` checks that no other module of the app spells a key by hand.
"""
from __future__ import annotations

from functools import cache


class _Key:
    """A key of the page's session state; on an instance, its full name."""

    def __init__(self, doc: str):
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, keys: PageKeys | None, owner: type | None = None) -> str:
        return self if keys is None else f"{keys.prefix}_{self.name}"  # type: ignore[return-value]


class PageKeys:
    """The session-state keys of one page, by its prefix."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    def of(self, suffix: str) -> str:
        """The key ``<prefix>_<suffix>`` of a view widget named by its suffix (``view_link.VIEW_SUFFIXES``)."""
        return f"{self.prefix}_{suffix}"

    def choice(self, question: object) -> str:
        """A student's multiple-choice radio for one question."""
        return f"{self.prefix}_choice_{question}"

    def row(self, name: object) -> str:
        """One input's row of the inputs table."""
        return f"{self.prefix}_row_{name}"

    def forward_step(self, label: object) -> str:
        """One of forward mode's step buttons."""
        return f"{self.prefix}_forward_step_{label}"

    # --- The program (editor, links, the live class) ---------------------------------------------------------
    source = _Key("str: the editor's text (the text area's own key); links, the class and Open in Playground set it")
    run_requested = _Key(
        "bool: run the editor's text on this run even if unchanged (Run, an example, a link, the class)")
    ran = _Key("str: the source the editor last ran")
    good = _Key("str: the source of the program on screen (the last run that parsed and ran)")
    error = _Key("the last run's error, shown under the editor")
    initial_step = _Key("int: the step a newly shown program opens at (a link's, a student's teacher's)")
    picker_shown = _Key("str: the example picker's value the editor last acted on")
    example = _Key("the example picker (prefix of its widget key)")
    run = _Key("the Run button")
    memo = _Key("LRUMemo: the session's memo of computed programs")

    # --- A recorded PyTorch pass played instead of the program (lucid.ui.playground.recording_view) ----------
    recording = _Key("Played | None: the recording on screen (its bytes and where it came from); None: the program")
    recording_error = _Key("Message | str | None: why the last recording file was refused, shown under the uploader")
    recording_file = _Key("the recording file uploader")
    recording_open = _Key("bool: the Import a PyTorch recording popover is open (closed, nothing in it is drawn)")
    recording_close = _Key("the Close recording button")

    # --- The step and the player -----------------------------------------------------------------------------
    step = _Key("int: the step on screen (the player's, the class's, a lesson link's)")
    shown = _Key("tuple: (source, seed) of the program whose first showing has been handled")
    speed = _Key("str: seconds per step of Play (the player's bar sets it; a link carries it)")
    expanded = _Key("set: the boxes opened in a collapsed graph")
    expanded_for = _Key("the program the opened boxes belong to")
    open_level = _Key("the collapsed graph's depth control")
    close_all = _Key("the Close all boxes button")
    player = _Key("the player component")
    graph = _Key("the graph's container")
    explanation = _Key("the explanation's container")
    inspector = _Key("the node inspector's expander")
    inspect = _Key("the inspector's node picker")
    inspector_note = _Key("the inspector's note shown once the player stepped away from the step it shows")
    inspect_nodes = _Key("the inspector's node list")
    inspect_group = _Key("the box clicked in a collapsed graph, shown in the inspector")
    legend_open = _Key("bool: the Legend expander is open (folded, nothing in it is drawn)")
    export_open = _Key("bool: the Export expander is open (folded, nothing in it is drawn)")
    export_step = _Key("the Export expander's step")
    make_gif = _Key("the Make GIF button")
    gif_slide = _Key("the GIF's 16:9 slide toggle")
    dl_dot = _Key("download DOT")
    dl_svg = _Key("download SVG")
    dl_png = _Key("download PNG")
    dl_gif = _Key("download GIF")
    dl_slide_svg = _Key("download the slide as SVG")
    dl_slide_png = _Key("download the slide as PNG")
    make_html = _Key("the Make interactive HTML button")
    dl_html = _Key("download the interactive HTML file")
    copy_link = _Key("the Copy link button")
    forward_input = _Key("forward mode's input picker")
    forward_both = _Key("forward mode's whole-Jacobian toggle")
    forward_keys = _Key("forward mode's clicker keys component")
    forward_open = _Key("bool: the Forward mode panel is open (its expander's state; folded, nothing in it is drawn)")

    # --- The view and its link -------------------------------------------------------------------------------
    classroom = _Key("bool: the Classroom-mode toggle (its absence means the page is being entered)")
    link = _Key("dict: the URL the page showed last, put back when the menu returns to the page")
    entered_view = _Key("dict: view widget key -> the value the page was entered with")
    resumed = _Key("bool: this run entered through the menu and put back the last link (asked once)")
    language = _Key("the interface language picker")
    language_corner = _Key("the language picker's container")
    opens = _Key("dict: what the Open in Playground button opens")
    use_playground = _Key("the Open in Playground button")
    address = _Key("the Go to the Playground link")

    # --- The lesson plan -------------------------------------------------------------------------------------
    lesson_plan = _Key("the plan's text area")
    lesson_file = _Key("the plan's file uploader")
    lesson_error = _Key("str: why the plan was refused")
    lesson_entry = _Key("tuple: (source, move) of the link opening")
    lesson_decoded = _Key("the decoded lesson of the URL")
    lesson_start = _Key("Start")
    lesson_end = _Key("End")
    lesson_prev = _Key("previous link")
    lesson_next = _Key("next link")

    # --- The live class --------------------------------------------------------------------------------------
    seat = _Key("Seat: who this tab is in the class (teacher, student, ended)")
    students = _Key("dict: room code -> the student id the server issued this session")
    teach_tokens = _Key("dict: room code -> the teacher's secret this session holds")
    new_token = _Key("str: a just-started class's secret, handed to the tab's storage")
    teacher_key = _Key("the tab-storage component")
    teacher_key_data = _Key("tuple: what that component is given")
    room_program = _Key("tuple: (program key, steps) the room follows")
    room_drawing = _Key("the teacher's drawing this student's page last applied")
    room_error = _Key("str: the class's last error, shown once")
    room_watch = _Key("the class panel's watcher")
    answer_watch = _Key("the teacher's answer watcher (the count follows each answer)")
    held_from = _Key("int | None: the first step a student's page holds back while the class predicts")
    goto = _Key("int: the step the player jumps to (a reveal)")
    goto_ran = _Key("bool: that jump was handed over")
    follow = _Key("the student's Follow toggle")
    follow_status = _Key("the student's status line")
    nickname = _Key("the student's nickname field")
    nickname_kept = _Key("str: the nickname the room has")
    answer = _Key("the answer field")
    answer_form = _Key("the answer form")
    answer_msg = _Key("str: the answer's receipt")
    answers = _Key("the teacher's answers area")
    answers_chart = _Key("the histogram")
    ask = _Key("Ask the class")
    ask_again = _Key("Ask again")
    ask_choice = _Key("the question's kind")
    countdown = _Key("the question's countdown")
    peek = _Key("bool: the teacher peeks at the answers")
    reveal = _Key("Reveal")
    close_question = _Key("Close the question")
    class_asked = _Key("the asked question's box")
    class_panel = _Key("the class panel's container")
    show_rule = _Key("show the rule after a reveal")
    unanswered = _Key("who has not answered")
    ticket = _Key("the exit ticket download")
    end = _Key("End class")
    leave_class = _Key("Leave the class")
    start_class = _Key("Start a class")

    # --- Practice: predict every gradient, alone (lucid.ui.playground.predict_view) --------------------------
    practice = _Key("PredictSession | None: the self-paced predict-every-gradient run on the program on screen")
    practice_open = _Key("bool: the Practice expander is open (folded, nothing in it is drawn)")
    practice_feedback = _Key("Feedback | None: what the last answer or reveal of the practice did")
    practice_form = _Key("the practice's answer form")
    practice_answer = _Key("the practice's answer field")
    practice_check = _Key("the practice's Check button")
    practice_reveal = _Key("the practice's Reveal button")
    practice_hint = _Key("the practice's Show the rule toggle (the upstream gradient and the local rule)")
    practice_start = _Key("Start practising (and Start again)")
    practice_stop = _Key("Stop practising")

    # --- Exercises sent to a live class (lucid.ui.live_class.exercise_view) ---------------------------------
    exercise_open = _Key("bool: the teacher's Class exercise expander is open (folded, nothing is drawn)")
    exercise_kind = _Key("the teacher's choice of the exercise to send")
    exercise_send = _Key("Send to the class")
    exercise_stop = _Key("Stop the exercise")
    exercise_start = _Key("a student's Start the exercise")
    exercise_started = _Key("str | None: the id of the class exercise this student started")
    exercise_reported = _Key("dict | None: the progress this student last reported (sent again only when it changes)")
    exercise_error = _Key("Message | str | None: why the teacher's last send did not go through")

    # --- Gradient detective (lucid.ui.playground.detective_view) --------------------------------------------
    detective = _Key("DetectiveCase | None: the student's case on the program on screen (its link's)")
    detective_class_case = _Key("str | None: the sealed case of the class exercise this student started")
    detective_case_of = _Key("tuple | None: (source, seed, token) the case was opened for")
    detective_open = _Key("bool: the teacher's Gradient detective expander is open (folded, nothing is drawn)")
    detective_fault = _Key("the teacher's choice of the rule to break")
    detective_link = _Key("str | None: the link the teacher made, with its answer key")
    detective_make = _Key("Make the detective link")
    detective_node = _Key("the student's choice of the node to check")
    detective_check = _Key("Check this node")
    detective_synced = _Key("str | None: the inspector's pick last copied into the node to check")
    detective_form = _Key("the student's accusation form")
    detective_culprit = _Key("the accusation's node")
    detective_mistake = _Key("the accusation's mistake")
    detective_accuse = _Key("Name the culprit")
    detective_verdict = _Key("Accusation | None: what the last accusation found")


@cache
def keys(prefix: str) -> PageKeys:
    """The keys of the page with this prefix."""
    return PageKeys(prefix)
