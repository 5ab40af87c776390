"""lucid in a notebook: a Tensor's SVG display and the backward-pass player as an anywidget.
"""
