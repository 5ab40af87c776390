"""Projector (Classroom) mode: larger type and a fitted graph for a lecture hall, carried in the link
as ``classroom=1``. Not the live class (``lucid.ui.live_class``).
"""
