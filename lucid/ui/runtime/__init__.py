"""Plumbing every page runs on: the navigation entry, the browser gate, rerun gate, cancelling,
shutdown, the process cache and the interface language.
"""
