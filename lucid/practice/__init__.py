"""Practice that checks itself: exercises whose answers the engine checks (issue 30).

``rule_check``: a student's own op (``def`` in a program) and the derivative rules they wrote for it, checked
against central differences of its formula.
"""
