"""Lucid Graph Lab: `streamlit run app.py`. The Playground first, then the classroom pages."""
import streamlit as st

import lucid.ui.runtime.a11y as a11y
from lucid.i18n import _
from lucid.ui.projector import contrast
from lucid.ui.projector import mode as classroom_state
from lucid.ui.runtime import document, language, rerun_gate, shutdown, streamlit_internals, warmup

shutdown.install()  # once per process: SIGTERM ends the server within seconds, even mid-computation
streamlit_internals.find_server_app()  # once per process, before any thread of ours imports or freezes
warmup.start()  # once per process: the lesson pages' default experiments, computed in the background
st.set_page_config(page_title="Lucid Graph Lab", page_icon=":material/hub:", layout="wide")
language.follow_link()  # this run's language (the link's lang=, else the session's), before any text is made


def _home() -> None:
    """The root URL opens the Playground with whatever the link carried (program, step, view)."""
    st.switch_page(playground, query_params=st.query_params.to_dict())


# The Playground lives at /playground, not at the root: a default page is served only at "/", so a
# shared /playground?code=… link would hit "Page not found" once the server has run any session.
playground = st.Page("pages/playground.py", title=_("Playground"), url_path="playground", icon=":material/hub:")
pages = [
    st.Page(_home, title="Lucid Graph Lab", url_path="home", default=True, visibility="hidden"),
    playground,
    st.Page("pages/gradient_check.py", title=_("Gradient check"), url_path="gradient_check",
            icon=":material/rule:"),
    st.Page("pages/train_mlp.py", title=_("Train an MLP"), url_path="train_mlp", icon=":material/model_training:"),
    st.Page("pages/pitfalls.py", title=_("Pitfalls"), url_path="pitfalls", icon=":material/warning:"),
    st.Page("pages/broadcasting.py", title=_("Broadcasting"), url_path="broadcasting", icon=":material/open_in_full:"),
    st.Page("pages/op_reference.py", title=_("Op reference"), url_path="op_reference", icon=":material/menu_book:"),
]
current = st.navigation(pages, position="top")
# the tab's title and <html lang> in this run's language; Streamlit's captions and code colours at 4.5:1
document.name_page(current.title, language.current(), contrast.CSS)
classroom_state.follow_link()  # Classroom mode holds on every page and is in every page's link
if current is not playground:  # the Playground has the picker in its own title row
    language.corner_picker("page")
a11y.install()  # keyboard fixes to Streamlit's own widgets (a popover's panel takes the focus), on every page
rerun_gate.in_a_slot(current.run)  # a fresh server's first runs, started before the gate was installed
