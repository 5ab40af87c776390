"""Sections of the lesson pages (Gradient check, Train an MLP, Pitfalls, ...) beyond one call.
"""
