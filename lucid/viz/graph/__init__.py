"""Drawing a graph: structure, labels, styles, collapsed and large views, and ``to_dot``.
"""
