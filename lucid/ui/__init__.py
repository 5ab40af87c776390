"""Streamlit pieces shared by the app's pages, and the plain logic behind them.

Plain modules (no Streamlit import, tested directly): ``analysis``, ``stepper``,
``share``, ``inputs_table``, ``inspector``, ``options``, ``memo``.
Streamlit components: ``editor`` (``program_editor(key)``), ``stepper_view``,
``graph_view``, ``inspector_view``, ``inputs_view``, ``controls``, ``classroom``,
``url_state``. Importing this package imports neither.
"""
