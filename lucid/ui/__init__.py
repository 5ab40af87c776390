"""Streamlit pieces shared by the app's pages, and the plain logic behind them.

Plain modules (no Streamlit import, tested directly): ``analysis``, ``stepper``,
``share``, ``inputs_table``, ``inspector``, ``options``, ``memo`` (per-session LRU and the
process-wide ``SharedCache``), ``memory``, ``browser_events`` (every value the browser sends back, checked).
Streamlit components: ``editor`` (``program_editor(key)``), ``stepper_view``,
``graph_view``, ``clickable_graph`` (the in-browser animation player), ``inspector_view``,
``inputs_view``, ``controls``, ``classroom``, ``url_state``, ``entry`` (``ensure_navigation()``, the first call of
every page), ``browser_gate`` (checks widget values before Streamlit reads them).
Importing this package imports neither.
"""
