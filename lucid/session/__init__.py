"""The per-session model of the app, without Streamlit: what a program shows, its inspector, its link,
a lesson plan, the inputs table, drawing options and the caches and run slots behind them.

The Streamlit pages (``lucid.ui``) and the notebook widget (``lucid.notebook``) both build on it;
nothing here imports Streamlit or ``lucid.ui``.
"""
