"""The Playground's pieces: editor, view controls, the player, inspector, inputs table, forward
mode and the links that carry a view.
"""
